/**
 * Piscina entry of the `clone` variant: the whole parent session arrives structured-cloned inside
 * every task. Nothing is decoded; the same fork loop runs on the cloned session.
 */
import { connectHost } from '../../src/engine/host-client.js';
import { runForkLoop } from '../../src/engine/fork-loop.js';
import type { ForkJob, ForkResult } from '../../src/engine/protocol.js';
import { createGenaiProvider } from '../../src/model/genai.js';
import type { ModelProvider } from '../../src/model/types.js';
import type { ParentSession } from '../../src/session/schema.js';

export interface CloneJob extends Omit<ForkJob, 'prefix'> {
  /** The parent session itself, structured-cloned by postMessage for every fork. */
  session: ParentSession;
  prefixId: string;
}

const providers = new Map<string, ModelProvider>();

export default async function runCloneJob(job: CloneJob): Promise<ForkResult> {
  const key = JSON.stringify(job.provider);
  let provider = providers.get(key);
  if (!provider) {
    provider = createGenaiProvider(job.provider);
    providers.set(key, provider);
  }
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | undefined;
  const abort = (why: 'cancelled' | 'timeout'): void => {
    reason ??= why;
    controller.abort(new Error(why));
  };
  const host = connectHost(job.port, () => abort('cancelled'));
  const timer = job.timeoutMs !== undefined ? setTimeout(() => abort('timeout'), job.timeoutMs) : undefined;
  try {
    return await runForkLoop({
      // The loop reads prefix.id only (a memo key); there is no shared buffer in this variant.
      job: { ...job, prefix: { id: job.prefixId, buffer: undefined as unknown as SharedArrayBuffer, byteLength: 0 } },
      session: job.session,
      decodedPrefix: false,
      provider,
      host,
      signal: controller.signal,
      abortReason: () => reason,
    });
  } finally {
    clearTimeout(timer);
    host.close();
  }
}
