/**
 * Piscina entry of the `clone` variant: the whole parent session arrives structured-cloned inside
 * every task. Nothing is decoded; the same fork loop runs on the cloned session.
 */
import type { ForkJob } from '../../dist/src/wire/protocol.js';
import { runForkWith } from '../../dist/src/fork-thread/run-job.js';
import type { ParentSession } from '../../dist/src/index.js';

export interface CloneJob extends Omit<ForkJob, 'prefix'> {
  /** The parent session itself, structured-cloned by postMessage for every fork. */
  session: ParentSession;
  prefixId: string;
}

export default function runCloneJob(job: CloneJob): Promise<void> {
  // The loop reads prefix.id only (a memo key); there is no shared buffer in this variant.
  const forkJob: ForkJob = { ...job, prefix: { id: job.prefixId, buffer: undefined as unknown as SharedArrayBuffer, byteLength: 0 } };
  return runForkWith(forkJob, () => ({ session: job.session, decodedPrefix: false }));
}
