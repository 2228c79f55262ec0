import type { Piscina } from 'piscina';
import { ForkpoolError } from '../input/forkpool-error.js';
import { within } from '../input/within.js';
import type { ProviderConfig } from '../model/types.js';

/** Longer than any thread takes to load the worker and an SDK on a loaded machine; a thread stuck past it is a failure, not a hang. */
const THREAD_START_LIMIT_MS = 60_000;

/**
 * Starts every thread of a new pool ahead of the first fork (`startThreads: 'ahead'`): one
 * `startThread` task per thread, which has the thread load the fork worker and the run's provider
 * (its SDK). Piscina hands a task to an idle thread first, and every thread is idle at start, so
 * each thread takes one. A thread that fails, or takes longer than a minute, is a ForkpoolError
 * (`thread_start_failed`) with the thread's error as its cause, thrown once the pool is destroyed
 * and what the provider started (`stop`: the simulator) has stopped.
 */
export async function startThreadsAhead(
  pool: Pick<Piscina, 'run' | 'destroy'>,
  threads: number,
  provider: ProviderConfig,
  stop: (() => Promise<void>) | undefined,
): Promise<void> {
  try {
    await startAll(pool, threads, provider);
  } catch (error) {
    await Promise.allSettled([pool.destroy(), stop?.()]);
    throw error;
  }
}

async function startAll(pool: Pick<Piscina, 'run'>, threads: number, provider: ProviderConfig): Promise<void> {
  const started = Promise.all(Array.from({ length: threads }, () => pool.run(provider, { name: 'startThread' }) as Promise<number>));
  let outcome: number[] | undefined;
  try {
    outcome = await within(THREAD_START_LIMIT_MS, started);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ForkpoolError('thread_start_failed', `ForkEngine.create: a worker thread failed to start: ${reason}`, { cause: error });
  }
  if (outcome === undefined) {
    started.catch(() => {}); // settled by the pool's destroy
    throw new ForkpoolError(
      'thread_start_failed',
      `ForkEngine.create: the worker threads did not start within ${THREAD_START_LIMIT_MS / 1000} s (startThreads: 'ahead')`,
    );
  }
}
