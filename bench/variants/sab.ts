/**
 * `sab` and `sab+explicit`: forkpool as designed (ForkEngine: frozen prefix in a
 * SharedArrayBuffer, parsed once per worker, Piscina pool), with implicit or explicit caching.
 *
 * Dispatch timing: FanOutRun's private `dispatch(index)` is wrapped (at run time, from here; the
 * engine is not edited) so the wall time of each fork's synchronous dispatch (channel, job, pool.run
 * and its postMessage) is recorded, also when dispatch happens after the explicit cache is made.
 */
import { performance } from 'node:perf_hooks';
import { ForkEngine } from '../../dist/src/index.js';
import { FanOutRun } from '../../dist/src/engine/run.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';
import type { ForkTask } from '../../dist/src/session/schema.js';
import type { Tool } from '../../dist/src/tools/define.js';
import { chatProvider } from '../lib/chat.js';
import type { FanOutHandle, Runner, RunnerOptions } from './common.js';

let samples: number[] = [];
let wrapped = false;

function wrapDispatch(): void {
  if (wrapped) return;
  wrapped = true;
  const proto = FanOutRun.prototype as unknown as { dispatch(...args: unknown[]): void };
  const original = proto.dispatch;
  // Every argument passed on: dispatch(index, first) tells the run which fork leads the warm-up.
  proto.dispatch = function timedDispatch(this: unknown, ...args: unknown[]): void {
    const t0 = performance.now();
    original.apply(this, args);
    samples.push(performance.now() - t0);
  };
}

export async function createSabRunner(
  options: RunnerOptions & { cache: 'implicit' | 'explicit'; minCacheTokens?: number },
  tools: readonly Tool[],
): Promise<Runner> {
  wrapDispatch();
  const engine = await ForkEngine.create({
    provider: options.chat !== undefined ? chatProvider(options.url, options.chat) : { kind: 'local', baseUrl: options.url },
    threads: options.threads,
    concurrency: options.concurrency,
    tools,
    warmup: options.warmup === 'none' ? 'none' : 'auto',
    cache: options.cache,
    timeoutMs: options.timeoutMs,
    maxTurns: 20,
    ...(options.maxAttempts !== undefined ? { retry: { maxAttempts: options.maxAttempts } } : {}),
    ...(options.minCacheTokens !== undefined ? { minCacheTokens: options.minCacheTokens } : {}),
    ...(options.cacheBuildMs !== undefined ? { cacheBuildMs: options.cacheBuildMs } : {}),
  });
  return {
    fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[], fanOutOptions = {}): FanOutHandle {
      samples = [];
      const dispatchMs = samples;
      const run = engine.fanOut(prefix, tasks, fanOutOptions);
      return { results: run.results(), dispatchMs, report: () => run.report() };
    },
    close: () => engine.close(),
  };
}
