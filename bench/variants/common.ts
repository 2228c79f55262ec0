/**
 * What the four variants share: the shape of a runner, and (for `inprocess` and `clone`, which
 * have no engine) a scheduler with the same rules as FanOutRun: at most `concurrency` forks in
 * flight, and with warm-up 'auto' every fork but the first waits for the first fork's first
 * response (bounded by the stagger cap).
 */
import { performance } from 'node:perf_hooks';
import type { ForkResult } from '../../src/engine/protocol.js';
import type { RunReport } from '../../src/engine/report.js';
import type { FrozenPrefix } from '../../src/prefix/index.js';
import type { ForkTask } from '../../src/session/schema.js';

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

const STAGGER_CAP_MS = 5_000;

/**
 * Runs `start(i)` for every task with FanOutRun's dispatch rules. `start` gets a callback to call
 * when the fork's first model response begins (opens the warm-up gate).
 */
export function schedule(
  tasks: readonly ForkTask[],
  options: { concurrency: number; warmup: BenchWarmup },
  start: (task: ForkTask, onFirstResponse: () => void) => Promise<ForkResult>,
): FanOutHandle {
  const results: ForkResult[] = new Array(tasks.length);
  const dispatchMs: number[] = [];
  const queue = tasks.map((_, i) => i);
  let inFlight = 0;
  let dispatched = 0;
  let settled = 0;
  let siblingsReleased = options.warmup !== 'auto';
  let finish!: (r: ForkResult[]) => void;
  const done = new Promise<ForkResult[]>((resolve) => (finish = resolve));
  if (tasks.length === 0) finish([]);

  const releaseSiblings = (): void => {
    if (siblingsReleased) return;
    siblingsReleased = true;
    pump();
  };
  function pump(): void {
    while (queue.length > 0 && inFlight < options.concurrency && (siblingsReleased || dispatched === 0)) {
      const index = queue.shift() as number;
      const first = dispatched === 0;
      if (first && !siblingsReleased) setTimeout(releaseSiblings, STAGGER_CAP_MS).unref();
      dispatched++;
      inFlight++;
      const t0 = performance.now();
      const running = start(tasks[index] as ForkTask, () => {
        if (first) releaseSiblings();
      });
      dispatchMs.push(performance.now() - t0);
      void running.then((result) => {
        results[index] = result;
        inFlight--;
        settled++;
        if (first) releaseSiblings();
        if (settled === tasks.length) finish(results);
        else pump();
      });
    }
  }
  pump();
  return { results: done, dispatchMs };
}
