import { Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ForkResult } from '../result/fork-result.js';
import { emptyCancelled } from '../result/results.js';
import type { DispatcherConfig } from './dispatcher-options.js';
import { messageOf } from './message-of.js';
import type { PendingFork } from './pending-fork.js';
import { runKey, type QueueJobData } from './redis-wire.js';
import { storeRunData } from './store.js';

/** Without any event for this long, pending jobs are looked up directly (an event missed is a result found). */
export const RECONCILE_MS = 5_000;
/** Jobs looked up per reconciliation (the next ones at the next). */
const RECONCILE_BATCH = 200;
/**
 * How often the run record is looked for: gone, Redis lost the run's data (restarted without it, or
 * flushed), and the jobs in flight are enqueued again. Also looked for at once on every reconnection.
 */
export const LOST_CHECK_MS = 2_000;

/** What recovery reads and does on the coordinator's side. */
export interface RecoveryContext {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly config: DispatcherConfig;
  /** The forks whose jobs have not ended, by job id, in the order they are looked up in. */
  readonly pending: Map<string, PendingFork>;
  /** Jobs a resumed fork is looking up: reconciliation leaves them to it. */
  readonly attaching: ReadonlySet<string>;
  closed(): boolean;
  enqueue(jobId: string, data: QueueJobData): Promise<void>;
  /** Settles the fork of a job that finished. */
  settleFinished(jobId: string, job: Job): void;
  finish(jobId: string, result: ForkResult): void;
}

/**
 * How a coordinator gets its run back when the job events do not tell it everything: an event
 * missed (its result is looked up), or Redis losing the run's data (restarted without it, flushed,
 * restored from an older snapshot: the run is stored and its jobs enqueued again).
 */
export class RunRecovery {
  private reconciling = false;
  private recovering = false;

  constructor(private readonly run: RecoveryContext) {}

  /**
   * Looks pending jobs up directly, a batch at a time (those looked at go to the back of the line):
   * a completion whose event was missed still settles its fork, and a job that is gone (Redis
   * restarted from an older snapshot, keys deleted) is enqueued again.
   */
  async reconcile(): Promise<void> {
    if (this.reconciling) return;
    this.reconciling = true;
    const { pending, queue } = this.run;
    try {
      const ids = [...pending.keys()].filter((id) => !this.run.attaching.has(id)).slice(0, RECONCILE_BATCH);
      const jobs = await Promise.all(ids.map((id) => Job.fromId(queue, id)));
      let lost = false;
      for (const [i, job] of jobs.entries()) {
        const jobId = ids[i] as string;
        if (job?.finishedOn) {
          this.run.settleFinished(jobId, job);
          continue;
        }
        const p = pending.get(jobId);
        if (!p) continue;
        if (!job && p.enqueued) lost = true;
        pending.delete(jobId);
        pending.set(jobId, p);
      }
      if (lost) await this.recover('some of its jobs are gone');
    } catch (err) {
      this.run.config.log(`queue: ${messageOf(err)}`);
    } finally {
      this.reconciling = false;
    }
  }

  /** The run record gone means Redis lost the run's data. A Redis that does not answer is left to the reconnection. */
  async checkRunRecord(): Promise<void> {
    if (this.run.closed() || this.recovering) return;
    let present: boolean;
    try {
      present = (await this.run.redis.exists(runKey(this.run.config.runId))) === 1;
    } catch {
      // The client's own error events say why.
      return;
    }
    if (!present) await this.recover('its run record is gone');
  }

  /**
   * Redis lost some or all of the run's data (restarted without it, flushed, restored from an older
   * snapshot): the prefix and the run record are stored again, and every fork whose job was in the
   * queue is enqueued again under its own id (a job still there is left as it is; a worker still
   * running one of the lost jobs cannot complete it, so the fork runs again). A fork the engine was
   * cancelling ends cancelled instead. Its result is still settled once, here.
   */
  private async recover(why: string): Promise<void> {
    if (this.recovering || this.run.closed()) return;
    this.recovering = true;
    const { config: o, pending } = this.run;
    try {
      await storeRunData(this.run.redis, o.runId, o.prefix, o.settings, o.ttlSeconds);
      const queued = [...pending].filter(([, p]) => p.enqueued);
      for (const [jobId, p] of queued) {
        if (p.cancelling)
          this.run.finish(jobId, emptyCancelled(p.taskId, "its job was lost with Redis's data while it was being cancelled"));
      }
      const again = queued.filter(([, p]) => !p.cancelling);
      for (let i = 0; i < again.length; i += RECONCILE_BATCH) {
        await Promise.all(again.slice(i, i + RECONCILE_BATCH).map(([jobId, p]) => this.run.enqueue(jobId, p.data)));
      }
      o.log(
        `queue: Redis at ${o.address.display} lost data of run ${o.runId} (${why}: restarted without its data, or flushed); ` +
          `the prefix and the run record are stored again and ${again.length} fork${again.length === 1 ? '' : 's'} in the queue enqueued again under the same ids`,
      );
    } catch (err) {
      o.log(`queue: run ${o.runId} could not be stored again in Redis (tried again at the next check): ${messageOf(err)}`);
    } finally {
      this.recovering = false;
    }
  }
}
