import { createProvider, loadProvider } from '../model/providers/index.js';
import type { ModelProvider, ProviderConfig } from '../model/types.js';
import { runForkLoop } from './fork-loop.js';
import { connectHost } from '../wire/fork-end.js';
import { createPrefixStore } from './prefix-store.js';
import type { ForkJob, StopReason } from '../wire/protocol.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ParentSession, SessionFormat } from '../shapes/registry.js';
import { emptyFailure } from '../result/results.js';
import { threadId } from 'node:worker_threads';
import { forkPortOf, linkPosted, resultNotSent } from './thread-channel.js';

// Per worker thread: parsed prefixes and model clients outlive a single fork.
const prefixes = createPrefixStore();
const providers = new Map<string, ModelProvider>();

/** This worker's client for a descriptor and shape; a provider of one's own is imported once, from its module's URL. */
async function providerFor(config: ProviderConfig, format: SessionFormat): Promise<ModelProvider> {
  const key = `${format} ${JSON.stringify(config)}`;
  let provider = providers.get(key);
  if (!provider) {
    if (config.module !== undefined) await loadProvider(config.module);
    provider = createProvider(config, format);
    providers.set(key, provider);
  }
  return provider;
}

/**
 * Runs one fork in this thread (Piscina's task). Its result goes back as the last message on the
 * fork's channel, behind every event it reported; the task itself returns nothing.
 */
export function runForkJob(job: ForkJob): Promise<void> {
  return runForkWith(job, () => {
    const { session, decoded } = prefixes.get(job.prefix.id, job.prefix.buffer, job.prefix.byteLength);
    return { session, decodedPrefix: decoded };
  });
}

/**
 * What a fork's signal aborts with: an AbortError, as a caller's abort is to the SDKs (@google/genai
 * resumes a stream whose read failed any other way, from its last checkpoint).
 */
export function forkAbortReason(why: 'cancelled' | 'timeout'): DOMException {
  return new DOMException(why === 'timeout' ? 'the fork timed out' : 'the fork was cancelled', 'AbortError');
}

/**
 * The fork's life in a thread around its loop: cancel and stop from its channel, the fork's
 * timeout, any throw turned into a failed result, and the result sent as the channel's last
 * message. `load` supplies the parent session (decoded from shared memory here; the benchmark's
 * clone variant passes its copy).
 */
export async function runForkWith(job: ForkJob, load: () => { session: Readonly<ParentSession>; decodedPrefix: boolean }): Promise<void> {
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | undefined;
  const abort = (why: 'cancelled' | 'timeout'): void => {
    reason ??= why;
    controller.abort(forkAbortReason(why));
  };
  let stopReason: StopReason | undefined;
  const host = connectHost(
    forkPortOf(job.link),
    () => abort('cancelled'),
    undefined,
    (why) => (stopReason ??= why),
  );
  const timer = job.timeoutMs !== undefined ? setTimeout(() => abort('timeout'), job.timeoutMs) : undefined;
  let result: ForkResult;
  try {
    const loaded = load();
    result = await runForkLoop({
      job,
      ...loaded,
      provider: await providerFor(job.provider, job.plan.shape),
      host,
      signal: controller.signal,
      abortReason: () => reason,
      stopReason: () => stopReason,
    });
  } catch (err) {
    result = emptyFailure(job.task.id, 'error', err instanceof Error ? err.message : String(err), threadId);
  } finally {
    clearTimeout(timer);
  }
  try {
    host.end(result);
  } catch (err) {
    // A result that cannot cross the boundary (structured clone refused a value in it): its fork fails saying so.
    host.end(resultNotSent(job.task.id, err));
  }
  // The pool hears that the job ended after its result is posted.
  await linkPosted(job.link);
}
