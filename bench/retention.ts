/**
 * What a run keeps in memory per fork, with results retained (the default) and streamed
 * (`retainResults: false`): N one-call forks on the local server, in a process of its own.
 * Heap after GC at the end (the run still referenced) against before the fan-out, per 1,000 forks;
 * peak RSS over the fan-out (the whole process: the main thread, the fork threads and native memory)
 * against RSS before it; forks per second. Run by `npm run bench` (section `retention`), or alone:
 *   node --import tsx --expose-gc bench/retention.ts '{"url":"http://127.0.0.1:PORT","n":20000,"retain":false}'
 */
import { ForkEngine } from '../dist/src/index.js';
import { runIfMain } from './lib/script.js';
import { makeSession } from './lib/session.js';

export interface RetentionJob {
  url: string;
  n: number;
  retain: boolean;
}

export interface RetentionResult {
  retain: boolean;
  n: number;
  completed: number;
  makespanMs: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
  /** Heap growth over the run, per 1,000 forks (after GC, the run still referenced). */
  heapMiBPer1000: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  /** Peak RSS over the fan-out minus RSS before it, per 1,000 forks. */
  peakRssGrowthMiBPer1000: number;
  /** Peak RSS over the fan-out minus RSS before it: how much the process grew. */
  peakRssGrowthMiB: number;
  forksPerSecond: number;
}

const MIB = 1024 * 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

export async function measureRetention(job: RetentionJob): Promise<RetentionResult> {
  const engine = await ForkEngine.create({ provider: { kind: 'local', baseUrl: job.url }, threads: 2, concurrency: 64, warmup: 'none' });
  try {
    const prefix = engine.freeze(makeSession(16 * 1024));
    // Workers started, code warm, the prefix decoded: not measured.
    await engine
      .fanOut(
        prefix,
        Array.from({ length: 256 }, (_, i) => ({ id: `w${i}`, directive: 'REPLY warm' })),
      )
      .results();
    // The tasks are the caller's input: made before the baseline.
    const tasks = Array.from({ length: job.n }, (_, i) => ({ id: `f${i}`, directive: 'REPLY ok' }));
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    // process.memoryUsage.rss() reads RSS alone (memoryUsage() walks the heap's spaces as well).
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
    const t0 = performance.now();
    const run = engine.fanOut(prefix, tasks, { retainResults: job.retain });
    let completed = 0;
    run.onResult((r) => {
      if (r.status === 'completed') completed++;
    });
    await run.settled();
    const makespanMs = performance.now() - t0;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    gc();
    const after = process.memoryUsage();
    const result: RetentionResult = {
      retain: job.retain,
      n: job.n,
      completed,
      makespanMs,
      heapBeforeMiB: before.heapUsed / MIB,
      heapAfterMiB: after.heapUsed / MIB,
      heapMiBPer1000: ((after.heapUsed - before.heapUsed) / MIB / job.n) * 1000,
      rssBeforeMiB: before.rss / MIB,
      peakRssMiB: peakRss / MIB,
      peakRssGrowthMiBPer1000: ((peakRss - before.rss) / MIB / job.n) * 1000,
      peakRssGrowthMiB: (peakRss - before.rss) / MIB,
      forksPerSecond: (job.n / makespanMs) * 1000,
    };
    // Keeps the run (and so whatever it retains) alive until after the measurement.
    if (run.report().forks.total !== job.n) throw new Error('retention: the run lost forks');
    return result;
  } finally {
    await engine.close();
  }
}

runIfMain('retention.ts', measureRetention);
