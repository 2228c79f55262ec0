/**
 * What the four variants share: the shape of a runner, and (for `inprocess` and `clone`, which
 * have no engine) the engine's own scheduler: at most `concurrency` forks in flight, and with
 * warm-up 'auto' every fork but the first waits for the first fork's first response.
 */
import { performance } from 'node:perf_hooks';
import { AGENT_TOOL_NAME } from '../../dist/src/fork/index.js';
import { createCacheAccounting } from '../../dist/src/engine/cache-accounting.js';
import { ENGINE_DEFAULTS } from '../../dist/src/engine/options.js';
import { GEMINI_MIN_CACHE_TOKENS } from '../../dist/src/model/providers/gemini.js';
import type { ForkResult } from '../../dist/src/result/fork-result.js';
import { createScheduler } from '../../dist/src/engine/scheduler.js';
import type { RunReport } from '../../dist/src/engine/report.js';
import type { UsagePreset } from '../../dist/src/local-server/index.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';
import type { ForkTask } from '../../dist/src/session/schema.js';

export type VariantName = 'inprocess' | 'clone' | 'sab' | 'sab+explicit';

/** 'parent': the parent sent the prefix just before the fan-out (ForkEngine's `parentWarm`). */
export type BenchWarmup = 'auto' | 'none' | 'parent';

export interface RunnerOptions {
  url: string;
  threads: number;
  concurrency: number;
  warmup: BenchWarmup;
  /** Per-fork bound: a stuck fork fails instead of hanging the benchmark. */
  timeoutMs: number;
  /** Attempts per model call (default: the engine's); 1 makes forks against a dead port end at once. */
  maxAttempts?: number;
  /**
   * sab only: the forks speak Chat Completions to the server's `usage` preset through that
   * provider (bench/lib/chat.ts) instead of Gemini's API to the local provider.
   */
  chat?: UsagePreset;
  /** sab only: the engine's `cacheBuildMs` (default: the provider's). */
  cacheBuildMs?: number;
}

export interface FanOutHandle {
  results: Promise<ForkResult[]>;
  /** Wall time spent inside the synchronous dispatch of each fork, ms (one entry per fork). */
  dispatchMs: number[];
  /** The engine's own report (sab variants only). */
  report?: () => RunReport;
}

export interface Runner {
  fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[], options?: { parentWarm?: boolean }): FanOutHandle;
  close(): Promise<void>;
}

/**
 * Runs `start(i)` for every task under the engine's own scheduler (concurrency, warm-up). `start`
 * gets a callback to call when the fork's first model response begins.
 */
export function schedule(
  prefix: FrozenPrefix,
  tasks: readonly ForkTask[],
  options: { concurrency: number; warmup: BenchWarmup },
  start: (task: ForkTask, onFirstResponse: () => void) => Promise<ForkResult>,
): FanOutHandle {
  const results: ForkResult[] = new Array(tasks.length);
  const dispatchMs: number[] = [];
  const sent = new Array<boolean>(tasks.length).fill(false);
  let settled = 0;
  let finish!: (r: ForkResult[]) => void;
  const done = new Promise<ForkResult[]>((resolve) => (finish = resolve));
  if (tasks.length === 0) finish([]);
  // The engine's own accounting, so every variant's results carry the same shared-token figures.
  const accounting = createCacheAccounting(prefix, {
    history: 'inherit',
    spawnTools: [AGENT_TOOL_NAME],
    plan: {
      rules: { minCacheTokens: GEMINI_MIN_CACHE_TOKENS, cacheBlockTokens: 1, toMarkerOnly: false },
      request: { mechanism: 'none' },
      shape: 'gemini',
    },
  });
  let next = 0;
  const scheduler = createScheduler({
    concurrency: options.concurrency,
    warmup: options.warmup === 'auto',
    staggerCapMs: ENGINE_DEFAULTS.staggerCapMs,
    next() {
      while (next < tasks.length && sent[next]) next++;
      return next < tasks.length ? next : undefined;
    },
    isQueued: (index) => !sent[index],
    dispatch(index, order) {
      const first = order === 0;
      sent[index] = true;
      const task = tasks[index] as ForkTask;
      accounting.dispatched(task, { first, explicit: false, parentWarm: options.warmup === 'parent' });
      const t0 = performance.now();
      const running = start(task, () => {
        accounting.responded(task);
        scheduler.responded(order);
      });
      dispatchMs.push(performance.now() - t0);
      void running.then((result) => {
        results[index] = accounting.settle(task, result).result;
        if (++settled === tasks.length) finish(results);
        scheduler.finished(order);
      });
    },
  });
  scheduler.start(0);
  return { results: done, dispatchMs };
}
