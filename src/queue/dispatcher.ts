import type { ObservableCallback, ObservableGauge } from '@opentelemetry/api';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ForkPool } from '../engine/fork-start.js';
import type { ForkResult } from '../result/fork-result.js';
import { emptyCancelled, emptyFailure } from '../result/results.js';
import { ATTR, METRIC } from '../telemetry/conventions.js';
import { meter } from '../telemetry/metrics.js';
import { VALUE_INT } from '../telemetry/otel.js';
import { connectHost } from '../wire/fork-end.js';
import type { ForkJob } from '../wire/protocol.js';
import { connectionOf, workerCommandOf } from './address.js';
import { AttemptLedger, type LostAttempts, type RunningFork, type WorkerNow, type WorkerSummary } from './attempt-ledger.js';
import { dispatcherConfigOf, type DispatcherConfig, type DispatcherOptions } from './dispatcher-options.js';
import { cancelledJob, failedJob } from './job-outcome.js';
import { messageOf } from './message-of.js';
import type { PendingFork } from './pending-fork.js';
import { LOST_CHECK_MS, RECONCILE_MS, RunRecovery } from './recovery.js';
import { connectRedis } from './redis.js';
import {
  CANCEL_CHANNEL,
  FORK_JOB,
  QUEUE_NAME,
  jobIdOf,
  parseCancelMessage,
  parseJobReturn,
  parseQueueProgress,
  type QueueJobData,
} from './redis-wire.js';
import { renewRun, storeRunData } from './store.js';

/** With no job taken after this long, the coordinator says how to start a worker. */
const IDLE_HINT_MS = 10_000;

/**
 * The coordinator's side of a distributed run, as the engine's fork pool: each fork job becomes a
 * BullMQ job (the task and the prefix id only), the fork's events come back as the job's progress
 * (so the engine's warm-up sees the lead fork's response begin, on whatever machine it runs), and
 * its result as the job's return value. Each task settles once: a job BullMQ delivers twice
 * completes once, and a result that finds no fork waiting for it is dropped.
 */
export class QueueDispatcher implements ForkPool {
  private readonly pending = new Map<string, PendingFork>();
  private readonly ledger: AttemptLedger;
  private readonly recovery: RunRecovery;
  private lastEventAt = Date.now();
  private takenAny = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private closing: Promise<void> | undefined;
  /** Jobs this coordinator removes itself to enqueue them again: their 'removed' event ends no fork. */
  private readonly replacing = new Set<string>();
  /** Jobs a resumed fork is looking up: reconciliation leaves them to it. */
  private readonly attaching = new Set<string>();
  private cancelListener: ((taskId: string | undefined) => void) | undefined;
  /** The queue depth gauge and this run's callback on it, removed on close. */
  private depthGauge: ObservableGauge | undefined;
  private readonly observeDepth: ObservableCallback = (result) => {
    result.observe(this.queueDepth(), { [ATTR.conversationId]: this.o.prefix.id });
  };

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly o: DispatcherConfig,
  ) {
    this.ledger = new AttemptLedger(o.price);
    this.recovery = new RunRecovery({
      redis,
      queue,
      config: o,
      pending: this.pending,
      attaching: this.attaching,
      closed: () => this.closing !== undefined,
      enqueue: (jobId, data) => this.enqueue(jobId, data),
      settleFinished: (jobId, job) => this.settleFinished(jobId, job),
      finish: (jobId, result) => this.finish(jobId, result),
    });
  }

  /** Connects, stores the prefix and the run record, and listens for the run's job events before any job exists. */
  static async open(options: DispatcherOptions): Promise<QueueDispatcher> {
    const o = dispatcherConfigOf(options);
    const redis = await connectRedis(o.address);
    const connection = connectionOf(o.address);
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    // Cancels of this run from elsewhere (forkpool cancel) reach its engine through here.
    const subscriber = redis.duplicate();
    subscriber.on('error', () => undefined);
    try {
      await subscriber.subscribe(CANCEL_CHANNEL);
      await storeRunData(redis, o.runId, o.prefix, o.settings, o.ttlSeconds);
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    } catch (err) {
      await Promise.allSettled([events.close(), queue.close()]);
      subscriber.disconnect();
      redis.disconnect();
      throw err;
    }
    const dispatcher = new QueueDispatcher(redis, subscriber, queue, events, o);
    dispatcher.listen();
    return dispatcher;
  }

  private listen(): void {
    const { events, queue, redis, o } = this;
    const complain = (err: Error): void => o.log(`queue: ${err.message}`);
    events.on('error', complain);
    queue.on('error', complain);
    redis.on('error', complain);
    // Back from a disconnection: a Redis restarted without its data is noticed now, not at the next check.
    redis.on('ready', () => void this.recovery.checkRunRecord());
    events.on('active', ({ jobId }) => {
      const p = this.pending.get(jobId);
      if (!p) return;
      p.taken = true;
      this.takenAny = this.touch();
    });
    // Added, or moved back to wait (its worker stalled): a worker has yet to take it.
    events.on('waiting', ({ jobId }) => {
      const p = this.pending.get(jobId);
      if (!p) return;
      p.taken = false;
      delete p.worker;
    });
    events.on('progress', ({ jobId, data }) => {
      const p = this.pending.get(jobId);
      if (!p) return;
      this.touch();
      const event = parseQueueProgress(data);
      if (event?.type === 'taken') {
        // Taken again: the earlier run of the job ended without a result (the ledger counts it lost).
        p.worker = event.worker;
        this.ledger.taken(p, event.worker);
      } else if (event?.type === 'calls') {
        this.ledger.callsInFlight(p, event.inFlight);
      } else if (event) {
        if (event.type === 'turn') this.ledger.answered(p, event.usage, event.functionCalls);
        p.host.report(event);
      }
    });
    // Its worker's lock ran out (the worker died, or its event loop stalled): that run of the fork is lost, paid for.
    events.on('stalled', ({ jobId }) => {
      const p = this.pending.get(jobId);
      if (p) this.ledger.lose(p);
    });
    events.on('completed', ({ jobId, returnvalue }) => {
      if (!this.pending.has(jobId)) return;
      this.touch();
      this.accept(jobId, returnvalue);
    });
    events.on('removed', ({ jobId }) => {
      if (this.replacing.delete(jobId)) return;
      const p = this.pending.get(jobId);
      if (p) this.finish(jobId, emptyCancelled(p.taskId, 'its job was removed from the queue before a worker took it'));
    });
    this.subscriber.on('message', (_channel: string, text: string) => {
      const message = parseCancelMessage(text);
      if (message?.runId === o.runId) this.cancelListener?.(message.taskId);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      const p = this.pending.get(jobId);
      if (!p) return;
      this.touch();
      // A job failed for stalling too often: its last run is lost too.
      this.ledger.lose(p);
      this.finish(jobId, failedJob(p.taskId, failedReason));
    });
    const every = (ms: number, fn: () => void): void => {
      const timer = setInterval(fn, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(1_000, (o.ttlSeconds * 1000) / 4), () => {
      renewRun(redis, o.runId, o.prefix.id, o.ttlSeconds).catch(complain);
    });
    every(LOST_CHECK_MS, () => void this.recovery.checkRunRecord());
    every(RECONCILE_MS, () => {
      if (Date.now() - this.lastEventAt >= RECONCILE_MS && this.pending.size > 0) void this.recovery.reconcile();
    });
    const hint = setTimeout(() => {
      if (!this.takenAny && this.pending.size > 0) {
        o.log(`no worker has taken a fork yet; start workers with: ${workerCommandOf(o.address)}`);
      }
    }, IDLE_HINT_MS);
    hint.unref();
    this.timers.push(hint);
    this.observeQueueDepth();
  }

  /**
   * forkpool.queue.depth, read when the application's meter provider collects. The meter is looked up
   * now: a provider registered after the run started does not see this run (nor does it when nothing is registered).
   */
  private observeQueueDepth(): void {
    this.depthGauge = meter()?.createObservableGauge(METRIC.queueDepth, {
      unit: '{job}',
      valueType: VALUE_INT,
      description: "A distributed run's fork jobs enqueued and not yet taken by a worker.",
    });
    this.depthGauge?.addCallback(this.observeDepth);
  }

  /** The run's jobs in the queue that no worker holds, as the job events have told. */
  private queueDepth(): number {
    let depth = 0;
    for (const p of this.pending.values()) if (p.enqueued && !p.taken) depth++;
    return depth;
  }

  private touch(): true {
    this.lastEventAt = Date.now();
    return true;
  }

  /**
   * Enqueues one fork. Plays the fork's end of its channel here: the fork's events and then its
   * result go to the engine on it; settles (never rejects) once the result is sent.
   */
  run(job: ForkJob): Promise<void> {
    const taskId = job.task.id;
    const jobId = jobIdOf(this.o.runId, taskId);
    // Events go to the engine on the fork's channel; a cancel takes back a job nobody has taken.
    // A remote engine's jobs bring a port each (src/engine/thread-channels.ts: its pool has no threads).
    if (!('port' in job.link)) throw new TypeError("a distributed run's fork job must bring its own port");
    const host = connectHost(job.link.port, () => void this.cancelQueued(jobId));
    return new Promise<void>((sent) => {
      const resolve = (result: ForkResult): void => {
        host.end(result);
        sent();
      };
      if (this.closing) {
        resolve(emptyCancelled(taskId, 'the run was closed before this fork was enqueued'));
        return;
      }
      const data: QueueJobData = {
        runId: this.o.runId,
        prefixId: this.o.prefix.id,
        task: job.task,
        plan: job.plan,
        ...(job.previousResponseId !== undefined ? { previousResponseId: job.previousResponseId } : {}),
        ...(job.transcript !== undefined ? { transcript: job.transcript } : {}),
        ...(job.traceContext !== undefined ? { traceContext: job.traceContext } : {}),
      };
      this.pending.set(jobId, { taskId, data, host, resolve, enqueued: false, taken: false, cancelling: false, lostBefore: false });
      (this.o.attach ? this.attach(jobId, data) : this.enqueue(jobId, data)).catch((err: unknown) =>
        this.finish(jobId, emptyFailure(taskId, 'error', `could not enqueue the fork: ${messageOf(err)}`)),
      );
    });
  }

  /** Adds the fork's job; a job of that id already in the queue is left as it is (BullMQ's add is then a no-op). */
  private async enqueue(jobId: string, data: QueueJobData): Promise<void> {
    const keep = { age: this.o.ttlSeconds };
    await this.queue.add(FORK_JOB, data, { jobId, removeOnComplete: keep, removeOnFail: keep });
    const p = this.pending.get(jobId);
    if (p) p.enqueued = true;
  }

  /**
   * A resumed run's fork (its pending entry is set, so no event of its job is missed from here on):
   * a job that finished while no coordinator listened gives its result now; a job waiting or
   * running is left to finish (its events come here); a job that ended cancelled is removed and
   * enqueued again, as a resumed run runs cancelled forks again; no job at all is enqueued.
   */
  private async attach(jobId: string, data: QueueJobData): Promise<void> {
    this.attaching.add(jobId);
    try {
      const job = await Job.fromId(this.queue, jobId);
      if (job?.finishedOn && !cancelledJob(job)) {
        this.settleFinished(jobId, job);
        return;
      }
      if (job && !job.finishedOn) {
        const state = await job.getState();
        const p = this.pending.get(jobId);
        if (!p) return;
        p.enqueued = true;
        // Only ever set here: an 'active' event that came meanwhile is newer than the state read.
        if (state === 'active') p.taken = true;
        return;
      }
      if (job) {
        this.replacing.add(jobId);
        // 0 only when it is gone already (a finished job holds no lock): nothing to ignore then.
        if ((await this.queue.remove(jobId)) === 0) this.replacing.delete(jobId);
      }
      await this.enqueue(jobId, data);
    } finally {
      this.attaching.delete(jobId);
    }
  }

  private settleFinished(jobId: string, job: Job): void {
    if (job.failedReason) {
      const p = this.pending.get(jobId);
      if (p) this.finish(jobId, failedJob(p.taskId, job.failedReason));
    } else this.accept(jobId, job.returnvalue);
  }

  /**
   * Called when a cancel for this run comes from elsewhere (forkpool cancel): every fork, or the
   * one task. The caller cancels them in its engine, which hands the running ones back here.
   */
  onCancel(listener: (taskId: string | undefined) => void): void {
    this.cancelListener = listener;
  }

  /** What each worker process that took a job did for this run, in the order they first took one. */
  workers(): WorkerSummary[] {
    return this.ledger.workers();
  }

  /** What the attempts lost with dead workers spent so far. */
  lostAttempts(): LostAttempts {
    return this.ledger.lostAttempts();
  }

  /** Each worker that finished or runs a fork of this run: its finished count and the task ids it runs now. */
  workersNow(): WorkerNow[] {
    const running: RunningFork[] = [];
    for (const p of this.pending.values()) if (p.worker !== undefined && p.taken) running.push({ worker: p.worker, taskId: p.taskId });
    return this.ledger.workersNow(running);
  }

  /** Stops listening and disconnects. Forks still pending end cancelled (their jobs stay in the queue). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearTimeout(timer);
      this.depthGauge?.removeCallback(this.observeDepth);
      for (const jobId of [...this.pending.keys()]) {
        const p = this.pending.get(jobId) as PendingFork;
        this.finish(jobId, emptyCancelled(p.taskId, 'the coordinator closed before this fork ended'));
      }
      await Promise.allSettled([this.events.close(), this.queue.close()]);
      await this.subscriber.quit().catch(() => this.subscriber.disconnect());
      await this.redis.quit().catch(() => this.redis.disconnect());
    })();
    return this.closing;
  }

  private accept(jobId: string, value: unknown): void {
    const p = this.pending.get(jobId);
    if (!p) return;
    let result: ForkResult;
    try {
      const ret = parseJobReturn(value, p.taskId);
      result = ret.result;
      this.ledger.finished(ret.worker, result.calls.length);
    } catch (err) {
      result = emptyFailure(p.taskId, 'error', `the worker's answer could not be read: ${messageOf(err)}`);
    }
    this.finish(jobId, result);
  }

  /** The one place a fork's job ends here: once, whoever gets here first. */
  private finish(jobId: string, result: ForkResult): void {
    const p = this.pending.get(jobId);
    if (!p) return;
    this.pending.delete(jobId);
    // On the fork's channel, behind every progress event reported before it.
    p.resolve(result);
  }

  /**
   * A cancelled fork: a job no worker has taken is removed from the queue and ends cancelled here;
   * a running one is cancelled by its worker (told on the cancel channel), whose result then
   * completes the job. A worker that does not answer in time leaves it to the engine's grace period.
   */
  private async cancelQueued(jobId: string): Promise<void> {
    const p = this.pending.get(jobId);
    if (!p) return;
    p.cancelling = true;
    try {
      // 0 when a worker holds the job's lock.
      if ((await this.queue.remove(jobId)) === 1) this.finish(jobId, emptyCancelled(p.taskId, 'cancelled before a worker took it'));
      else await this.redis.publish(CANCEL_CHANNEL, JSON.stringify({ runId: this.o.runId, taskId: p.taskId }));
    } catch {
      // The queue is unreachable: the engine's grace period ends the fork as cancelled.
    }
  }
}
