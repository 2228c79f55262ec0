import { createProvider, loadProvider } from '../model/providers/index.js';
import type { ModelProvider, ProviderConfig } from '../model/types.js';
import { runForkLoop } from './fork-loop.js';
import { connectHost } from '../wire/fork-end.js';
import { createPrefixStore } from './prefix-store.js';
import type { ForkJob } from '../wire/protocol.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ParentSession, SessionFormat } from '../shapes/registry.js';
import { emptyFailure } from '../result/results.js';
import { threadId } from 'node:worker_threads';

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

/** Runs one fork in this worker. Never throws: every ending is a ForkResult. */
export function runForkJob(job: ForkJob): Promise<ForkResult> {
  return runForkWith(job, () => {
    const { session, decoded } = prefixes.get(job.prefix.id, job.prefix.buffer, job.prefix.byteLength);
    return { session, decodedPrefix: decoded };
  });
}

/**
 * The fork's life in a worker around its loop: cancel from the port, the fork's timeout, the
 * channel closed at the end, and any throw turned into a failed result. `load` supplies the
 * parent session (decoded from shared memory here; the benchmark's clone variant passes its copy).
 */
export async function runForkWith(
  job: ForkJob,
  load: () => { session: Readonly<ParentSession>; decodedPrefix: boolean },
): Promise<ForkResult> {
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | undefined;
  const abort = (why: 'cancelled' | 'timeout'): void => {
    reason ??= why;
    controller.abort(new Error(why));
  };
  let stopReason: 'budget' | 'cost' | undefined;
  const host = connectHost(job.port, () => abort('cancelled'), undefined, (why) => (stopReason ??= why));
  const timer = job.timeoutMs !== undefined ? setTimeout(() => abort('timeout'), job.timeoutMs) : undefined;
  try {
    const loaded = load();
    const result = await runForkLoop({
      job,
      ...loaded,
      provider: await providerFor(job.provider, job.plan.shape),
      host,
      signal: controller.signal,
      abortReason: () => reason,
      stopReason: () => stopReason,
    });
    // The result goes back on the pool's channel, the turn events went on the fork's: the engine
    // takes whatever of them it has not handled yet before it reads the result (channel.ts, drain).
    return result;
  } catch (err) {
    return emptyFailure(job.task.id, 'error', err instanceof Error ? err.message : String(err), threadId);
  } finally {
    clearTimeout(timer);
    // The port stays open for the engine to drain; its close (the engine's, once it has the result) ends it.
    host.detach();
  }
}
