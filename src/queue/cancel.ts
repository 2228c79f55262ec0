import { Queue } from 'bullmq';
import { connectionOf, type QueueAddress } from './address.js';
import { CANCEL_CHANNEL, QUEUE_NAME, jobIdOf, runKey, type CancelMessage } from './redis-wire.js';
import { connectRedis } from './redis.js';

/** Waiting jobs looked at per page when a whole run is cancelled. */
const PAGE = 1_000;
/** The states of a job no worker has taken. */
const WAITING: ReadonlySet<string> = new Set(['waiting', 'prioritized', 'delayed']);

/** What a cancel did: nothing when Redis knows no such run (no run record, no job of it found). */
export type CancelOutcome = { found: true; removed: number; listeners: number } | { found: false };

/**
 * Cancels a run (or one task of it) from anywhere: its jobs that no worker has taken are removed
 * from the queue, and the cancel is published to every coordinator and worker (workers stop the
 * forks they run; the run's coordinator cancels the rest in its engine, so nothing more is enqueued).
 * A run is known by its record (kept an hour past its coordinator's last renewal) or by a job of it
 * (the task's, or one waiting); an unknown one is left alone, nothing published.
 */
export async function cancelRun(address: QueueAddress, runId: string, taskId?: string): Promise<CancelOutcome> {
  const redis = await connectRedis(address);
  const queue = new Queue(QUEUE_NAME, { connection: connectionOf(address) });
  queue.on('error', () => undefined);
  try {
    let removed = 0;
    let found = false;
    if (taskId !== undefined) {
      const jobId = jobIdOf(runId, taskId);
      // BullMQ's remove also "removes" a job that is not there, and a finished one with its result: only a waiting job goes.
      const state = await queue.getJobState(jobId);
      found = state !== 'unknown';
      if (WAITING.has(state)) removed += await queue.remove(jobId);
    } else {
      const mine = `${runId}.`;
      for (let start = 0; ; start += PAGE) {
        const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed'], start, start + PAGE - 1, true);
        for (const job of jobs) {
          // A removed job shifts the pages: what was skipped is found by the coordinator's own cancel.
          if (job?.id?.startsWith(mine)) removed += await queue.remove(job.id);
        }
        if (jobs.length < PAGE) break;
      }
    }
    if (!found && removed === 0 && (await redis.exists(runKey(runId))) === 0) return { found: false };
    const message: CancelMessage = taskId === undefined ? { runId } : { runId, taskId };
    const listeners = await redis.publish(CANCEL_CHANNEL, JSON.stringify(message));
    return { found: true, removed, listeners };
  } finally {
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
}
