/**
 * Fan-out scenarios in a process of their own (so memory, heap and event loop are the
 * scenario's). Started by bench/run.ts with `--import tsx --expose-gc`; gets a JobSpec over IPC
 * (one runner: variant, pool, concurrency, server; one or more scenarios run in order) and
 * answers with one ScenarioResult per scenario. By hand:
 *   npx tsx --expose-gc bench/scenario.ts '{"variant":"sab","url":"http://…",…,"scenarios":[{"prefixBytes":16384,"n":10}]}'
 */
import { join } from 'node:path';
import { LATENCY_PRESETS, type LatencyModel, type LatencyPreset, type UsagePreset } from '../dist/src/local-server/index.js';
import { decodeMs, prefillMs } from '../dist/src/local-server/core/latency.js';
import { planOf, resolveOptions } from '../dist/src/engine/options.js';
import type { CachePlan } from '../dist/src/model/plan.js';
import type { ForkResult } from '../dist/src/result/fork-result.js';
import { callMaxima, type FirstCallRole } from '../dist/src/engine/cache-figures.js';
import type { ProviderConfig } from '../dist/src/model/types.js';
import { freezePrefix, type FrozenPrefix } from '../dist/src/prefix/index.js';
import { chatProvider } from './lib/chat.js';
import { benchTool, makeChatSession, makeSession, makeTasks } from './lib/session.js';
import { startWindowProfile } from './lib/inspector-profile.js';
import { calibrateProbe, median, probeMainThread, type MainThreadFigures } from './lib/measure.js';
import type { BenchWarmup, Runner, RunnerOptions, VariantName } from './variants/common.js';

export interface ScenarioSpec {
  prefixBytes: number;
  n: number;
  /**
   * Added to the system instruction (and, in Chat Completions' shape, the tool's description): a
   * prefix no earlier request used (a cold cache for it).
   */
  salt?: string;
  /**
   * sab with warm-up 'auto' only: this scenario is parent-warm, as a job with warm-up 'parent' (the
   * engine is the same, so one job can hold both).
   */
  parentWarm?: boolean;
}

export interface JobSpec {
  variant: VariantName;
  concurrency: number;
  threads: number;
  warmup: BenchWarmup;
  url: string;
  /** The server's latency model, to compute the ideal makespan from the calls' token counts. */
  latency: LatencyPreset | LatencyModel;
  timeoutMs: number;
  scenarios: ScenarioSpec[];
  /** When set, a CPU profile of the main thread over each fan-out is written there. */
  profileDir?: string;
  /**
   * sab only: OpenAI Chat Completions sessions, sent through the provider that matches the server's
   * `usage` preset (bench/lib/chat.ts). Absent: Gemini sessions to the local provider.
   */
  chat?: UsagePreset;
  /** sab only: the engine's `cacheBuildMs` (absent: the provider's own). */
  cacheBuildMs?: number;
  /**
   * Dispatch only: for each scenario, `bursts` fan-outs of `n` forks dispatched in one burst
   * (concurrency ≥ n) against a dead port with one attempt per call, so forks end at once and
   * only the main thread's dispatch is measured, with many samples.
   */
  dispatchBursts?: number;
  /**
   * Before each fan-out (after the warm-up and the prefix's freeze) the child asks the runner and
   * waits for its go: the runner reads the server's CPU there, so a point's server CPU is its
   * fan-out's alone (bench/lib/child.ts, `onFanOut`).
   */
  askBeforeFanOut?: boolean;
}

export interface DispatchResult {
  variant: VariantName;
  prefixBytes: number;
  n: number;
  bursts: number;
  /** Per-fork synchronous dispatch, µs. */
  medianUs: number;
  p10Us: number;
  p90Us: number;
  samples: number;
}

export interface ScenarioResult {
  variant: VariantName;
  concurrency: number;
  warmup: BenchWarmup;
  /** The simulated OpenAI-compatible provider (Chat Completions sessions); absent: Gemini on the local provider. */
  provider?: UsagePreset;
  /** The engine's cache build wait, ms (DeepSeek's default 3000), for Chat Completions runs. */
  cacheBuildMs?: number;
  /** warm-up 'parent': the parent's own call (its whole conversation, cold), before the fan-out, ms. */
  parentCallMs?: number;
  n: number;
  prefixBytes: number;
  prefixTokens: number;
  completed: number;
  failed: number;
  failures: string[];
  makespanMs: number;
  forksPerSecond: number;
  /** Model time per fork from the latency model and the fork's own token counts (median over forks). */
  forkModelMs: number;
  waves: number;
  idealMs: number;
  /** makespan / ideal − 1 (null when the ideal is 0: zero latency). */
  overhead: number | null;
  main: MainThreadFigures;
  /** RSS after warm-up and GC, before the prefix was built (MiB). */
  rssBeforePrefixMiB: number;
  /**
   * Main-thread time per fork over the whole fan-out (ms): thread CPU (10 ms ticks) / N, and
   * event-loop busy time / N; both include the probe's own timers (see probeIdleUtilization).
   */
  mainCpuPerForkMs: number;
  mainBusyPerForkMs: number;
  /** CPU of the whole process (main thread + workers) per fork. */
  processCpuPerForkMs: number;
  dispatch: { forks: number; medianUs: number; meanUs: number; totalMs: number };
  /** cachedTokens and hitRate null: the provider does not report cached tokens. */
  usage: { promptTokens: number; cachedTokens: number | null; hitRate: number | null; modelCalls: number; toolCalls: number };
  /**
   * First calls only: cached tokens against the shared prefix (what prefix sharing is about), by
   * the provider's own minimum and block; misses = first calls with nothing cached (null: unknown).
   */
  firstCalls: { cachedTokens: number | null; theoreticalTokens: number; efficiency: number | null; misses: number | null };
  /** Forks whose worker decoded the prefix (sab: once per worker). */
  prefixDecodes: number;
  /** Event-loop utilization of this process's main thread idle with the probe running: the floor of `main.utilization`. */
  probeIdleUtilization: number;
  /** The engine's report figures (sab variants). */
  engine?: {
    hitRate: number | null;
    efficiency: number | null;
    theoreticalCachedTokens: number;
    cachedTokens: number | null;
    /** Tokens written into the provider's cache; null when the provider reported no writes. */
    cacheWriteTokens: number | null;
    /** Forks that completed on a cut or refused reply (the report's cutAnswers, summed). */
    cutAnswers: number;
    cacheEffective: string;
    note?: string;
  };
}

function resolveModel(latency: LatencyPreset | LatencyModel): LatencyModel {
  return typeof latency === 'string' ? LATENCY_PRESETS[latency] : latency;
}

function forkModelMs(result: ForkResult, model: LatencyModel): number {
  let ms = 0;
  for (const call of result.calls) {
    const cached = call.cachedTokens ?? 0;
    ms += prefillMs(model, call.promptTokens - cached, cached) + decodeMs(model, call.outputTokens);
  }
  return ms;
}

async function createRunner(job: JobSpec): Promise<Runner> {
  const options: RunnerOptions = {
    url: job.url,
    threads: job.threads,
    concurrency: job.concurrency,
    warmup: job.warmup,
    timeoutMs: job.timeoutMs,
    ...(job.dispatchBursts !== undefined ? { maxAttempts: 1 } : {}),
    ...(job.chat !== undefined ? { chat: job.chat } : {}),
    ...(job.cacheBuildMs !== undefined ? { cacheBuildMs: job.cacheBuildMs } : {}),
  };
  if (job.variant !== 'sab' && (job.chat !== undefined || job.cacheBuildMs !== undefined)) {
    throw new Error(`bench: chat sessions and cacheBuildMs are measured with sab only (got ${job.variant})`);
  }
  // Each variant's modules loaded alone: sab reaches the engine through few internal modules, so it
  // can also measure another build (bench/compare.ts), whose internals the other variants may not find.
  switch (job.variant) {
    case 'inprocess':
      return (await import('./variants/inprocess.js')).createInprocessRunner(options, [benchTool]);
    case 'clone':
      return (await import('./variants/clone.js')).createCloneRunner(options, [benchTool]);
    case 'sab':
      return (await import('./variants/sab.js')).createSabRunner({ ...options, cache: 'implicit' }, [benchTool]);
    case 'sab+explicit':
      return (await import('./variants/sab.js')).createSabRunner({ ...options, cache: 'explicit' }, [benchTool]);
  }
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Who the forks (and the parent) talk to: the local provider in Gemini's dialect, or a Chat Completions preset. */
function providerOf(job: JobSpec): ProviderConfig {
  return job.chat !== undefined ? chatProvider(job.url, job.chat) : { kind: 'local', baseUrl: job.url };
}

/** The cache rules the engine applies for this job's provider (minimum, block, build wait), as the provider's plan resolves them. */
function rulesOf(job: JobSpec, prefix: FrozenPrefix): CachePlan['rules'] & { cacheBuildMs: number } {
  const provider = job.chat !== undefined ? chatProvider(job.url, job.chat) : { kind: 'local' as const, baseUrl: job.url };
  const o = resolveOptions({ provider, ...(job.cacheBuildMs !== undefined ? { cacheBuildMs: job.cacheBuildMs } : {}) });
  const plan = planOf(o, prefix.session, { cacheKey: prefix.id, role: 'forks', parentWarm: false });
  return { ...plan.rules, cacheBuildMs: plan.readable.buildMs };
}

/** The job's parent session at about `bytes`, made cold by `salt`. */
function makePrefix(job: JobSpec, bytes: number, salt: string | undefined): FrozenPrefix {
  if (job.chat !== undefined) return freezePrefix(makeChatSession(bytes, salt ?? 'plain'));
  const session = makeSession(bytes);
  if (salt) {
    (session as { systemInstruction: { parts: { text: string }[] } }).systemInstruction.parts.push({ text: `Run ${salt}.` });
  }
  return freezePrefix(session);
}

/** Waits for the runner's go before a fan-out (JobSpec.askBeforeFanOut); a no-op without a runner. */
type BeforeFanOut = () => Promise<void>;

async function runOne(
  runner: Runner,
  job: JobSpec,
  spec: ScenarioSpec,
  index: number,
  probeIdleUtilization: number,
  beforeFanOut: BeforeFanOut,
): Promise<ScenarioResult> {
  gc();
  const rssBeforePrefixMiB = process.memoryUsage().rss / 1024 / 1024;
  if (spec.parentWarm && (job.variant !== 'sab' || job.warmup !== 'auto')) {
    throw new Error(`bench: a parent-warm scenario runs in a sab job with warm-up auto (got ${job.variant}, ${job.warmup})`);
  }
  const parentWarm = job.warmup === 'parent' || spec.parentWarm === true;
  const warmup: BenchWarmup = parentWarm ? 'parent' : job.warmup;
  const prefix = makePrefix(job, spec.prefixBytes, spec.salt);
  const rules = rulesOf(job, prefix);
  const tasks = makeTasks(spec.n, `s${index}f`);
  gc();

  // Parent-warm: the parent sends its conversation first (as any agent does before it forks).
  let parentCallMs: number | undefined;
  if (parentWarm) {
    const { sendAsParent } = await import('./lib/prime.js');
    const t0 = performance.now();
    await sendAsParent(providerOf(job), prefix);
    parentCallMs = performance.now() - t0;
  }
  await beforeFanOut();
  const profiler = job.profileDir ? await startWindowProfile() : undefined;
  const probe = await probeMainThread();
  const handle = runner.fanOut(prefix, tasks, { parentWarm });
  const results = await handle.results;
  const main = probe.stop();
  await profiler?.stop(join(job.profileDir as string, `main-${job.variant}-${spec.prefixBytes}-${spec.n}.cpuprofile`));

  const model = resolveModel(job.latency);
  const waves = Math.ceil(spec.n / job.concurrency);
  const completed = results.filter((r) => r.status === 'completed');
  const forkMs = completed.length > 0 ? median(completed.map((r) => forkModelMs(r, model))) : 0;
  const idealMs = waves * forkMs;
  const prompt = results.reduce((a, r) => a + r.usage.promptTokens, 0);
  // null: the provider does not report cached tokens (then neither hits nor misses are known).
  const unknown = results.some((r) => r.usage.cachedTokens === null);
  const cached = unknown ? null : results.reduce((a, r) => a + (r.usage.cachedTokens ?? 0), 0);
  // The fork dispatched first meets a cold cache, unless an explicit cache holds the prefix or the
  // parent has just sent it (then it can reuse what the parent sent); any other can reuse what its
  // siblings send. The engine's own maximum (cache-figures.ts).
  let firstCached = 0;
  let firstTheoretical = 0;
  let misses = 0;
  results.forEach((r, i) => {
    const first = r.calls[0];
    if (!first) return;
    firstCached += first.cachedTokens ?? 0;
    if (!first.cachedTokens) misses++;
    const role: FirstCallRole = i > 0 ? 'sibling' : parentWarm ? 'parent' : 'cold';
    firstTheoretical += callMaxima([first], role, rules)[0] ?? 0;
  });
  const d = handle.dispatchMs;
  const report = handle.report?.();
  return {
    variant: job.variant,
    concurrency: job.concurrency,
    warmup,
    // The wait the engine applied: none with warm-up none (nothing waits then).
    ...(job.chat !== undefined ? { provider: job.chat, cacheBuildMs: warmup === 'none' ? 0 : rules.cacheBuildMs } : {}),
    ...(parentCallMs !== undefined ? { parentCallMs } : {}),
    n: spec.n,
    prefixBytes: prefix.byteLength,
    prefixTokens: prefix.tokenEstimate,
    completed: completed.length,
    failed: results.length - completed.length,
    failures: results
      .filter((r) => r.status !== 'completed')
      .slice(0, 3)
      .map((r) => {
        const error = (r as { error?: { kind: string; message: string } }).error;
        return `${r.id}: ${error?.kind ?? r.status} ${error?.message ?? ''}`;
      }),
    makespanMs: main.wallMs,
    forksPerSecond: results.length / (main.wallMs / 1000),
    forkModelMs: forkMs,
    waves,
    idealMs,
    overhead: idealMs > 0 ? main.wallMs / idealMs - 1 : null,
    main,
    rssBeforePrefixMiB,
    mainCpuPerForkMs: main.threadCpuMs / spec.n,
    mainBusyPerForkMs: main.busyMs / spec.n,
    processCpuPerForkMs: main.processCpuMs / spec.n,
    dispatch: {
      forks: d.length,
      medianUs: d.length ? median(d) * 1000 : NaN,
      meanUs: d.length ? (d.reduce((a, b) => a + b, 0) / d.length) * 1000 : NaN,
      totalMs: d.reduce((a, b) => a + b, 0),
    },
    usage: {
      promptTokens: prompt,
      cachedTokens: cached,
      hitRate: cached === null ? null : prompt > 0 ? cached / prompt : 0,
      modelCalls: results.reduce((a, r) => a + r.calls.length, 0),
      toolCalls: results.reduce((a, r) => a + r.toolCalls, 0),
    },
    firstCalls: {
      cachedTokens: unknown ? null : firstCached,
      theoreticalTokens: firstTheoretical,
      efficiency: !unknown && firstTheoretical > 0 ? firstCached / firstTheoretical : null,
      misses: unknown ? null : misses,
    },
    prefixDecodes: results.filter((r) => r.worker.decodedPrefix).length,
    probeIdleUtilization,
    ...(report
      ? {
          engine: {
            hitRate: report.hitRate,
            efficiency: report.efficiency,
            theoreticalCachedTokens: report.theoreticalCachedTokens,
            cachedTokens: report.cachedTokens,
            cacheWriteTokens: report.cacheWriteTokens ?? null,
            cutAnswers: report.cutAnswers.reduce((n, c) => n + c.forks, 0),
            cacheEffective: report.cache.effective,
            ...(report.cache.note ? { note: report.cache.note } : {}),
          },
        }
      : {}),
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

async function runDispatch(runner: Runner, job: JobSpec, onResult: (result: DispatchResult) => void): Promise<void> {
  const bursts = job.dispatchBursts ?? 1;
  // JIT warm-up of the dispatch path on a small prefix, not measured.
  for (let i = 0; i < 2; i++) await runner.fanOut(freezePrefix(makeSession(8 * 1024)), makeTasks(job.concurrency, `w${i}f`)).results;
  for (const [s, spec] of job.scenarios.entries()) {
    const prefix = freezePrefix(makeSession(spec.prefixBytes));
    const samples: number[] = [];
    for (let b = 0; b < bursts; b++) {
      gc();
      const handle = runner.fanOut(prefix, makeTasks(spec.n, `d${s}b${b}f`));
      await handle.results;
      samples.push(...handle.dispatchMs.map((ms) => ms * 1000));
    }
    const sorted = [...samples].sort((a, b) => a - b);
    onResult({
      variant: job.variant,
      prefixBytes: prefix.byteLength,
      n: spec.n,
      bursts,
      medianUs: quantile(sorted, 0.5),
      p10Us: quantile(sorted, 0.1),
      p90Us: quantile(sorted, 0.9),
      samples: sorted.length,
    });
  }
}

export async function runJob(
  job: JobSpec,
  onResult: (result: ScenarioResult | DispatchResult) => void,
  beforeFanOut: BeforeFanOut = async () => {},
): Promise<void> {
  const runner = await createRunner(job);
  try {
    if (job.dispatchBursts !== undefined) return await runDispatch(runner, job, onResult);
    // Warm-up on another (small) prefix: workers started, modules loaded, JIT warm; the measured
    // prefix stays new to the workers (sab decodes it inside the measurement).
    const warm = makePrefix(job, 8 * 1024, job.chat !== undefined ? 'warm-up' : undefined);
    const tasks = makeTasks(4 * job.threads, 'warm');
    // With a cache build wait (DeepSeek's 3 s), the siblings of one fan-out would wait for it: one fan-out per fork instead.
    const results =
      rulesOf(job, warm).cacheBuildMs > 0
        ? (await Promise.all(tasks.map((task) => runner.fanOut(warm, [task]).results))).flat()
        : await runner.fanOut(warm, tasks).results;
    const bad = results.find((r) => r.status !== 'completed');
    if (bad) throw new Error(`warm-up fork failed: ${JSON.stringify((bad as { error?: unknown }).error)}`);
    const idle = await calibrateProbe();
    for (const [i, spec] of job.scenarios.entries()) onResult(await runOne(runner, job, spec, i, idle, beforeFanOut));
  } finally {
    await runner.close();
  }
}

// As a child process: one job in (IPC or argv), results out, then exit.
const isMain = process.argv[1]?.endsWith('scenario.ts');
if (isMain) {
  const send = (message: unknown): void => {
    if (process.send) process.send(message);
    else console.log(JSON.stringify(message, null, 2));
  };
  let finished = false;
  const askRunner: BeforeFanOut = () =>
    new Promise((resolve) => {
      process.once('message', () => resolve());
      send({ type: 'fan-out' });
    });
  const go = async (job: JobSpec): Promise<void> => {
    try {
      await runJob(job, (result) => send({ type: 'result', result }), job.askBeforeFanOut && process.send ? askRunner : undefined);
      send({ type: 'done' });
    } catch (err) {
      send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exitCode = 1;
    }
    finished = true;
    if (process.connected) process.disconnect();
  };
  // The runner went away (interrupted): stop, do not run on unattended.
  process.on('disconnect', () => {
    if (!finished) process.exit(2);
  });
  const fromArgv = process.argv[2];
  if (fromArgv) void go(JSON.parse(fromArgv) as JobSpec);
  else process.once('message', (m: { type: string; job: JobSpec }) => void go(m.job));
}
