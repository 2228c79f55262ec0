/**
 * forkpool benchmarks: `npm run bench` (full) or `npm run bench -- --quick` (within 90 s on 2 cores).
 * Options: --quick, --only micro,dispatch,sweep,throughput,cache,memory,retention,tasks,queue,floor,fanout,peers,ai-sdk,responses,scaling,ui,cold, --out DIR (default bench/results),
 *          --no-chart (leave bench/results/chart.svg and scaling.svg as they are),
 *          --report FILE.json (no run: render FILE.md, FILE.html and the charts again from a results file),
 *          --against COMMIT [--keep-base] (no bench run: this build against COMMIT's, bench/compare.ts).
 *
 * Four variants run the same forks against the same local model server (a process of its own):
 *   inprocess     every fork loop on the main thread (Promise.all style, bounded by the same concurrency)
 *   clone         a Piscina pool; the whole session structured-cloned into every task
 *   sab           ForkEngine: the frozen prefix in a SharedArrayBuffer, parsed once per worker
 *   sab+explicit  ForkEngine with an explicit cache (the prefix leaves the request bodies)
 * Each fork: 3 model calls and 2 tool calls. Every scenario runs in a child process (memory and
 * event loop are the scenario's own); ratios to `sab` compare figures of the same run.
 * The cache section runs `sab` on a cold cache twice over: Gemini-shaped sessions on the local
 * provider, and the same conversation in OpenAI Chat Completions' shape per simulated provider
 * (openai, deepseek, dashscope, and 'none': a server that does not report cached tokens), each
 * through the engine's preset for that provider; DeepSeek also without its build wait.
 * The queue section runs the same forks through the built CLI, local and distributed (BullMQ on a
 * redis-server of its own, 1, 2 and 4 `forkpool worker` processes): forks/s, CPU, enqueue → start,
 * Redis memory per fork in flight (bench/queue.ts; the built CLI).
 * The tasks section streams a JSONL task file of 1,000,000 lines (10,000 with --quick) through
 * the task reader and a run on a stand-in pool: heap bytes per task (bench/task-stream.ts).
 * The floor section sets a one-call fork's client CPU against the physical floor (issue 24): node:http
 * and fetch posting the same bytes, @google/genai in-process (its own transport and forkpool's) and
 * forkpool, each in a process of its own against a sink server in another (bench/floor.ts).
 * The fanout section measures a fan-out's client CPU per call, fresh (a process's first fan-out of 200
 * one-call forks), warm (its second) and warm code (one more, once the process has made 3,000 calls: its
 * code compiled in every thread), forkpool against the in-process SDK, each run a process of its own
 * against the sink (bench/fanout-cpu.ts), with the ratio beside the issue's target.
 * The peers section runs one fan-out (one-call forks of one conversation) through forkpool and agent
 * frameworks on their own SDK paths (LangGraph JS, the Vercel AI SDK, the OpenAI Agents SDK), each
 * client in a process of its own against the local server's Chat Completions route (bench/peers.ts).
 * The ai-sdk section runs one AI SDK agent (generateText through @ai-sdk/openai) whose model calls a
 * fork tool n times in one step, its forks run by hand as the AI SDK's own parallel generateText
 * calls, then through forkpool's forkTool, each variant in a process of its own against the local
 * server's Chat Completions route (bench/ai-sdk.ts, issue 29); then the same agent on the OpenAI
 * Agents SDK, by hand (parallel run() calls) and through its forkTool, on the Responses route
 * (bench/openai-agents.ts).
 * The responses section forks one OpenAI Responses API session two ways, each in a process of its own
 * against the local server's Responses route: every fork re-sending the parent's conversation, and
 * every fork naming the parent's stored response (previous_response_id, cache: 'explicit'): request
 * bytes, CPU and loop delay per fork, cached tokens (bench/responses.ts, issue 30).
 * The scaling section moves one dimension at a time (forks, worker threads, concurrency, prefix size)
 * and writes bench/results/scaling.svg beside the tables (bench/report/scaling.ts).
 * In the full run the sweep also runs, at 8 MiB after each repeat's sab job, a plain node:http client
 * sending the same 96 requests to the same server process (bench/plain-client.ts): issue 24's ideal.
 * The ui section measures the live page and the HTML report with 10,000 forks in Debian's Chromium
 * (/usr/bin/chromium through playwright-core; no browser is downloaded), on synthetic events fed to
 * the page's recorder so that the page's cost shows apart from the engine's: time to render, the
 * delay from a patch to its drawing, the page's main thread while the forks progress, typing in the
 * search box, its heap (bench/ui.ts, a process of its own).
 * Writes bench/results/<date>-<mode>.json, .md and .html (one self-contained file: the same tables
 * and text as the markdown, rendered from it by bench/report/html.ts, with the charts inline as SVG;
 * nothing fetched when it opens), and bench/results/chart.svg and scaling.svg when the run has their
 * figures; prints the tables.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LATENCY_PRESETS, type UsagePreset } from '../dist/src/local-server/index.js';
import { planOf, resolveOptions } from '../dist/src/engine/options.js';
import { EXIT_CODES_HELP } from '../dist/src/cli/exit-codes.js';
import { freezePrefix } from '../dist/src/prefix/index.js';
import { FULL, QUICK, SWEEP_LATENCY, type BenchConfig } from './config.js';
import { ensureBuilt } from './lib/built.js';
import { runJobChild, runningJobs } from './lib/child.js';
import { primeCache } from './lib/prime.js';
import { runScriptChild } from './lib/script.js';
import { openServers, withServer, withSink, type ServerProcess } from './lib/server.js';
import { KIB, makeChatSession, makeSession, sizeLabel } from './lib/session.js';
import { chatProvider } from './lib/chat.js';
import { runMicro, type MicroResult } from './micro.js';
import { runQueueSection } from './queue.js';
import { renderChart } from './report/chart.js';
import { renderHtml, type InlineChart } from './report/html.js';
import { renderScalingChart, type ScalingAxis, type ScalingRow } from './report/scaling.js';
import type { FloorJob, FloorResult } from './floor.js';
import type { PeersJob, PeersResult } from './peers.js';
import type { FanoutCpuJob, FanoutCpuResult } from './fanout-cpu.js';
import { fanoutTable } from './report/fanout.js';
import type { AiSdkJob, AiSdkResult } from './ai-sdk.js';
import { RESPONSES_SETTINGS, RESPONSES_WAYS, type ResponsesJob, type ResponsesResult, type ServerCounters } from './responses.js';
import type { PlainClientJob, PlainClientResult } from './plain-client.js';
import { median } from './lib/measure.js';
import { evaluateTargets, renderMarkdown, type BenchResults, type Row } from './report/markdown.js';
import type { RetentionJob, RetentionResult } from './retention.js';
import type { TaskStreamJob, TaskStreamMode, TaskStreamResult } from './task-stream.js';
import type { UiJob, UiOpen, UiResult } from './ui.js';
import { coldStartLines, runColdStart } from './cold-start.js';
import type { JobSpec, ScenarioResult, ScenarioSpec } from './scenario.js';
import type { BenchWarmup, VariantName } from './variants/common.js';

const SECTIONS = [
  'micro',
  'dispatch',
  'sweep',
  'throughput',
  'cache',
  'memory',
  'retention',
  'tasks',
  'queue',
  'floor',
  'fanout',
  'peers',
  'ai-sdk',
  'responses',
  'scaling',
  'ui',
  'cold',
] as const;
type Section = (typeof SECTIONS)[number];

const here = dirname(fileURLToPath(import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function machine(): BenchResults['meta']['machine'] {
  const list = cpus();
  return {
    cpuModel: list[0]?.model ?? 'unknown',
    cpus: list.length,
    memGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${platform()} ${release()} ${arch()}`,
  };
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Sections a quick run leaves out unless --only names them: a curve (scaling) and a fan-out whose
 * headline is at realistic latency (throughput) say little from the few points 90 s allows, and
 * the fanout, floor and sweep sections measure the same engine at zero latency.
 */
const FULL_RUN_ONLY: readonly Section[] = ['throughput', 'scaling'];

/** Bound on one child job: generous, so only a hung job is killed. */
function jobBoundMs(cfg: BenchConfig, scenarios: readonly ScenarioSpec[]): number {
  return 120_000 + scenarios.length * (cfg.forkTimeoutMs + 60_000);
}

interface Runner {
  cfg: BenchConfig;
  results: BenchResults;
}

async function runJob(
  ctx: Runner,
  server: ServerProcess,
  job: Omit<JobSpec, 'url' | 'threads' | 'timeoutMs'>,
  tag: Pick<Row, 'section' | 'latency' | 'mode'>,
  rep: number,
  isolate = ctx.cfg.isolate,
): Promise<Row[]> {
  const before = await server.stats();
  const rows: Row[] = [];
  // Isolated: one process per scenario; else one per job (variant and group), scenarios in order.
  const batches = isolate ? job.scenarios.map((s) => [s]) : [job.scenarios];
  for (const scenarios of batches) {
    const spec: JobSpec = { ...job, scenarios, url: server.url, threads: ctx.cfg.threads, timeoutMs: ctx.cfg.forkTimeoutMs };
    const got: ScenarioResult[] = await runJobChild(spec, jobBoundMs(ctx.cfg, scenarios));
    for (const r of got) {
      rows.push({ ...r, ...tag, rep });
      const fail = r.failed > 0 ? ` FAILED ${r.failed}: ${r.failures.join(' | ')}` : '';
      const what = r.provider !== undefined ? `${r.provider} ${r.warmup} wait ${r.cacheBuildMs ?? 0}` : r.variant;
      log(
        `    ${String(tag.section).padEnd(10)} ${what.padEnd(12)} ${sizeLabel(r.prefixBytes).padStart(7)} N=${String(r.n).padEnd(4)} ` +
          `makespan ${r.makespanMs.toFixed(0).padStart(6)} ms  dispatch ${r.dispatch.medianUs.toFixed(0).padStart(5)} µs  ` +
          `main busy ${(r.main.utilization * 100).toFixed(1)}%  p99 ${r.main.loopDelay.p99.toFixed(1)} ms  rss ${r.main.memory.peakRssMiB.toFixed(0)} MiB${fail}`,
      );
    }
  }
  const after = await server.stats();
  ctx.results.serverCpu.push({ ...tag, variant: job.variant, rep, scenarios: job.scenarios.length, cpuMs: after.cpuMs - before.cpuMs });
  return rows;
}

/** A port nothing listens on: forks fail at their first call, so only the dispatch is measured. */
const DEAD_URL = 'http://127.0.0.1:1';

async function sectionDispatch(ctx: Runner): Promise<void> {
  const { cfg } = ctx;
  const d = cfg.dispatch;
  for (const variant of d.variants) {
    const got = await runJobChild(
      {
        variant,
        concurrency: d.n,
        threads: cfg.threads,
        warmup: 'none',
        url: DEAD_URL,
        latency: 'zero',
        timeoutMs: cfg.forkTimeoutMs,
        dispatchBursts: d.bursts,
        scenarios: d.sizes.map((prefixBytes) => ({ prefixBytes, n: d.n })),
      },
      600_000,
    );
    for (const r of got)
      log(
        `    dispatch   ${variant.padEnd(12)} ${sizeLabel(r.prefixBytes).padStart(7)} median ${r.medianUs.toFixed(1)} µs (p10 ${r.p10Us.toFixed(1)}, p90 ${r.p90Us.toFixed(1)}; ${r.samples} forks)`,
      );
    ctx.results.dispatch.push(...got);
  }
}

async function sectionSweep(ctx: Runner): Promise<void> {
  const { cfg } = ctx;
  await withServer(SWEEP_LATENCY, async (server) => {
    for (const size of cfg.sweep.sizes) await primeCache(server.url, freezePrefix(makeSession(size)));
    for (let rep = 1; rep <= cfg.sweep.repeats; rep++) {
      log(`  sweep, repeat ${rep}/${cfg.sweep.repeats}`);
      for (const variant of cfg.variants) {
        const rows = await runJob(
          ctx,
          server,
          {
            variant,
            concurrency: cfg.sweep.n,
            warmup: 'none',
            latency: SWEEP_LATENCY,
            scenarios: cfg.sweep.sizes.map((prefixBytes) => ({ prefixBytes, n: cfg.sweep.n })),
          },
          { section: 'sweep' },
          rep,
        );
        ctx.results.sweep.push(...rows);
        if (variant === 'sab') await sweepPlainClient(ctx, server, rep);
      }
    }
  });
}

/**
 * Issue 24's plain-client ideal, in the same run as the sweep's sab row at `plainClientAt`: a
 * node:http client in a process of its own sends the same requests (n chains of 3 calls) to the
 * same server process (bench/plain-client.ts); the server's CPU over it comes from its stats.
 */
async function sweepPlainClient(ctx: Runner, server: ServerProcess, rep: number): Promise<void> {
  const { sweep, forkTimeoutMs } = ctx.cfg;
  const prefixBytes = sweep.plainClientAt;
  if (prefixBytes == null || !sweep.sizes.includes(prefixBytes)) return;
  const before = await server.stats();
  const got = await runScriptChild<PlainClientJob, PlainClientResult>(
    'plain-client.ts',
    { url: server.url, prefixBytes, chains: sweep.n, callsPerChain: 3 },
    60_000 + forkTimeoutMs,
  );
  const after = await server.stats();
  const row = { ...got, rep, serverCpuMs: after.cpuMs - before.cpuMs };
  log(
    `    sweep      plain client ${sizeLabel(prefixBytes).padStart(7)} ${got.requests} requests  makespan ${got.makespanMs.toFixed(0).padStart(6)} ms  client CPU ${got.cpuMs.toFixed(0)} ms  server CPU ${row.serverCpuMs.toFixed(0)} ms`,
  );
  ctx.results.sweepPlainClient ??= [];
  ctx.results.sweepPlainClient.push(row);
}

async function sectionThroughput(ctx: Runner): Promise<void> {
  const { cfg } = ctx;
  const t = cfg.throughput;
  for (const latency of ['zero', 'realistic'] as const) {
    if (t.ns[latency].length === 0 && t.bigN === null) continue;
    await withServer(latency, async (server) => {
      await primeCache(server.url, freezePrefix(makeSession(t.prefixBytes)));
      const groups: { ns: readonly number[]; repeats: number }[] = [{ ns: t.ns[latency], repeats: t.repeats }];
      if (t.bigN !== null) groups.push({ ns: [t.bigN], repeats: t.bigRepeats });
      for (const group of groups) {
        for (let rep = 1; rep <= group.repeats; rep++) {
          log(`  throughput ${latency}, N=${group.ns.join(',')}, repeat ${rep}/${group.repeats}`);
          for (const variant of cfg.variants) {
            const rows = await runJob(
              ctx,
              server,
              {
                variant,
                concurrency: t.concurrency,
                warmup: 'none',
                latency,
                scenarios: group.ns.map((n) => ({ prefixBytes: t.prefixBytes, n })),
              },
              { section: 'throughput', latency },
              rep,
            );
            ctx.results.throughput.push(...rows);
          }
        }
      }
    });
  }
}

const CACHE_MODES: { mode: 'none' | 'auto' | 'parent' | 'explicit'; variant: VariantName; warmup: BenchWarmup }[] = [
  { mode: 'none', variant: 'sab', warmup: 'none' },
  { mode: 'auto', variant: 'sab', warmup: 'auto' },
  // The parent sends its conversation first, then fans out parent-warm (no fork waits).
  { mode: 'parent', variant: 'sab', warmup: 'parent' },
  { mode: 'explicit', variant: 'sab+explicit', warmup: 'auto' },
];

/**
 * OpenAI-shaped sessions: warm-up none in one job; auto and parent (the same engine: parent-warm is
 * per fan-out) in another; for DeepSeek, auto and parent again without the engine's build wait.
 */
const CHAT_JOBS: { warmup: 'none' | 'auto'; cacheBuildMs?: number }[] = [{ warmup: 'none' }, { warmup: 'auto' }];
const NO_BUILD_WAIT = { warmup: 'auto', cacheBuildMs: 0 } as const;

async function sectionCache(ctx: Runner): Promise<void> {
  const { cfg } = ctx;
  for (let rep = 1; rep <= cfg.cache.repeats; rep++) {
    for (const n of cfg.cache.ns) {
      log(`  cache gemini N=${n}, repeat ${rep}/${cfg.cache.repeats} (a fresh server each: cold cache)`);
      // The targets read none, auto and explicit; a parent-warm fan-out's row is the full run's.
      for (const m of CACHE_MODES.filter((mode) => cfg.mode === 'full' || mode.mode !== 'parent')) {
        await withServer(cfg.cache.latency, async (server) => {
          const rows = await runJob(
            ctx,
            server,
            {
              variant: m.variant,
              concurrency: cfg.cache.concurrency,
              warmup: m.warmup,
              latency: cfg.cache.latency,
              scenarios: [{ prefixBytes: cfg.cache.prefixBytes, n }],
            },
            { section: 'cache', mode: m.mode },
            rep,
          );
          ctx.results.cache.push(...rows);
        });
      }
    }
    if (rep <= cfg.cache.chat.repeats) for (const preset of cfg.cache.chat.presets) await chatCache(ctx, preset, rep);
  }
}

/**
 * One preset's rows: one server simulating it (`usage` preset), a job per engine setting, a
 * scenario per warm-up and fork count. Each scenario's session is salted in its first cache block,
 * so it starts cold on the shared server.
 */
async function chatCache(ctx: Runner, preset: UsagePreset, rep: number): Promise<void> {
  const c = ctx.cfg.cache;
  log(`  cache ${preset} (openai-chat) N=${c.chat.ns.join(',')}, repeat ${rep}/${Math.min(c.repeats, c.chat.repeats)}`);
  const asked = c.chat.withoutWarmup ? CHAT_JOBS : CHAT_JOBS.filter((j) => j.warmup !== 'none');
  const jobs = preset === 'deepseek' ? [...asked, NO_BUILD_WAIT] : asked;
  await withServer(
    c.latency,
    async (server) => {
      for (const j of jobs) {
        const wait = j.cacheBuildMs ?? 'd';
        const modes = j.warmup === 'none' ? [false] : [false, true];
        const rows = await runJob(
          ctx,
          server,
          {
            variant: 'sab',
            concurrency: c.concurrency,
            warmup: j.warmup,
            latency: c.latency,
            chat: preset,
            ...(j.cacheBuildMs !== undefined ? { cacheBuildMs: j.cacheBuildMs } : {}),
            scenarios: modes.flatMap((parentWarm) =>
              c.chat.ns.map((n) => ({
                prefixBytes: c.prefixBytes,
                n,
                ...(parentWarm ? { parentWarm } : {}),
                // What tells the runs apart comes first: it must fall inside the first cache block (makeChatSession).
                salt: `n${n}-${parentWarm ? 'parent' : j.warmup}-${wait}-r${rep}-${preset}`,
              })),
            ),
          },
          { section: 'cache' },
          rep,
          false, // cache figures do not need a process per scenario
        );
        ctx.results.cache.push(...rows.map((r) => ({ ...r, mode: r.warmup })));
      }
    },
    preset,
  );
}

async function sectionMemory(ctx: Runner): Promise<void> {
  const { cfg } = ctx;
  const m = cfg.memory;
  await withServer(SWEEP_LATENCY, async (server) => {
    log(
      `  memory: sab+explicit, ${m.nBig} forks over ${sizeLabel(m.smallPrefix)}, ${m.nSmall} and ${m.nBig} over ${sizeLabel(m.bigPrefix)}`,
    );
    const rows = await runJob(
      ctx,
      server,
      {
        variant: 'sab+explicit',
        concurrency: m.concurrency,
        warmup: 'auto',
        latency: SWEEP_LATENCY,
        scenarios: [
          // The small prefix's row is context (what the forks alone cost), not the headline: the full run only.
          ...(cfg.mode === 'full' ? [{ prefixBytes: m.smallPrefix, n: m.nBig }] : []),
          { prefixBytes: m.bigPrefix, n: m.nSmall },
          { prefixBytes: m.bigPrefix, n: m.nBig },
        ],
      },
      { section: 'memory' },
      1,
      true, // always a process per scenario: memory figures must not inherit another scenario's heap
    );
    ctx.results.memory.push(...rows);
  });
}

/** Memory per fork with results retained and streamed: one child process each, on one zero-latency server. */
async function sectionRetention(ctx: Runner): Promise<void> {
  const { n } = ctx.cfg.retention;
  await withServer('zero', async (server) => {
    for (const retain of [true, false]) {
      log(`  retention: ${n} one-call forks, results ${retain ? 'retained' : 'streamed'}`);
      const result = await runScriptChild<RetentionJob, RetentionResult>('retention.ts', { url: server.url, n, retain }, 120_000 + n * 20);
      log(
        `    heap +${(result.heapAfterMiB - result.heapBeforeMiB).toFixed(1)} MiB (${result.heapMiBPer1000.toFixed(3)} MiB per 1,000 forks), peak RSS ${result.peakRssMiB.toFixed(0)} MiB`,
      );
      ctx.results.retention.push(result);
    }
  });
}

/**
 * Memory per task of a streamed task file: the reader, a run on a stand-in pool, and the whole file
 * as an array, each in a process of its own; the streamed ones also at half the lines, so the
 * per-task slope shows apart from what is paid once.
 */
async function sectionTasks(ctx: Runner): Promise<void> {
  const { lines } = ctx.cfg.tasks;
  // --quick: the headline alone (a streamed run, at two sizes for the per-line slope); the reader alone and the array in the full run.
  const modes: readonly TaskStreamMode[] = ctx.cfg.mode === 'quick' ? ['run'] : ['reader', 'run'];
  const jobs: TaskStreamJob[] = [
    ...modes.flatMap((mode) => [
      { mode, lines: lines / 2 },
      { mode, lines },
    ]),
    ...(ctx.cfg.mode === 'quick' ? [] : [{ mode: 'array' as const, lines }]),
  ];
  for (const job of jobs) {
    log(`  tasks: ${job.lines} lines, ${job.mode}`);
    const result = await runScriptChild<TaskStreamJob, TaskStreamResult>('task-stream.ts', job, 120_000 + job.lines);
    log(
      `    ${result.bytesPerTask.toFixed(1)} bytes per task (heap +${(result.heapAtEndMiB - result.heapBeforeMiB).toFixed(1)} MiB), ${result.tasksPerSecond.toFixed(0)} tasks/s, peak RSS ${result.peakRssMiB.toFixed(0)} MiB`,
    );
    ctx.results.tasks ??= [];
    ctx.results.tasks.push(result);
  }
}

/**
 * Each client in a process of its own, one after the other, against one sink process; then, for the
 * throughput rows, node:http and forkpool again with more calls per run (the full run).
 */
async function sectionFloor(ctx: Runner): Promise<void> {
  const { throughput, clients, ...f } = ctx.cfg.floor;
  const jobs: Omit<FloorJob, 'url' | 'threads'>[] = [
    ...clients.map((client) => ({ ...f, client, purpose: 'cpu' as const })),
    ...(throughput === null
      ? []
      : (['node-http', 'forkpool'] as const).map((client) => ({ ...f, ...throughput, client, purpose: 'throughput' as const }))),
  ];
  await withSink(async (sink) => {
    for (const j of jobs) {
      log(`  floor (${j.purpose}): ${j.client}, ${j.calls} calls (${j.inFlight} in flight) × ${j.runs} runs per size`);
      const job: FloorJob = { ...j, url: sink.url, threads: ctx.cfg.threads };
      // Generous: only a hung client is killed (8 MiB through the SDK takes ~120 ms of CPU a call on this machine).
      const boundMs =
        120_000 + j.jitWarmupCalls * 50 + j.sizes.reduce((a, size) => a + (j.runs * j.calls + j.warmupCalls) * (50 + size / 10_000), 0);
      const t0 = performance.now();
      let rows: FloorResult[];
      try {
        rows = await runScriptChild<FloorJob, FloorResult[]>('floor.ts', job, boundMs);
      } catch (err) {
        // One client's failure (its stderr says why) leaves the others' figures.
        const message = `${j.client} (${j.purpose}): ${err instanceof Error ? err.message : String(err)}`;
        ctx.results.errors.push({ section: 'floor', message });
        log(`    ${message}`);
        continue;
      }
      for (const r of rows) {
        const per = (pick: (run: FloorResult['runs'][number]) => number): string => median(r.runs.map(pick)).toFixed(2);
        log(
          `    ${j.client.padEnd(13)} ${sizeLabel(r.prefixBytes).padStart(7)}  client CPU ${per((x) => x.cpuMs / r.calls).padStart(7)} ms/call  ` +
            `sink ${per((x) => x.sinkCpuMs / r.calls).padStart(6)} ms/call  ${per((x) => (r.calls * 1000) / x.wallMs).padStart(8)} calls/s`,
        );
      }
      log(`    (${((performance.now() - t0) / 1000).toFixed(1)} s, the process's start-up included)`);
      ctx.results.floor ??= [];
      ctx.results.floor.push(...rows);
    }
  });
}

/**
 * Per row and run, the SDK's process then forkpool's (alternating, so that both meet the same load),
 * each against one sink process; then forkpool's one-fork runs. Prints the table with the targets.
 */
async function sectionFanout(ctx: Runner): Promise<void> {
  const { rows, runs, inFlight, oneFork, warmCodeCalls } = ctx.cfg.fanout;
  const jobs: Omit<FanoutCpuJob, 'url'>[] = [];
  for (let run = 0; run < runs; run++)
    for (const row of rows)
      for (const client of ['sdk', 'forkpool'] as const)
        jobs.push({ ...row, client, inFlight, threads: ctx.cfg.threads, warmCodeCalls: row.warm ? warmCodeCalls : 0, run });
  if (oneFork)
    for (let run = 0; run < runs; run++)
      jobs.push({
        client: 'forkpool',
        prefixBytes: rows[0]?.prefixBytes ?? 16 * KIB,
        calls: 1,
        warm: false,
        warmCodeCalls: 0,
        inFlight,
        threads: ctx.cfg.threads,
        run,
      });
  const out: FanoutCpuResult[] = [];
  await withSink(async (sink) => {
    for (const j of jobs) {
      // Generous: only a hung client is killed.
      const boundMs = 60_000 + (j.calls * (j.warm ? 2 : 1) + j.warmCodeCalls) * (2 + j.prefixBytes / 20_000);
      try {
        const r = await runScriptChild<FanoutCpuJob, FanoutCpuResult>('fanout-cpu.ts', { ...j, url: sink.url }, boundMs);
        const per = (f: FanoutCpuResult['fresh'] | undefined): string => (f ? (f.cpuMs / r.calls).toFixed(2) : '–');
        log(
          `  ${j.client.padEnd(8)} ${sizeLabel(j.prefixBytes).padStart(7)} × ${j.calls}: fresh ${per(r.fresh)} ms/call, warm ${per(r.warm)}, warm code ${per(r.warmCode)}`,
        );
        out.push(r);
      } catch (err) {
        const message = `${j.client} ${sizeLabel(j.prefixBytes)} × ${j.calls}: ${err instanceof Error ? err.message : String(err)}`;
        ctx.results.errors.push({ section: 'fanout', message });
        log(`    ${message}`);
      }
    }
  });
  ctx.results.fanout ??= [];
  ctx.results.fanout.push(...out);
  for (const line of fanoutTable(out)) log(`  ${line}`);
}

/**
 * The scaling curve: one point per job (a process and a pool of its own), each axis moved away from
 * the base point alone; the server process's CPU over each job is kept beside the client's, since
 * both share the machine's cores.
 */
async function sectionScaling(ctx: Runner): Promise<void> {
  const s = ctx.cfg.scaling;
  const { base } = s;
  const points: ScalingPoint[] = [
    ...s.forks.map((n) => ({
      axis: 'forks' as const,
      latency: 'zero' as const,
      threads: base.threads,
      concurrency: base.concurrency,
      scenario: { prefixBytes: base.prefixBytes, n },
    })),
    ...s.threads.map((threads) => ({
      axis: 'threads' as const,
      latency: 'zero' as const,
      threads,
      concurrency: base.concurrency,
      scenario: { prefixBytes: base.prefixBytes, n: base.n },
    })),
    ...s.prefixes.map((prefixBytes) => ({
      axis: 'prefix' as const,
      latency: 'zero' as const,
      threads: base.threads,
      concurrency: base.concurrency,
      scenario: { prefixBytes, n: s.prefixN },
    })),
    ...s.concurrency.map((concurrency) => ({
      axis: 'concurrency' as const,
      latency: 'sweep' as const,
      threads: base.threads,
      concurrency,
      scenario: { prefixBytes: base.prefixBytes, n: s.concurrencyWaves * concurrency },
    })),
  ];
  ctx.results.scaling ??= [];
  const rows = ctx.results.scaling;
  const ran = new Map<string, ScalingRow[]>();
  // A server per axis: what one axis leaves in the server's caches and heap (100,000 forks'
  // entries) made the next axis's server CPU up to 3× higher. Not one per point: a new server's
  // first thousands of requests cost it more (JIT), which would show at every small point.
  for (const axis of ['forks', 'threads', 'prefix', 'concurrency'] as const) {
    const onAxis = points.filter((p) => p.axis === axis);
    if (onAxis.length === 0) continue;
    await withServer(onAxis[0]?.latency === 'sweep' ? SWEEP_LATENCY : 'zero', async (server) => {
      for (const size of new Set(onAxis.map((p) => p.scenario.prefixBytes))) await primeCache(server.url, freezePrefix(makeSession(size)));
      for (let rep = 1; rep <= s.repeats; rep++) {
        for (const p of onAxis.filter((q) => rep === 1 || q.scenario.n < 10_000)) {
          // The base point, measured on an axis before, counts again on this one.
          const key = JSON.stringify([p.latency, p.threads, p.concurrency, p.scenario, rep]);
          const again = ran.get(key);
          if (again === undefined) ran.set(key, await scalingPoint(ctx, server, p, rep));
          rows.push(...(ran.get(key) ?? []).map((r) => ({ ...r, axis: p.axis })));
        }
      }
    });
  }
}

interface ScalingPoint {
  axis: ScalingAxis;
  latency: 'zero' | 'sweep';
  threads: number;
  concurrency: number;
  scenario: ScenarioSpec;
}

/** One point: a job of its own (a process and a pool), the server's CPU over its fan-out alone. */
async function scalingPoint(ctx: Runner, server: ServerProcess, p: ScalingPoint, rep: number): Promise<ScalingRow[]> {
  const latency = p.latency === 'zero' ? 'zero' : SWEEP_LATENCY;
  log(
    `  scaling ${p.axis}: N=${p.scenario.n}, ${p.threads} threads, concurrency ${p.concurrency}, ${sizeLabel(p.scenario.prefixBytes)}, repeat ${rep}/${ctx.cfg.scaling.repeats}`,
  );
  const spec: JobSpec = {
    variant: 'sab',
    threads: p.threads,
    concurrency: p.concurrency,
    warmup: 'none',
    url: server.url,
    latency,
    timeoutMs: ctx.cfg.forkTimeoutMs,
    scenarios: [p.scenario],
    askBeforeFanOut: true,
  };
  // The server's CPU from the fan-out's start (after the job's warm-up) to the job's end.
  let atFanOut = Number.NaN;
  const got = await runJobChild(spec, jobBoundMs(ctx.cfg, spec.scenarios), async () => {
    atFanOut = (await server.stats()).cpuMs;
  });
  const serverCpuMs = (await server.stats()).cpuMs - atFanOut;
  return got.map((r): ScalingRow => {
    const row: ScalingRow = { ...r, section: 'scaling', rep, axis: p.axis, threads: p.threads, serverCpuPerForkMs: serverCpuMs / r.n };
    log(
      `    ${r.forksPerSecond.toFixed(1).padStart(7)} forks/s  makespan ${r.makespanMs.toFixed(0).padStart(6)} ms  client CPU ${r.processCpuPerForkMs.toFixed(2)} ms/fork  ` +
        `server CPU ${row.serverCpuPerForkMs.toFixed(2)} ms/fork  main busy ${(r.main.utilization * 100).toFixed(0)}%${r.failed > 0 ? `  FAILED ${r.failed}: ${r.failures[0]}` : ''}`,
    );
    return row;
  });
}

/**
 * The live page and the HTML report with many forks (issue 28), in Chromium, in a process of its
 * own (bench/ui.ts): synthetic events, so that the page's cost shows apart from the engine's.
 */
async function sectionUi(ctx: Runner): Promise<void> {
  const u = ctx.cfg.ui;
  log(`  ui: ${u.forks} forks' synthetic events over ${u.feedMs / 1000} s to the live page, and their HTML report, in Chromium`);
  // Generous: only a hung browser is killed (each wait in bench/ui.ts is bounded at 60 s).
  const r = await runScriptChild<UiJob, UiResult>('ui.ts', u, 180_000 + 2 * u.feedMs + 2 * u.renderRuns * 60_000);
  const first = (opens: readonly UiOpen[]): string => median(opens.map((o) => o.firstRenderMs ?? Number.NaN)).toFixed(0);
  const q = (x: { p50: number; p99: number } | null): string =>
    x ? `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms` : 'not measured';
  log(
    `    first render: report ${first(r.report.opens)} ms, live page (queued) ${first(r.liveQueued)} ms, live page (ended) ${first(r.liveEnded ? [r.liveEnded] : [])} ms`,
  );
  log(
    `    while the forks progress: event delay ${q(r.delay)}; interval lateness ${q(r.interval)}; ${r.longTasks.count} long tasks (${r.longTasks.totalMs.toFixed(0)} ms); ` +
      `search → frame ${q(r.search)}; heap ${r.end.heapUsedMiB.toFixed(1)} MiB (${r.end.heapAfterGcMiB.toFixed(1)} after GC)`,
  );
  ctx.results.ui = r;
}

/**
 * Cold start (bench/cold-start.ts): fresh processes, one after the other, each importing the package,
 * creating an engine and getting one fork's answer, beside the in-process SDK's import and call.
 */
async function sectionCold(ctx: Runner): Promise<void> {
  const { runs, kinds } = ctx.cfg.cold;
  log(`  cold: ${kinds.join(', ')}, ${runs} fresh processes each, zero latency`);
  const r = await withServer('zero', (server) => runColdStart(server.url, { runs, kinds }));
  for (const line of coldStartLines(r).slice(1)) log(`  ${line}`);
  ctx.results.cold = r;
}

/** One variant of a section: a bench/ script run in a process of its own against `server`. */
interface VariantProcess<J> {
  section: Section;
  variant: string;
  script: string;
  job: J;
  boundMs: number;
  /** Measured runs per row (the server CPU entry's scenario count). */
  runs: number;
  /** Answers the script's askRunner(). */
  onAsk?: () => Promise<unknown>;
}

/**
 * Runs one variant's process and keeps the server's CPU over it beside the figures; logs each row
 * (`logRow`) and how long the process took. A failure (its stderr says why) goes into the results
 * and leaves the other variants' figures: it yields no rows.
 */
async function runVariantProcess<J, R>(ctx: Runner, server: ServerProcess, v: VariantProcess<J>, logRow: (row: R) => void): Promise<R[]> {
  const before = await server.stats();
  const t0 = performance.now();
  let rows: R[];
  try {
    rows = await runScriptChild<J, R[]>(v.script, v.job, v.boundMs, v.onAsk);
  } catch (err) {
    const message = `${v.variant}: ${err instanceof Error ? err.message : String(err)}`;
    ctx.results.errors.push({ section: v.section, message });
    log(`    ${message}`);
    return [];
  }
  const after = await server.stats();
  ctx.results.serverCpu.push({
    section: v.section,
    variant: v.variant,
    rep: 1,
    scenarios: rows.length * v.runs,
    cpuMs: after.cpuMs - before.cpuMs,
  });
  for (const row of rows) logRow(row);
  log(`    (${((performance.now() - t0) / 1000).toFixed(1)} s, the process's start-up included)`);
  return rows;
}

/**
 * Each client in a process of its own, one after the other, against one local server process (Chat
 * Completions, the openai preset); the server's CPU over each client's process is kept beside it.
 */
async function sectionPeers(ctx: Runner): Promise<void> {
  const { clients, latency, ...p } = ctx.cfg.peers;
  // Generous: only a hung client is killed (a cold 1 MiB prompt prefills for a minute at realistic latency).
  const prefill = LATENCY_PRESETS[latency].prefillTokensPerSecond;
  const boundMs = 120_000 + p.runs * p.sizes.reduce((a, size) => a + 60_000 + (3_000 * size) / 4 / prefill, 0);
  // The engine's cache rules for this provider (minimum, block), for the theoretical maximum of every client.
  const { minCacheTokens, cacheBlockTokens } = planOf(
    resolveOptions({ provider: chatProvider(DEAD_URL, 'openai') }),
    makeChatSession(KIB, 'rules'),
    {
      cacheKey: 'peers',
      role: 'forks',
      parentWarm: false,
    },
  ).rules;
  const rules = { minCacheTokens, cacheBlockTokens };
  await withServer(
    latency,
    async (server) => {
      for (const client of clients) {
        log(`  peers: ${client}, ${p.n} one-call forks (${p.concurrency} in flight) × ${p.runs} runs per size, ${latency} latency`);
        const job: PeersJob = { ...p, client, url: server.url, threads: ctx.cfg.threads, timeoutMs: ctx.cfg.forkTimeoutMs, rules };
        const rows = await runVariantProcess<PeersJob, PeersResult>(
          ctx,
          server,
          { section: 'peers', variant: client, script: 'peers.ts', job, boundMs, runs: p.runs },
          (r) => {
            for (const [i, run] of r.runs.entries()) {
              const loop = run.loop ? `  loop p99 ${run.loop.p99.toFixed(1)} ms` : '';
              log(
                `    ${client.padEnd(13)} ${sizeLabel(r.prefixBytes).padStart(7)} run ${i + 1}  makespan ${run.wallMs.toFixed(0).padStart(6)} ms  ` +
                  `CPU ${(run.cpuMs / r.n).toFixed(2).padStart(7)} ms/fork  cached ${(run.cachedTokens / run.theoreticalTokens).toFixed(3)} of max${loop}`,
              );
            }
          },
        );
        ctx.results.peers ??= [];
        ctx.results.peers.push(...rows);
      }
    },
    'openai',
  );
}

/**
 * One agent's fan-out by hand and through forkTool, on the AI SDK and on the OpenAI Agents SDK: each variant in a process of its own, one after
 * the other, against one local server process (Chat Completions, the openai preset); the server's
 * CPU over each variant's process is kept beside it.
 */
async function sectionAiSdk(ctx: Runner): Promise<void> {
  const { latencies, variants, ...a } = ctx.cfg.aiSdk;
  // Generous: only a hung agent is killed (at realistic latency the agent's step of 256 tool calls decodes for ~60 s, and its 256 forks through forkTool take ~10 s; 3 min a variant in all on 2026-12-04). 4 variants: about twice the time of the AI SDK's two alone.
  const boundMs = 120_000 + a.runs * a.ns.reduce((sum, n) => sum + 30_000 + n * 500, 0);
  for (const latency of latencies) {
    await withServer(
      latency,
      async (server) => {
        for (const variant of variants) {
          log(
            `  ai-sdk: ${variant}, an agent forking ${a.ns.join(', ')} times in one step × ${a.runs} runs, ${sizeLabel(a.prefixBytes)} system prompt, ${latency} latency`,
          );
          const job: AiSdkJob = { ...a, variant, url: server.url, threads: ctx.cfg.threads, timeoutMs: ctx.cfg.forkTimeoutMs };
          const rows = await runVariantProcess<AiSdkJob, AiSdkResult>(
            ctx,
            server,
            { section: 'ai-sdk', variant, script: 'ai-sdk.ts', job, boundMs, runs: a.runs },
            (r) => {
              if (r.n === a.ns[0])
                log(`    ${variant.padEnd(9)} first step (a fresh process's first agent run) ${r.firstRunMs.toFixed(0)} ms`);
              for (const [i, run] of r.runs.entries()) {
                const loop = run.loop ? `  loop p99 ${run.loop.p99.toFixed(1)} ms` : '';
                log(
                  `    ${variant.padEnd(9)} N=${String(r.n).padEnd(4)} run ${i + 1}  makespan ${run.wallMs.toFixed(0).padStart(6)} ms  forks ${run.forksMs.toFixed(0).padStart(6)} ms  ` +
                    `CPU ${(run.cpuMs / r.n).toFixed(2).padStart(6)} ms/fork  ${run.promptTokensPerFork.toFixed(0)} prompt tokens/fork, cached ${(run.cachedTokens / run.promptTokens).toFixed(3)}${loop}`,
                );
              }
            },
          );
          ctx.results.aiSdk ??= [];
          ctx.results.aiSdk.push(...rows.map((r) => ({ ...r, latency })));
        }
      },
      'openai',
    );
  }
}

/**
 * Forks of one Responses API session two ways (issue 30): each way in a process of its own, one
 * after the other, against one local server process (the openai preset) that counts the request
 * bytes it reads; each way's process asks for the count around every fan-out.
 */
async function sectionResponses(ctx: Runner): Promise<void> {
  const settings = RESPONSES_SETTINGS[ctx.cfg.mode];
  const { latency } = settings;
  // Generous: only a hung way is killed (every run's parent prefills its session cold, ~4 tokens a byte).
  const prefill = LATENCY_PRESETS[latency].prefillTokensPerSecond;
  const boundMs =
    120_000 + settings.runs * settings.ns.length * settings.sizes.reduce((a, size) => a + 60_000 + (2_000 * size) / 4 / prefill, 0);
  await withServer(
    latency,
    async (server) => {
      const counters = async (): Promise<ServerCounters> => {
        const { requestBytes, metrics } = await server.stats();
        return {
          requestBytes: requestBytes ?? Number.NaN,
          requests: 'requestsTotal' in metrics ? metrics.requestsTotal : metrics.requests,
        };
      };
      for (const way of RESPONSES_WAYS) {
        log(
          `  responses: ${way}, ${settings.ns.join(', ')} forks × ${settings.runs} runs per size (${settings.sizes.map(sizeLabel).join(', ')}), ${latency} latency`,
        );
        const job: ResponsesJob = { ...settings, way, url: server.url, threads: ctx.cfg.threads, timeoutMs: ctx.cfg.forkTimeoutMs };
        const rows = await runVariantProcess<ResponsesJob, ResponsesResult>(
          ctx,
          server,
          { section: 'responses', variant: way, script: 'responses.ts', job, boundMs, runs: settings.runs, onAsk: counters },
          (r) => {
            for (const [i, run] of r.runs.entries()) {
              const loop = run.loop ? `  loop p99 ${run.loop.p99.toFixed(1)} ms` : '';
              log(
                `    ${way.padEnd(8)} ${sizeLabel(r.prefixBytes).padStart(7)} N=${String(r.n).padEnd(4)} run ${i + 1}  makespan ${run.wallMs.toFixed(0).padStart(6)} ms  ` +
                  `${(run.requestBytes / r.n).toFixed(0).padStart(8)} B/fork  CPU ${(run.cpuMs / r.n).toFixed(2).padStart(6)} ms/fork  ` +
                  `first call cached ${(run.firstCachedTokens / run.firstPromptTokens).toFixed(3)}${loop}`,
              );
            }
          },
        );
        ctx.results.responses ??= [];
        ctx.results.responses.push(...rows);
      }
    },
    'openai',
    true, // the server counts request bytes
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
      'no-chart': { type: 'boolean', default: false },
      report: { type: 'string' },
      against: { type: 'string' },
      'keep-base': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      `Usage: forkpool bench [--quick] [--only ${SECTIONS.join(',')}] [--out DIR] [--no-chart] [--report FILE.json]\n` +
        '       forkpool bench --against COMMIT [--quick] [--keep-base] [--out DIR]\n' +
        "  --quick          each section's headline figures once, on few forks (within 90 s on 2 cores); without it, the full run (30–40 minutes, about 13 more for peers, 6 for ai-sdk, 6 for responses and 10 for the scaling curve)\n" +
        '  --only LIST      run only these sections\n' +
        '  --out DIR        where results go (default bench/results)\n' +
        '  --no-chart       leave bench/results/chart.svg and scaling.svg as they are (the .html has them inline all the same)\n' +
        '  --report FILE    no run: render FILE.md, FILE.html and the charts again from a results file\n' +
        "  --against COMMIT build COMMIT beside this checkout and compare its dispatch, floor, memory and many-fork figures with this build's,\n" +
        '                   3 runs each, alternating (bench/compare.ts; --quick: a few minutes); exit 1 when a figure is worse\n' +
        "  --keep-base      leave the base's worktree and build in the temp directory for the next comparison\n" +
        `${EXIT_CODES_HELP}\nFor bench, 1 means a section failed (its error is in the results).\n`,
    );
    return 0;
  }
  if (values.against !== undefined) {
    if (values.only !== undefined || values.report !== undefined) {
      log('bench: --against runs its own sections (dispatch, floor, memory, retention, many forks): without --only or --report');
      return 2;
    }
    const { compareAgainst } = await import('./compare.js');
    try {
      return await compareAgainst({
        against: values.against,
        quick: values.quick,
        out: values.out ?? join(here, 'results'),
        keepBase: values['keep-base'],
      });
    } catch (err) {
      // The base could not be checked out or built (a section's failure is in the results instead).
      log(err instanceof Error ? err.message : String(err));
      return 2;
    }
  }
  if (values.report) {
    const saved = JSON.parse(readFileSync(values.report, 'utf8')) as BenchResults;
    saved.targets = evaluateTargets(saved);
    writeFileSync(values.report, `${JSON.stringify(saved, null, 2)}\n`);
    const md = renderMarkdown(saved);
    const charts = chartsOf(saved);
    const base = values.report.replace(/\.json$/, '');
    writeFileSync(`${base}.md`, md);
    writeFileSync(`${base}.html`, renderHtml(md, charts));
    if (!values['no-chart']) writeCharts(charts, values.out ?? join(here, 'results'));
    process.stdout.write(md);
    return 0;
  }
  const cfg = values.quick ? QUICK : FULL;
  const only = values.only
    ? (values.only.split(',').map((s) => s.trim()) as Section[])
    : SECTIONS.filter((s) => !(values.quick && FULL_RUN_ONLY.includes(s)));
  if (values.quick && values.only === undefined)
    log(`bench: --quick leaves out ${FULL_RUN_ONLY.join(' and ')} (the full run has them, or --only)`);
  const unknown = only.filter((s) => !SECTIONS.includes(s));
  if (unknown.length > 0) {
    log(`bench: unknown section(s) ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
    return 2;
  }
  const outDir = values.out ?? join(here, 'results');
  mkdirSync(outDir, { recursive: true });
  ensureBuilt(join(here, '..'), log);

  const started = new Date();
  // The machine may be shared: the 1-minute load average over the run goes into the results.
  const load = { start: loadavg()[0] ?? 0, max: loadavg()[0] ?? 0, end: 0 };
  const t0 = performance.now();
  const results: BenchResults = {
    meta: {
      date: started.toISOString(),
      mode: cfg.mode,
      sections: only,
      machine: machine(),
      node: process.version,
      commit: gitCommit(),
      config: cfg,
      sweepLatency: SWEEP_LATENCY,
      durationS: 0,
      loadAverage: load,
    },
    micro: undefined,
    dispatch: [],
    sweep: [],
    sweepPlainClient: [],
    throughput: [],
    cache: [],
    memory: [],
    retention: [],
    tasks: [],
    queue: null,
    floor: [],
    fanout: [],
    peers: [],
    aiSdk: [],
    responses: [],
    scaling: [],
    ui: null,
    cold: null,
    serverCpu: [],
    targets: [],
    errors: [],
  };
  const ctx: Runner = { cfg, results };
  const loadTimer = setInterval(() => (load.max = Math.max(load.max, loadavg()[0] ?? 0)), 5_000).unref();
  log(
    `forkpool bench (${cfg.mode}): ${results.meta.machine.cpus} × ${results.meta.machine.cpuModel}, ${results.meta.machine.memGiB} GiB, Node ${process.version}`,
  );

  const steps: Record<Section, () => Promise<void>> = {
    micro: async () => {
      const micro: MicroResult = await runMicro(cfg.micro.sizes, cfg.mode === 'quick', log);
      results.micro = micro;
    },
    dispatch: () => sectionDispatch(ctx),
    sweep: () => sectionSweep(ctx),
    throughput: () => sectionThroughput(ctx),
    cache: () => sectionCache(ctx),
    memory: () => sectionMemory(ctx),
    retention: () => sectionRetention(ctx),
    tasks: () => sectionTasks(ctx),
    queue: async () => {
      results.queue = await runQueueSection(cfg);
    },
    floor: () => sectionFloor(ctx),
    fanout: () => sectionFanout(ctx),
    peers: () => sectionPeers(ctx),
    'ai-sdk': () => sectionAiSdk(ctx),
    responses: () => sectionResponses(ctx),
    scaling: () => sectionScaling(ctx),
    ui: () => sectionUi(ctx),
    cold: () => sectionCold(ctx),
  };
  for (const section of SECTIONS) {
    if (!only.includes(section)) continue;
    const s0 = performance.now();
    log(`${section}…`);
    try {
      await steps[section]();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      results.errors.push({ section, message });
      log(`  ${section} failed: ${message}`);
    }
    log(`  ${section}: ${((performance.now() - s0) / 1000).toFixed(1)} s`);
  }
  results.meta.durationS = Math.round((performance.now() - t0) / 100) / 10;
  clearInterval(loadTimer);
  load.end = loadavg()[0] ?? 0;
  load.max = Math.max(load.max, load.end);
  results.targets = evaluateTargets(results);

  const stamp = started.toISOString().slice(0, 16).replace(':', '-');
  const base = join(outDir, `${stamp}-${cfg.mode}`);
  const markdown = renderMarkdown(results);
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  // The HTML carries the charts inline, also with --no-chart (which leaves the .svg files alone).
  const charts = chartsOf(results);
  writeFileSync(`${base}.html`, renderHtml(markdown, charts));
  const chartFiles = values['no-chart'] ? [] : writeCharts(charts, outDir);
  process.stdout.write(markdown);
  log(`\nwrote ${[`${base}.json`, `${base}.md`, `${base}.html`, ...chartFiles].join(', ')} (${results.meta.durationS} s)`);
  return results.errors.length > 0 ? 1 : 0;
}

/** The charts a run's results have figures for (the sweep's, the scaling curve's), each with the section it follows. */
function chartsOf(results: BenchResults): InlineChart[] {
  const charts: InlineChart[] = [];
  if (results.sweep.length > 0) charts.push({ name: 'chart.svg', svg: renderChart(results), section: /^Prefix size/ });
  if ((results.scaling ?? []).length > 0) charts.push({ name: 'scaling.svg', svg: renderScalingChart(results), section: /^Scaling curve/ });
  return charts;
}

/** Writes the charts as files in `outDir`; returns their paths. */
function writeCharts(charts: readonly InlineChart[], outDir: string): string[] {
  return charts.map(({ name, svg }) => {
    const path = join(outDir, name);
    writeFileSync(path, svg);
    return path;
  });
}

/** Interrupted: end what this run started (its own children and servers, by handle), then exit. */
function onSignal(signal: NodeJS.Signals): void {
  log(`\nbench: ${signal}, stopping`);
  for (const child of runningJobs) child.kill('SIGKILL');
  void Promise.all([...openServers].map((s) => s.close())).finally(() => process.exit(130));
}
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

process.exitCode = await main();
