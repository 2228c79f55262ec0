import { Queue } from 'bullmq';
import { connectionOf, type QueueAddress } from './address.js';
import { CANCEL_CHANNEL, QUEUE_NAME, jobIdOf, type CancelMessage } from './protocol.js';
import { connectRedis } from './redis.js';

/** Waiting jobs looked at per page when a whole run is cancelled. */
const PAGE = 1_000;

/**
 * Cancels a run (or one task of it) from anywhere: its jobs that no worker has taken are removed
 * from the queue, and the cancel is published to every coordinator and worker (workers stop the
 * forks they run; the run's coordinator cancels the rest in its engine, so nothing more is enqueued).
 */
export async function cancelRun(address: QueueAddress, runId: string, taskId?: string): Promise<{ removed: number; listeners: number }> {
  const redis = await connectRedis(address);
  const queue = new Queue(QUEUE_NAME, { connection: connectionOf(address) });
  queue.on('error', () => undefined);
  try {
    let removed = 0;
    if (taskId !== undefined) {
      removed += await queue.remove(jobIdOf(runId, taskId));
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
    const message: CancelMessage = taskId === undefined ? { runId } : { runId, taskId };
    const listeners = await redis.publish(CANCEL_CHANNEL, JSON.stringify(message));
    return { removed, listeners };
  } finally {
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
}
