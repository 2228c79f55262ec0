import type { Job } from 'bullmq';
import type { ForkResult } from '../result/fork-result.js';
import { emptyFailure } from '../result/results.js';

/** A job BullMQ failed: the worker threw (no prefix, a bad task) or it stalled past the limit (its workers died). */
export function failedJob(taskId: string, reason: string): ForkResult {
  const stalled = /stalled/i.test(reason);
  return emptyFailure(
    taskId,
    stalled ? 'worker_crash' : 'error',
    stalled ? `the workers running this fork died: ${reason}` : `the worker could not run this fork: ${reason}`,
  );
}

/** A finished job whose result is a cancelled fork (a resumed run runs it again). */
export function cancelledJob(job: Job): boolean {
  if (job.failedReason) return false;
  const ret = job.returnvalue as { result?: { status?: unknown } } | null | undefined;
  return ret?.result?.status === 'cancelled';
}
