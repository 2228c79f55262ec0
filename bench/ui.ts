/**
 * The live page and the HTML report with many forks (issue 28), in Debian's Chromium
 * (/usr/bin/chromium driven by playwright-core; no browser is downloaded), in a process of its own.
 * The events are synthetic: a recorder (dist/src/ui/recorder.js) is fed N forks' ForkEvents at a
 * steady rate, so what is measured is the page's cost (and the recorder's and server's), apart from
 * the engine's. Each fork: started, 3 turns, 2 tool calls, ended; some fail, some are cancelled, some
 * tool calls fail, the first wave misses the cache. Measured:
 *   - time to render: navigation start → performance.mark('forkpool:first-render') (the page marks
 *     it when the first forks are on it), first paint and first contentful paint, the longest task,
 *     for the HTML report (reportHtml over N result lines, opened from file://), the live page opened
 *     with N queued forks, and the live page opened after every fork ended (the timeline drawn);
 *   - while the forks progress: the event delay (server's time of a patch → the page's
 *     'forkpool:patch-drawn' mark after drawing it), the lateness of a 50 ms setInterval in the page,
 *     long tasks, the renderer's busy time (CDP Performance metrics), and typing in the search
 *     box until the next frame;
 *   - the page's JS heap at the end (CDP Runtime.getHeapUsage, before and after a GC) and its DOM;
 *   - what the page costs the run's own thread (where the server runs, beside the engine): each
 *     patch made and its JSON, and a page's snapshot of N ended forks and its JSON.
 * Run by `npm run bench` (section `ui`), or alone:
 *   node --import tsx bench/ui.ts '{"forks":10000,"feedMs":5000,"inFlight":256,"renderRuns":1,"searchSamples":6}'
 * (add "screenshots":"DIR" for PNGs of the report and the live page).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import type { ForkEvent } from '../dist/src/engine/events.js';
import type { CacheMiss, ForkResult } from '../dist/src/result/fork-result.js';
import { createRunRecorder, type ReportFigures, type RunRecorder } from '../dist/src/ui/recorder.js';
import { reportHtml, snapshotOfResults, type ReportLine } from '../dist/src/ui/report.js';
import { startLiveServer, type LiveServer } from '../dist/src/ui/server.js';
import { CHROMIUM_ARGS } from '../test/support/browser.js';
import { runIfMain } from './lib/script.js';

export interface UiJob {
  /** Forks fed to the page (and result lines in the report). */
  forks: number;
  /** Over how long their events are fed (they start at a steady rate). */
  feedMs: number;
  /** About how many forks run at once (a fork lasts inFlight × feedMs / forks). */
  inFlight: number;
  /** Pages opened per render figure (median over them). */
  renderRuns: number;
  /** Keystrokes in the search box while the events flow. */
  searchSamples: number;
  /** When set (a directory): screenshots of the report, the live page halfway through the feed and at its end. */
  screenshots?: string;
}

/** One page opened: ms from navigation start (the page's time origin). */
export interface UiOpen {
  firstRenderMs: number | null;
  firstPaintMs: number | null;
  firstContentfulPaintMs: number | null;
  /** The longest task from navigation to first render + settleMs, and all long tasks' time then. */
  longestTaskMs: number;
  longTasksMs: number;
  heapUsedMiB: number;
  domNodes: number;
}

export interface UiQuantiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface UiResult {
  forks: number;
  chromium: string;
  viewport: { width: number; height: number };
  /** How long after its first render a page's paint and long tasks are read. */
  settleMs: number;
  report: { htmlBytes: number; opens: UiOpen[] };
  /** Opened with every fork known (queued rows), before any started. */
  liveQueued: UiOpen[];
  /** Opened after every fork ended: the snapshot carries every row's marks, the timeline is drawn. */
  liveEnded: UiOpen | null;
  feed: {
    ms: number;
    events: number;
    forkMs: number;
    /** Patches the server sent, and the page's patch-drawn marks (several patches in one frame draw once). */
    patchesSent: number;
    patchesDrawn: number;
    /** Rows per patch sent: median and max. */
    rowsPerPatch: { p50: number; max: number };
    /** JSON bytes of the patches sent, in all. */
    patchBytes: number;
    /** From the first event fed to the page showing every fork ended. */
    drainedMs: number | null;
  };
  /** Server's time of a patch → the page's mark after drawing it (ms); null: the page has no such mark. */
  delay: UiQuantiles | null;
  /** How late a 50 ms setInterval in the page fired, ms. */
  interval: UiQuantiles;
  longTasks: { count: number; totalMs: number; maxMs: number };
  /** The renderer's main thread over the feed (CDP Performance.getMetrics deltas), ms. */
  busy: { wallMs: number; taskMs: number; scriptMs: number; layoutMs: number; styleMs: number };
  /** A keystroke in the search box → the next frame drawn, ms. */
  search: UiQuantiles & { samples: number[] };
  /**
   * The live page's cost on the run's own process (its main thread, where the server runs): each
   * patch made by the recorder and its JSON over the feed, ms; and the snapshot a page opened after
   * every fork ended was given, with its JSON.
   */
  server: { patchMs: UiQuantiles; jsonMs: UiQuantiles; snapshot: { forks: number; ms: number; jsonMs: number; bytes: number } | null };
  end: { heapUsedMiB: number; heapAfterGcMiB: number; domNodes: number };
}

const VIEWPORT = { width: 1400, height: 900 };
const MIB = 1024 * 1024;
/** A bound on every wait for the page. */
const WAIT_MS = 60_000;
/** After a page's first render, the time its first paint and long tasks are read over. */
const SETTLE_MS = 300;

/** Installed before the page's own script: marks and long tasks as they come. */
const INIT_SCRIPT = `(() => {
  const b = { patches: [], longtasks: [], lateness: [], search: [] };
  Object.defineProperty(window, '__forkpoolBench', { value: b });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'forkpool:patch-drawn') b.patches.push({ at: e.startTime, sentAt: e.detail && e.detail.sentAt });
    }
  }).observe({ type: 'mark' });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longtasks.push({ at: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask' });
  } catch {}
})();`;

/** Started with the feed: the 50 ms interval's lateness, and each keystroke's input → next frame. */
const PROBE_START = `(() => {
  const b = window.__forkpoolBench;
  let last = performance.now();
  b.timer = setInterval(() => {
    const now = performance.now();
    b.lateness.push(Math.max(0, now - last - 50));
    last = now;
  }, 50);
  const box = document.querySelector('[data-testid=search]');
  box.addEventListener('input', (e) => {
    const t0 = e.timeStamp;
    // After the page's own listener (it schedules the frame): this frame callback runs after its render,
    // and the message after the frame is presented.
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => b.search.push(performance.now() - t0);
      channel.port2.postMessage(0);
    });
  });
  return performance.now();
})()`;

interface PageState {
  now: number;
  /** performance.timeOrigin: epoch ms of the page's time 0. */
  origin: number;
  firstRender: number | null;
  paint: Record<string, number>;
  patches: { at: number; sentAt: number | undefined }[];
  longtasks: { at: number; ms: number }[];
  lateness: number[];
  search: number[];
  elements: number;
}

const READ_STATE = `(() => {
  const b = window.__forkpoolBench;
  const fr = performance.getEntriesByName('forkpool:first-render')[0];
  const paint = {};
  for (const e of performance.getEntriesByType('paint')) paint[e.name] = e.startTime;
  return { now: performance.now(), origin: performance.timeOrigin, firstRender: fr ? fr.startTime : null, paint, patches: b.patches, longtasks: b.longtasks, lateness: b.lateness, search: b.search, elements: document.getElementsByTagName('*').length };
})()`;

const FIRST_RENDER = `performance.getEntriesByName('forkpool:first-render').length > 0`;
/** The page's counts say no fork is queued or running. */
const DRAINED = `(() => {
  const n = (s) => document.querySelector('[data-testid=state-count-' + s + ']')?.textContent;
  return n('queued') === '0' && n('running') === '0';
})()`;

function quantiles(values: readonly number[]): UiQuantiles {
  const s = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const q = (p: number): number =>
    s.length === 0 ? Number.NaN : (s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] as number);
  return { n: s.length, p50: q(0.5), p99: q(0.99), max: s.length === 0 ? Number.NaN : (s[s.length - 1] as number) };
}

/** A small deterministic generator (the same forks every run). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** When the report's run began (its lines' endedAt place the forks on its timeline). */
const REPORT_START = Date.parse('2026-12-01T12:00:00Z');
const PREFIX_TOKENS = 4_096;
const TURN_TOKENS = 350;
const PRICE = { input: 0.3e-6, cached: 0.03e-6, output: 2.5e-6 };

interface Planned {
  at: number;
  event: ForkEvent;
}

/** What the run's report says so far: the fields the recorder reads, from what was fed. */
class Figures {
  total: number;
  completed = 0;
  failed = 0;
  cancelled = 0;
  running = 0;
  promptTokens = 0;
  cachedTokens = 0;
  outputTokens = 0;
  theoretical = 0;
  usd = 0;
  retries = 0;
  misses = new Map<CacheMiss['reason'], { reason: CacheMiss['reason']; forks: number; tokens: number }>();

  constructor(total: number) {
    this.total = total;
  }

  apply(event: ForkEvent): void {
    if (event.type === 'task_started') this.running++;
    else if (event.type === 'turn') {
      const u = event.usage;
      this.promptTokens += u.promptTokens;
      this.cachedTokens += u.cachedTokens ?? 0;
      this.outputTokens += u.outputTokens;
      // The most a call could have been served: the prefix on a first call, the call before it after.
      this.theoretical += event.turn === 1 ? PREFIX_TOKENS : PREFIX_TOKENS + (event.turn - 1) * TURN_TOKENS;
      this.usd +=
        (u.promptTokens - (u.cachedTokens ?? 0)) * PRICE.input + (u.cachedTokens ?? 0) * PRICE.cached + u.outputTokens * PRICE.output;
    } else if (event.type === 'task_notification') {
      this.running--;
      this[event.result.status]++;
      this.retries += event.result.retries;
      const miss = event.result.cacheMiss;
      if (miss) {
        const sum = this.misses.get(miss.reason) ?? { reason: miss.reason, forks: 0, tokens: 0 };
        sum.forks++;
        sum.tokens += miss.tokens;
        this.misses.set(miss.reason, sum);
      }
    }
  }

  /** Only what the recorder reads of a run's report (ReportFigures): the rest of a RunReport is not made up. */
  report(): ReportFigures {
    return {
      forks: { total: this.total },
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens,
      outputTokens: this.outputTokens,
      hitRate: this.promptTokens === 0 ? null : this.cachedTokens / this.promptTokens,
      efficiency: this.theoretical === 0 ? null : Math.min(1, this.cachedTokens / this.theoretical),
      theoreticalCachedTokens: this.theoretical,
      cost: { usd: this.usd },
      cacheMisses: [...this.misses.values()].map((m) => ({ ...m })),
      cutAnswers: [],
      retries: this.retries,
    };
  }
}

/** Every fork's events, in the order they are fed, and its result line for the report. */
function plan(job: UiJob): { events: Planned[]; lines: ReportLine[]; forkMs: number } {
  const random = lcg(28);
  const spacing = job.feedMs / job.forks;
  const forkMs = Math.max(20, job.inFlight * spacing);
  const events: Planned[] = [];
  const lines: ReportLine[] = [];
  for (let i = 0; i < job.forks; i++) {
    const id = `task-${String(i).padStart(5, '0')}`;
    // Forks start evenly; each lasts forkMs ± 40 %, so the last ones end within the feed.
    const start = i * spacing * ((job.feedMs - forkMs * 1.4) / job.feedMs);
    const life = forkMs * (0.6 + 0.8 * random());
    const fails = i % 41 === 7;
    const cancelled = !fails && i % 97 === 13;
    const toolFails = i % 23 === 5;
    const miss: CacheMiss | undefined =
      i < 64
        ? {
            reason: 'cold-start',
            tokens: PREFIX_TOKENS,
            detail: 'sent before any request carrying its prefix had been answered: nothing could be cached yet',
          }
        : i % 250 === 125
          ? {
              reason: 'unexplained',
              tokens: 1_024,
              detail: 'the provider evicted the entry, served another cache shard, or had not built it yet',
            }
          : undefined;
    const turns = cancelled ? 1 : fails ? 2 : 3;
    const steps: [number, ForkEvent][] = [
      [
        0,
        {
          type: 'task_started',
          forkId: id,
          description: `Directive ${i}: look into part ${i % 120} of the repository and report what you find`,
          directive: `Directive ${i}: look into part ${i % 120} of the repository and report what you find`,
        },
      ],
    ];
    let prompt = 0;
    let cached = 0;
    let output = 0;
    let toolCalls = 0;
    for (let turn = 1; turn <= turns; turn++) {
      const promptTokens = PREFIX_TOKENS + 200 + (turn - 1) * TURN_TOKENS;
      const cachedTokens = turn === 1 ? (miss ? PREFIX_TOKENS - miss.tokens : PREFIX_TOKENS) : PREFIX_TOKENS + (turn - 2) * TURN_TOKENS;
      const outputTokens = 40 + Math.floor(random() * 120);
      prompt += promptTokens;
      cached += cachedTokens;
      output += outputTokens;
      steps.push([
        0.1 + 0.3 * (turn - 1),
        { type: 'turn', forkId: id, turn, usage: { promptTokens, cachedTokens, outputTokens }, functionCalls: turn < 3 ? 1 : 0 },
      ]);
      if (turn < 3 && !(cancelled && turn === 1) && !(fails && turn === 2)) {
        toolCalls++;
        const failed = toolFails && turn === 2;
        steps.push([
          0.25 + 0.3 * (turn - 1),
          failed
            ? {
                type: 'tool_call',
                forkId: id,
                tool: 'read_file',
                status: 'failed',
                error: { kind: 'tool_error', message: `no such file: src/part-${i}.ts` },
              }
            : { type: 'tool_call', forkId: id, tool: turn === 1 ? 'list_dir' : 'read_file', status: 'ok' },
        ]);
      }
    }
    const usage = { promptTokens: prompt, cachedTokens: cached, outputTokens: output };
    const costUsd = (prompt - cached) * PRICE.input + cached * PRICE.cached + output * PRICE.output;
    const base = {
      id,
      text: '',
      turns,
      toolCalls,
      usage,
      costUsd,
      durationMs: life,
      retries: i % 151 === 3 ? 1 : 0,
      calls: [],
      worker: { threadId: 1 + (i % 2), decodedPrefix: i < 2 },
    };
    const withMiss = miss ? { cacheMiss: miss } : {};
    const result: ForkResult = fails
      ? {
          ...base,
          ...withMiss,
          status: 'failed',
          error: {
            kind: 'model_error',
            message: 'HTTP 500 from the model: upstream overloaded (synthetic)',
            status: 500,
            category: 'server_error',
          },
        }
      : cancelled
        ? { ...base, ...withMiss, status: 'cancelled', error: { kind: 'cancelled', message: 'stopped from the live page' } }
        : {
            ...base,
            ...withMiss,
            status: 'completed',
            text: `Part ${i % 120}: ${i % 3 === 0 ? 'nothing to change' : `${1 + (i % 7)} findings, the first in src/part-${i}.ts`}.`,
          };
    steps.push([1, { type: 'task_notification', forkId: id, status: result.status, result }]);
    for (const [share, event] of steps) events.push({ at: start + share * life, event });
    lines.push({
      id,
      status: result.status,
      text: result.text,
      turns,
      toolCalls,
      usage,
      costUsd,
      durationMs: life,
      endedAt: new Date(REPORT_START + start + life).toISOString(),
      ...withMiss,
      ...(result.status !== 'completed' ? { error: { kind: result.error.kind, message: result.error.message } } : {}),
    });
  }
  events.sort((a, b) => a.at - b.at);
  return { events, lines, forkMs };
}

/**
 * Polls `expression` in the page until it is true (page.waitForFunction evaluates a string with
 * eval, which the page's CSP refuses; page.evaluate goes through the DevTools protocol).
 */
async function pollUntil(page: Page, expression: string, what: string): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await page.evaluate(expression))) {
    if (performance.now() > deadline) throw new Error(`ui: ${what} not within ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function heapMiB(cdp: CDPSession): Promise<number> {
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize / MIB;
}

async function readState(page: Page): Promise<PageState> {
  return (await page.evaluate(READ_STATE)) as PageState;
}

/** Opens a page at `url`, waits for its first render, and reads what its opening cost. */
async function open(browser: Browser, url: string): Promise<{ page: Page; cdp: CDPSession; figures: UiOpen }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.setDefaultTimeout(WAIT_MS);
  await page.addInitScript({ content: INIT_SCRIPT });
  const cdp = await page.context().newCDPSession(page);
  await page.goto(url, { timeout: WAIT_MS });
  await pollUntil(page, FIRST_RENDER, 'the first render');
  // The frame after the first render, and a little more, so that its paint and long task are in.
  await page.waitForTimeout(SETTLE_MS);
  const s = await readState(page);
  const openEnd = (s.firstRender ?? s.now) + SETTLE_MS;
  const tasks = s.longtasks.filter((t) => t.at <= openEnd);
  return {
    page,
    cdp,
    figures: {
      firstRenderMs: s.firstRender,
      firstPaintMs: s.paint['first-paint'] ?? null,
      firstContentfulPaintMs: s.paint['first-contentful-paint'] ?? null,
      longestTaskMs: Math.max(0, ...tasks.map((t) => t.ms)),
      longTasksMs: tasks.reduce((a, t) => a + t.ms, 0),
      heapUsedMiB: await heapMiB(cdp),
      domNodes: s.elements,
    },
  };
}

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

interface Sent {
  patches: number;
  rows: number[];
  bytes: number;
  /** recorder.patch() and the JSON of what it returned, ms each (the server's side, on the run's own thread). */
  patchMs: number[];
  jsonMs: number[];
  /** The last snapshot a page was given: recorder.snapshot() and its JSON. */
  snapshot?: UiResult['server']['snapshot'];
}

/**
 * The recorder, with what it hands out counted and timed. The JSON is made again after the server
 * has sent it (setImmediate), so the counting adds nothing to the delay measured.
 */
function countingRecorder(inner: RunRecorder): { recorder: RunRecorder; sent: Sent } {
  const sent: Sent = { patches: 0, rows: [], bytes: 0, patchMs: [], jsonMs: [] };
  const json = (value: unknown): { ms: number; bytes: number } => {
    const t0 = performance.now();
    const text = JSON.stringify(value);
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(text) };
  };
  return {
    sent,
    recorder: {
      ...inner,
      patch() {
        const t0 = performance.now();
        const p = inner.patch();
        const ms = performance.now() - t0;
        if (p !== undefined) {
          sent.patches++;
          sent.rows.push(p.forks.length);
          sent.patchMs.push(ms);
          setImmediate(() => {
            const j = json(p);
            sent.jsonMs.push(j.ms);
            sent.bytes += j.bytes;
          });
        }
        return p;
      },
      snapshot(live) {
        const t0 = performance.now();
        const snapshot = inner.snapshot(live);
        const ms = performance.now() - t0;
        setImmediate(() => {
          const j = json(snapshot);
          sent.snapshot = { forks: snapshot.forks.length, ms, jsonMs: j.ms, bytes: j.bytes };
        });
        return snapshot;
      },
    },
  };
}

/** Debian's Chromium (npm test installs the package when it is missing); no browser is downloaded. */
const CHROMIUM = '/usr/bin/chromium';

export async function measureUi(job: UiJob): Promise<UiResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`ui: ${CHROMIUM} is missing (Debian's chromium package; npm test installs it)`);
  const { events, lines, forkMs } = plan(job);
  const tmp = mkdtempSync(join(tmpdir(), 'forkpool-bench-ui-'));
  let browser: Browser | undefined;
  let server: LiveServer | undefined;
  let feeder: NodeJS.Timeout | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: WAIT_MS });

    // The HTML report over N result lines, from disk.
    const html = reportHtml(snapshotOfResults(lines), `forkpool report: ${job.forks} forks (synthetic)`);
    const file = join(tmp, 'report.html');
    writeFileSync(file, html);
    const reportOpens: UiOpen[] = [];
    for (let r = 0; r < job.renderRuns; r++) {
      const { page, figures } = await open(browser, pathToFileURL(file).href);
      reportOpens.push(figures);
      if (job.screenshots && r === 0) await page.screenshot({ path: join(job.screenshots, 'ui-report.png') });
      await page.close();
    }

    // The live page: every fork known up front (queued), none started.
    const figures = new Figures(job.forks);
    const counted = countingRecorder(
      createRunRecorder({
        provider: 'local',
        model: 'synthetic',
        figures: {
          report: () => figures.report(),
          gate: () => ({
            inFlight: Math.min(figures.running, job.inFlight),
            limit: job.inFlight,
            waiting: 0,
            rateLimited: 0,
            retriesSpent: figures.retries,
          }),
        },
      }),
    );
    const recorder = counted.recorder;
    recorder.queued(
      lines.map((l, i) => ({
        id: l.id,
        directive: `Directive ${i}: look into part ${i % 120} of the repository and report what you find`,
      })),
    );
    server = await startLiveServer({
      recorder,
      title: `forkpool run: ${job.forks} forks (synthetic)`,
      port: 0,
      stopFork: () => false,
      stopRun: () => {},
    });
    const liveQueued: UiOpen[] = [];
    let live: { page: Page; cdp: CDPSession } | undefined;
    for (let r = 0; r < job.renderRuns; r++) {
      const opened = await open(browser, server.url);
      liveQueued.push(opened.figures);
      if (r < job.renderRuns - 1) await opened.page.close();
      else live = opened;
    }
    if (live === undefined) throw new Error('ui: renderRuns must be at least 1');
    const { page, cdp } = live;
    // Patches before the feed (the page's snapshot was already complete) are not part of it.
    await page.waitForTimeout(200);
    await cdp.send('Performance.enable');
    const before = await metrics(cdp);
    const feedStartPage = (await page.evaluate(PROBE_START)) as number;
    const patchesBefore = counted.sent.patches;
    counted.sent.rows.length = 0;
    counted.sent.bytes = 0;
    counted.sent.patchMs.length = 0;
    counted.sent.jsonMs.length = 0;

    // The feed: every event whose time has come, every 10 ms.
    const t0 = performance.now();
    let next = 0;
    const fed = new Promise<void>((resolve) => {
      feeder = setInterval(() => {
        const now = performance.now() - t0;
        while (next < events.length && (events[next] as Planned).at <= now) {
          const { event } = events[next] as Planned;
          figures.apply(event);
          recorder.apply(event);
          next++;
        }
        if (next >= events.length) {
          clearInterval(feeder);
          feeder = undefined;
          resolve();
        }
      }, 10);
    });
    // Keystrokes spread over the feed: a digit, then Backspace (the list filtered, then whole again).
    await page.focus('[data-testid=search]');
    for (let k = 0; k < job.searchSamples; k++) {
      const at = ((k + 1) * job.feedMs) / (job.searchSamples + 1);
      const wait = at - (performance.now() - t0);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await page.keyboard.press(k % 2 === 0 ? String((k / 2) % 10) : 'Backspace');
    }
    if (job.screenshots) await page.screenshot({ path: join(job.screenshots, 'ui-live-feed.png') });
    await fed;
    const feedMs = performance.now() - t0;
    // Drained: the page shows no fork queued or running.
    let drainedMs: number | null = null;
    try {
      await pollUntil(page, DRAINED, 'every fork shown ended');
      drainedMs = performance.now() - t0;
    } catch (err) {
      // Not drained within the bound: the figures below still say how the page kept up.
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    }
    // The last patch (250 ms apart) drawn.
    await page.waitForTimeout(400);
    if (job.screenshots) await page.screenshot({ path: join(job.screenshots, 'ui-live-end.png') });
    const after = await metrics(cdp);
    const state = await readState(page);
    await page.evaluate('clearInterval(window.__forkpoolBench.timer)');
    const usedMiB = await heapMiB(cdp);
    await cdp.send('HeapProfiler.collectGarbage');
    const afterGcMiB = await heapMiB(cdp);
    await page.close();

    // A page opened after every fork ended: the whole run's rows with their marks.
    const ended = await open(browser, server.url);
    await ended.page.close();

    const inFeed = state.longtasks.filter((t) => t.at >= feedStartPage);
    // The page's clock and the server's are the same machine's: epoch ms on both sides.
    const delays = state.patches
      .filter((p) => p.at >= feedStartPage && typeof p.sentAt === 'number')
      .map((p) => state.origin + p.at - (p.sentAt as number));
    const delta = (name: string): number => ((after[name] ?? 0) - (before[name] ?? 0)) * 1000;
    const rows = quantiles(counted.sent.rows);
    return {
      forks: job.forks,
      chromium: browser.version(),
      viewport: VIEWPORT,
      settleMs: SETTLE_MS,
      report: { htmlBytes: Buffer.byteLength(html), opens: reportOpens },
      liveQueued,
      liveEnded: ended.figures,
      feed: {
        ms: feedMs,
        events: events.length,
        forkMs,
        patchesSent: counted.sent.patches - patchesBefore,
        patchesDrawn: state.patches.filter((p) => p.at >= feedStartPage).length,
        rowsPerPatch: { p50: rows.p50, max: rows.max },
        patchBytes: counted.sent.bytes,
        drainedMs,
      },
      delay: delays.length > 0 ? quantiles(delays) : null,
      interval: quantiles(state.lateness),
      longTasks: { count: inFeed.length, totalMs: inFeed.reduce((a, t) => a + t.ms, 0), maxMs: Math.max(0, ...inFeed.map((t) => t.ms)) },
      busy: {
        wallMs: delta('Timestamp'),
        taskMs: delta('TaskDuration'),
        scriptMs: delta('ScriptDuration'),
        layoutMs: delta('LayoutDuration'),
        styleMs: delta('RecalcStyleDuration'),
      },
      search: { ...quantiles(state.search), samples: state.search },
      server: { patchMs: quantiles(counted.sent.patchMs), jsonMs: quantiles(counted.sent.jsonMs), snapshot: counted.sent.snapshot ?? null },
      end: { heapUsedMiB: usedMiB, heapAfterGcMiB: afterGcMiB, domNodes: state.elements },
    };
  } finally {
    if (feeder !== undefined) clearInterval(feeder);
    await server?.close().catch(() => {});
    await browser?.close().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}

runIfMain('ui.ts', measureUi);
