import type { ForkResult } from '../result/fork-result.js';
import type { HostClient } from '../wire/fork-end.js';
import type { ForkAttempts } from './attempt-ledger.js';
import type { QueueJobData } from './redis-wire.js';

/** The coordinator's record of a fork whose job has not ended yet: it ends when its result is sent on its channel. */
export interface PendingFork extends ForkAttempts {
  taskId: string;
  data: QueueJobData;
  host: HostClient;
  /** Sends the fork's result on its channel, once. */
  resolve(result: ForkResult): void;
  /** Its job is in the queue (or was, before Redis lost it): enqueued, or found there by a resumed run. */
  enqueued: boolean;
  /** A worker holds its job (BullMQ's 'active'); back to false when the job waits again (stalled, enqueued again). */
  taken: boolean;
  /** The engine cancelled it: a lost job of it is not enqueued again. */
  cancelling: boolean;
  /** The worker that said it took the job (its first progress event). */
  worker?: string;
}
