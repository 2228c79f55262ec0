import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, jsonLines, offlineEnv, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { CHROMIUM_ARGS } from './support/browser.js';
import { until } from './support/until.js';

/*
 * The live page and the HTML report add up, in Debian's Chromium: a scripted run of the offline
 * model (the CLI in its own process, its tasks streamed on stdin) is checked after every redraw of
 * its page (the counts sum to the total, "N+" while the stream is open; the filters count the rows
 * listed; the header's tokens are the rows' sum; every colour drawn on the timeline is in its
 * legend), its directive reads whole, "Stop run" asks first, and its last figures are the run's
 * report's. The report of a run's result lines shows each fork's turns, tool calls, efficiency and
 * directive, and says what an older line lacks.
 */

const WAIT_MS = 30_000;
const SESSION = 'examples/session.json';
const SHOTS = join(REPO_ROOT, 'test-results', 'ui');
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-adds-up-'));
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** As the page writes figures: 12,345 and 12.3%. */
const int = (n: number): string => n.toLocaleString('en-US');
const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

/** What the checker installed in the page found, after every change the page made to itself. */
interface Checks {
  checks: number;
  violations: string[];
  totals: string[];
}

/**
 * Runs in the page before its script: after each redraw, checks what must add up, and records what
 * does not. The list shows every fork here (few rows, a tall window).
 */
function installChecker(): void {
  const record: Checks = { checks: 0, violations: [], totals: [] };
  (window as unknown as { forkpoolChecks: Checks }).forkpoolChecks = record;
  const states = ['queued', 'running', 'completed', 'failed', 'cancelled'];
  const text = (selector: string): string => document.querySelector(selector)?.textContent ?? '';
  const check = (): void => {
    const totalText = text('[data-testid="state-count-total"]');
    if (totalText === '' || document.querySelector('[data-testid="connection"]')?.textContent === 'connecting') return;
    record.checks++;
    if (record.totals.at(-1) !== totalText) record.totals.push(totalText);
    const fail = (what: string): void => {
      if (record.violations.length < 20) record.violations.push(what);
    };
    const counts = states.map((s) => Number(text(`[data-testid="state-count-${s}"]`)));
    const sum = counts.reduce((a, b) => a + b, 0);
    if (sum !== Number.parseInt(totalText, 10)) fail(`counts ${counts.join('+')} = ${sum}, total ${totalText}`);
    const rows = [...document.querySelectorAll('[data-testid="fork-row"]')];
    const filterCount = (s: string): number => Number(text(`[data-testid="filter-${s}"] .filter-count`));
    if (filterCount('all') !== rows.length) fail(`filter all ${filterCount('all')}, ${rows.length} rows listed`);
    if (text('[data-testid="shown"]') !== `${rows.length} shown`) fail(`${text('[data-testid="shown"]')}, ${rows.length} rows listed`);
    for (const s of states) {
      const listed = rows.filter((r) => r.getAttribute('data-state') === s).length;
      if (filterCount(s) !== listed) fail(`filter ${s} ${filterCount(s)}, ${listed} rows listed`);
    }
    const sums = [0, 0, 0];
    for (const row of rows) {
      const figures = (row.getAttribute('data-tokens') ?? '').split(' ').map(Number);
      for (let i = 0; i < 3; i++) sums[i] = (sums[i] ?? 0) + (figures[i] ?? Number.NaN);
    }
    const header = text('[data-testid="tokens"]');
    const want = sums.map((n) => n.toLocaleString('en-US')).join(' · ');
    if (header !== want) fail(`header tokens ${header}, rows ${want}`);
    const drawn = (document.querySelector('[data-testid="timeline"]')?.getAttribute('data-drawn') ?? '').split(' ').filter((k) => k !== '');
    for (const key of drawn) {
      const item = document.querySelector(`[data-testid="timeline-legend"] [data-legend="${key}"]`);
      if (!item || (item as HTMLElement).hidden) fail(`${key} drawn on the timeline, not in its legend`);
    }
  };
  // Checked at the frame after a change: the page redraws in one frame, so every check sees one whole redraw.
  let pending = false;
  const soon = (): void => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      check();
    });
  };
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(soon).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

const checksOf = (page: Page): Promise<Checks> => page.evaluate(() => (window as unknown as { forkpoolChecks: Checks }).forkpoolChecks);

const rowState = (page: Page, id: string): Promise<string | null> =>
  page.locator(`[data-testid="fork-row"][data-fork-id="${id}"]`).getAttribute('data-state');

async function waitState(page: Page, id: string, state: string): Promise<void> {
  await page.waitForFunction(
    ([forkId, want]) => document.querySelector(`[data-testid="fork-row"][data-fork-id="${forkId}"]`)?.getAttribute('data-state') === want,
    [id, state] as const,
    { timeout: WAIT_MS },
  );
}

describe('the live page adds up', () => {
  it('after every redraw of a streamed run: counts, filters, tokens, legend; the directive whole; Stop run asks first; the end is the report', async () => {
    const long = `SLEEP 600000\nREPLY never\n${'This directive goes on well past sixty characters, so that a cut would show. '.repeat(4)}`;
    const first = [
      { id: 'reader', directive: 'CALL read_file {"path":"README.md"}\nREPLY reader read it' },
      { id: 'slow', directive: 'SLEEP 800\nREPLY slow answer' },
      { id: 'refused', directive: 'FAIL 400\nREPLY never' },
    ];
    const second = [
      { id: 'held', directive: long },
      { id: 'held-too', directive: 'SLEEP 600000\nREPLY never' },
      { id: 'last', directive: 'REPLY last answer' },
    ];
    const lineOf = (task: object): string => `${JSON.stringify(task)}\n`;
    // The CLI in its own process, its tasks on a stdin left open: a stream whose total is not known yet.
    const child: ChildProcess = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--session',
        SESSION,
        '--workspace',
        '.',
        '--tasks',
        '-',
        '--warmup',
        'none',
        '--concurrency',
        '2',
        '--ui',
        '--output-format',
        'json',
      ],
      { cwd: REPO_ROOT, env: offlineEnv(), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += String(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      for (const task of first) child.stdin?.write(lineOf(task));
      const url = await until(
        'the page URL on stderr',
        () => /forkpool: live page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(stderr)?.[1],
      );
      const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
      await page.addInitScript(installChecker);
      const stops: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/stop') stops.push(r.url());
      });
      await page.goto(url);

      // The first three end while the stream is open: the total is what was read so far, and more may come.
      await waitState(page, 'slow', 'completed');
      await waitState(page, 'refused', 'failed');
      await waitState(page, 'reader', 'completed');
      expect(await page.locator('[data-testid="state-count-total"]').textContent()).toBe('3+');

      for (const task of second) child.stdin?.write(lineOf(task));
      child.stdin?.end();
      // Two slots, both held: "last" is read and queued, with no row until it starts.
      await waitState(page, 'held', 'running');
      await waitState(page, 'held-too', 'running');
      await page.waitForFunction(() => document.querySelector('[data-testid="state-count-total"]')?.textContent === '6', undefined, {
        timeout: WAIT_MS,
      });
      expect(await page.locator('[data-testid="state-count-queued"]').textContent()).toBe('1');
      expect(await page.locator('[data-testid="filter-queued"] .filter-count').textContent()).toBe('0');
      expect(await page.locator('[data-testid="unlisted"]').textContent()).toContain('1 more queued');

      // A running fork's directive, whole (the row and the stream's task_started keep 60 characters).
      await page.locator('[data-testid="fork-row"][data-fork-id="held"]').click();
      await page.waitForFunction((want) => document.querySelector('[data-testid="detail-directive"]')?.textContent === want, long, {
        timeout: WAIT_MS,
      });
      await page.screenshot({ path: join(SHOTS, 'adds-up-running.png') });

      // Stop run asks first; "Keep running" stops nothing.
      await page.locator('[data-testid="stop-run"]').click();
      await page.locator('[data-testid="stop-run-ask"]').waitFor();
      expect(await page.locator('[data-testid="stop-run-question"]').textContent()).toBe('Stop every fork of the run (3 not ended)?');
      expect(await page.locator('[data-testid="stop-run"]').isVisible()).toBe(false);
      await page.locator('[data-testid="stop-run-keep"]').click();
      expect(await page.locator('[data-testid="stop-run-ask"]').isVisible()).toBe(false);
      expect(stops).toEqual([]);
      expect(await rowState(page, 'held')).toBe('running');
      // Asked again and confirmed: every fork not ended is cancelled, the queued one too.
      await page.locator('[data-testid="stop-run"]').click();
      await page.locator('[data-testid="stop-run-confirm"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="connection"]')?.textContent === 'ended', undefined, {
        timeout: WAIT_MS,
      });
      expect(stops).toHaveLength(1);
      for (const id of ['held', 'held-too', 'last']) expect(await rowState(page, id)).toBe('cancelled');
      // The cancelled forks' bars are drawn, and their colour is in the legend.
      expect((await page.locator('[data-testid="timeline"]').getAttribute('data-drawn'))?.split(' ')).toContain('cancelled');
      expect(await page.locator('[data-testid="timeline-legend"] [data-legend="cancelled"]').isVisible()).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'adds-up-ended.png') });

      // Every redraw added up.
      const checks = await checksOf(page);
      expect(checks.violations).toEqual([]);
      expect(checks.checks).toBeGreaterThan(10);
      expect(checks.totals).toContain('3+');
      expect(checks.totals.at(-1)).toBe('6');

      // The end: the figures of the run's own report (what the text summary prints).
      expect(await exited).toBe(1);
      const report = jsonLines(stdout).at(-1) as {
        forks: { total: number; completed: number; failed: number; cancelled: number };
        promptTokens: number;
        cachedTokens: number;
        outputTokens: number;
        hitRate: number;
        efficiency: number | null;
        theoreticalCachedTokens: number;
      };
      expect(report.forks).toMatchObject({ total: 6, completed: 2, failed: 1, cancelled: 3 });
      const header = async (id: string): Promise<string | null> => page.locator(`[data-testid="${id}"]`).textContent();
      for (const state of ['completed', 'failed', 'cancelled', 'total'] as const) {
        expect(await header(`state-count-${state}`)).toBe(String(report.forks[state]));
      }
      expect(await header('tokens')).toBe(`${int(report.promptTokens)} · ${int(report.cachedTokens)} · ${int(report.outputTokens)}`);
      expect(report.promptTokens).toBeGreaterThan(0);
      expect(await header('hit-rate')).toBe(pct(report.hitRate));
      expect(await header('efficiency')).toBe(`${pct(report.efficiency)} (max ${int(report.theoreticalCachedTokens)} cached)`);
      await page.close();
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});

/** A result line as the report test reads it. */
interface Line {
  id: string;
  directive?: string;
  toolCalls: number;
  perTurn?: unknown[];
  tools?: { tool: string; status: string }[];
  usage: { cachedTokens: number };
  maxCachedTokens?: number;
  preexistingCachedTokens?: number;
}

describe('forkpool report --html shows what the result lines hold', () => {
  it('each fork’s turns, tool calls, efficiency and whole directive; over time; what an older line lacks, in words', async () => {
    const directive = `CALL read_file {"path":"README.md"}\nCALL@2 read_file {"path":"package.json"}\nREPLY read both\n${'A long note. '.repeat(10)}`;
    const tasks = writeTasks(tmp, [
      { id: 'reader', directive },
      { id: 'plain', directive: 'REPLY plain answer' },
      { id: 'refused', directive: 'FAIL 400\nREPLY never' },
    ]);
    const out = join(tmp, 'out.jsonl');
    const run = await runCli(['run', '--session', SESSION, '--workspace', '.', '--tasks', tasks, '--out', out, '--output-format', 'json']);
    expect(run.code).toBe(1);
    const summary = jsonLines(run.stdout).at(-1) as { efficiency: number | null; theoreticalCachedTokens: number };
    const lines = jsonLines(readFileSync(out, 'utf8')) as unknown as Line[];
    const reader = lines.find((l) => l.id === 'reader') as Line;
    // The line carries what the report shows.
    expect(reader.directive).toBe(directive);
    expect(reader.toolCalls).toBe(2);
    expect(reader.tools).toEqual([
      { tool: 'read_file', status: 'ok' },
      { tool: 'read_file', status: 'ok' },
    ]);
    expect(reader.perTurn).toHaveLength(3);
    expect(reader.maxCachedTokens).toBeGreaterThan(0);

    // An older line: none of the new fields.
    const old = join(tmp, 'old.jsonl');
    writeFileSync(
      old,
      `${JSON.stringify({ id: 'old', status: 'completed', text: 'done', turns: 2, toolCalls: 1, usage: { promptTokens: 10, cachedTokens: 0, outputTokens: 2 }, durationMs: 5, endedAt: '2026-01-01T00:00:00.000Z' })}\n`,
    );
    const html = join(tmp, 'report.html');
    expect((await runCli(['report', out, '--html', html])).code).toBe(0);
    const oldHtml = join(tmp, 'old.html');
    expect((await runCli(['report', old, '--html', oldHtml])).code).toBe(0);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(pathToFileURL(html).href);
    await page.locator('[data-testid="fork-row"][data-fork-id="reader"]').click();
    const detail = page.locator('[data-testid="detail"]');
    expect(await detail.locator('[data-testid="detail-directive"]').textContent()).toBe(directive);
    expect(await detail.locator('[data-testid="detail-turns"] tbody tr').count()).toBe(reader.perTurn?.length);
    const toolRows = await detail.locator('[data-testid="detail-tools"] tbody tr').allTextContents();
    expect(toolRows).toHaveLength(reader.toolCalls);
    for (const row of toolRows) expect(row).toContain('read_file');
    const efficiency = (reader.usage.cachedTokens - (reader.preexistingCachedTokens ?? 0)) / (reader.maxCachedTokens as number);
    expect(await detail.locator('[data-testid="detail-efficiency"]').textContent()).toContain(
      `Efficiency ${pct(efficiency)} of the ${int(reader.maxCachedTokens as number)} tokens`,
    );
    expect(await detail.locator('[data-testid="detail-lacks"]').count()).toBe(0);
    // The run's efficiency is the run's report's; the figures over time: the start, then each fork's end.
    expect(await page.locator('[data-testid="efficiency"]').textContent()).toBe(
      `${pct(summary.efficiency)} (max ${int(summary.theoreticalCachedTokens)} cached)`,
    );
    expect(await page.locator('[data-testid="figures"]').getAttribute('data-samples')).toBe('4');
    expect(await page.locator('[data-testid="lacks"]').isVisible()).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'report-detail.png') });

    // The older line's report says what it lacks, instead of zeros and empty tables.
    await page.goto(pathToFileURL(oldHtml).href);
    expect(await page.locator('[data-testid="lacks"]').textContent()).toContain('the cache maximum in every line');
    expect(await page.locator('[data-testid="efficiency"]').textContent()).toContain('—');
    await page.locator('[data-testid="fork-row"][data-fork-id="old"]').click();
    const lacks = (await page.locator('[data-testid="detail-lacks"]').textContent()) ?? '';
    for (const what of ['its directive', 'its turns’ figures', 'its tool calls', 'its cache maximum']) expect(lacks).toContain(what);
    expect(await page.locator('[data-testid="detail-turns"]').count()).toBe(0);
    expect(await page.locator('[data-testid="detail-tools"]').count()).toBe(0);
    await page.close();
  });
});
