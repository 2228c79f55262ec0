import { ValueType, type ObservableCallback, type ObservableGauge } from '@opentelemetry/api';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectHost, type HostClient } from '../wire/fork-end.js';
import type { ForkJob } from '../wire/protocol.js';
import type { ForkResult } from '../result/fork-result.js';
import { emptyCancelled, emptyFailure, sumUsage } from '../result/results.js';
import { costOfCalls, type ModelPrice } from '../model/prices.js';
import type { TokenUsage } from '../model/types.js';
import type { ForkPool } from '../engine/run.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { ATTR, METRIC } from '../telemetry/conventions.js';
import { meter } from '../telemetry/metrics.js';
import { connectionOf, workerCommandOf, type QueueAddress } from './address.js';
import { connectRedis } from './redis.js';
import {
  CANCEL_CHANNEL,
  FORK_JOB,
  QUEUE_NAME,
  parseCancelMessage,
  parseQueueProgress,
  jobIdOf,
  parseJobReturn,
  runKey,
  RUN_RECORD_VERSION,
  type QueueJobData,
  type RunForkSettings,
  type WorkerFigures,
} from './redis-wire.js';
import { renewRun, storePrefix, storeRun } from './store.js';

/** How long the prefix, the run record and finished jobs stay in Redis after the coordinator last renewed them. */
const DEFAULT_TTL_SECONDS = 3_600;
/** Without any event for this long, pending jobs are looked up directly (an event missed is a result found). */
const RECONCILE_MS = 5_000;
/** Jobs looked up per reconciliation (the next ones at the next). */
const RECONCILE_BATCH = 200;
/**
 * How often the run record is looked for: gone, Redis lost the run's data (restarted without it, or
 * flushed), and the jobs in flight are enqueued again. Also looked for at once on every reconnection.
 */
const LOST_CHECK_MS = 2_000;
/** With no job taken after this long, the coordinator says how to start a worker. */
const IDLE_HINT_MS = 10_000;

export interface DispatcherOptions {
  address: QueueAddress;
  runId: string;
  prefix: FrozenPrefix;
  settings: RunForkSettings;
  /**
   * The run may already have jobs in the queue (a coordinator restarted with --resume under the
   * run id its journal recorded): each fork first looks for its job and collects it, and only a
   * fork with no job, or with a cancelled one, is enqueued.
   */
  attach?: boolean;
  /** The model's price, when one is known: what the attempts lost with dead workers cost. */
  price?: ModelPrice;
  ttlSeconds?: number;
  /** Lines for people (stderr). */
  log?: (line: string) => void;
}

/**
 * Per worker process that took a job of this run, what it did: the forks it finished, the model
 * calls it answered (of its lost attempts too) and the attempts lost with it. Its process figures
 * come with the forks it finished: a worker that finished none has none.
 */
export interface WorkerSummary extends Partial<Omit<WorkerFigures, 'id'>> {
  id: string;
  forks: number;
  modelCalls: number;
  /** Its runs of forks that ended with no result: its job's lock ran out (it died, or stalled) and another worker took the fork, or the job failed. */
  lostAttempts: number;
}

/**
 * What the attempts lost with dead workers spent: paid for, in no fork's result (each fork's
 * result is its last attempt's). The run's cost and token budget counted their calls as they
 * returned; the report's totals add them (queue-run.ts).
 */
export interface LostAttempts {
  /** Forks that lost at least one attempt. */
  forks: number;
  attempts: number;
  /** Calls answered (their usage is below) and calls in flight when their worker died (unknownCalls). */
  modelCalls: number;
  /** Calls in flight when their worker died: most likely paid for, their usage unknown (not in `usage`). */
  unknownCalls: number;
  /** Tool calls the answered calls asked for. */
  toolCalls: number;
  usage: TokenUsage;
  /** At the model's price, when one is known. */
  costUsd?: number;
}

/** One worker's run of a fork's job, as its progress told it: what it spent until its result, or until it was lost. */
interface Attempt {
  worker: string;
  /** The usage of each call answered. */
  calls: TokenUsage[];
  toolCalls: number;
  /** The worker's last count of the fork's calls in flight. */
  callsInFlight: number;
}

/** A worker process now: the forks it finished for this run and those it runs. */
export interface WorkerNow {
  id: string;
  forks: number;
  running: string[];
}

interface Pending {
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
  /** The run of the job the progress tells of now; it ends with the job's result, or lost. */
  attempt?: Attempt;
  /** An earlier attempt of it was lost. */
  lostBefore: boolean;
}

/**
 * The coordinator's side of a distributed run, as the engine's fork pool: each fork job becomes a
 * BullMQ job (the task and the prefix id only), the fork's events come back as the job's progress
 * (so the engine's warm-up sees the lead fork's response begin, on whatever machine it runs), and
 * its result as the job's return value. Each task settles once: a job BullMQ delivers twice
 * completes once, and a result that finds no fork waiting for it is dropped.
 */
export class QueueDispatcher implements ForkPool {
  private readonly pending = new Map<string, Pending>();
  private readonly summaries = new Map<string, WorkerSummary>();
  private readonly lost: LostAttempts = { forks: 0, attempts: 0, modelCalls: 0, unknownCalls: 0, toolCalls: 0, usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 } };
  private lastEventAt = Date.now();
  private takenAny = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private reconciling = false;
  private recovering = false;
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
    private readonly o: DispatcherOptions & { ttlSeconds: number; log: (line: string) => void },
  ) {}

  /** Connects, stores the prefix and the run record, and listens for the run's job events before any job exists. */
  static async open(options: DispatcherOptions): Promise<QueueDispatcher> {
    const o = { ...options, ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS, log: options.log ?? (() => undefined) };
    const redis = await connectRedis(o.address);
    const connection = connectionOf(o.address);
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    // Cancels of this run from elsewhere (forkpool cancel) reach its engine through here.
    const subscriber = redis.duplicate();
    subscriber.on('error', () => undefined);
    try {
      await subscriber.subscribe(CANCEL_CHANNEL);
      await storePrefix(redis, o.prefix, o.ttlSeconds);
      await storeRun(redis, o.runId, { version: RUN_RECORD_VERSION, prefixId: o.prefix.id, settings: o.settings }, o.ttlSeconds);
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
    redis.on('ready', () => void this.checkRunRecord());
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
        // Taken again: the earlier run of the job ended without a result (its stall may go unseen as an event).
        this.loseAttempt(p);
        p.worker = event.worker;
        p.attempt = { worker: event.worker, calls: [], toolCalls: 0, callsInFlight: 0 };
        this.summaryOf(event.worker);
      } else if (event?.type === 'calls') {
        if (p.attempt) p.attempt.callsInFlight = event.inFlight;
      } else if (event) {
        if (event.type === 'turn' && p.attempt) {
          p.attempt.calls.push(event.usage);
          p.attempt.toolCalls += event.functionCalls;
        }
        p.host.report(event);
      }
    });
    // Its worker's lock ran out (the worker died, or its event loop stalled): that run of the fork is lost, paid for.
    events.on('stalled', ({ jobId }) => {
      const p = this.pending.get(jobId);
      if (p) this.loseAttempt(p);
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
      this.loseAttempt(p);
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
    every(LOST_CHECK_MS, () => void this.checkRunRecord());
    every(RECONCILE_MS, () => {
      if (Date.now() - this.lastEventAt >= RECONCILE_MS && this.pending.size > 0) void this.reconcile();
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
   * now: a provider registered after the run started does not see this run.
   */
  private observeQueueDepth(): void {
    this.depthGauge = meter().createObservableGauge(METRIC.queueDepth, {
      unit: '{job}',
      valueType: ValueType.INT,
      description: "A distributed run's fork jobs enqueued and not yet taken by a worker.",
    });
    this.depthGauge.addCallback(this.observeDepth);
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
    const host = connectHost(job.port, () => void this.cancelQueued(jobId));
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
      if (job?.finishedOn && !this.cancelledJob(job)) {
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

  /** A finished job whose result is a cancelled fork (a resumed run runs it again). */
  private cancelledJob(job: Job): boolean {
    if (job.failedReason) return false;
    const ret = job.returnvalue as { result?: { status?: unknown } } | null | undefined;
    return ret?.result?.status === 'cancelled';
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
    return [...this.summaries.values()].map((s) => ({ ...s }));
  }

  /** What the attempts lost with dead workers spent so far. */
  lostAttempts(): LostAttempts {
    return { ...this.lost, usage: { ...this.lost.usage } };
  }

  private summaryOf(worker: string): WorkerSummary {
    let s = this.summaries.get(worker);
    if (!s) {
      s = { id: worker, forks: 0, modelCalls: 0, lostAttempts: 0 };
      this.summaries.set(worker, s);
    }
    return s;
  }

  /** The job's current run ended without a result: what it spent goes to the lost attempts and to its worker's line. */
  private loseAttempt(p: Pending): void {
    const a = p.attempt;
    if (!a) return;
    delete p.attempt;
    const lost = this.lost;
    if (!p.lostBefore) lost.forks++;
    p.lostBefore = true;
    lost.attempts++;
    lost.modelCalls += a.calls.length + a.callsInFlight;
    lost.unknownCalls += a.callsInFlight;
    lost.toolCalls += a.toolCalls;
    lost.usage = sumUsage([lost.usage, ...a.calls]);
    // Priced call by call, as the run's cost is (a price may depend on a call's size).
    const price = this.o.price;
    if (price) lost.costUsd = (lost.costUsd ?? 0) + costOfCalls(a.calls, price);
    const s = this.summaryOf(a.worker);
    s.lostAttempts++;
    s.modelCalls += a.calls.length + a.callsInFlight;
  }

  /** Each worker that finished or runs a fork of this run: its finished count and the task ids it runs now. */
  workersNow(): WorkerNow[] {
    const now = new Map<string, WorkerNow>();
    for (const s of this.summaries.values()) now.set(s.id, { id: s.id, forks: s.forks, running: [] });
    for (const p of this.pending.values()) {
      if (p.worker === undefined || !p.taken) continue;
      const w = now.get(p.worker) ?? { id: p.worker, forks: 0, running: [] };
      w.running.push(p.taskId);
      now.set(w.id, w);
    }
    return [...now.values()];
  }

  /** Stops listening and disconnects. Forks still pending end cancelled (their jobs stay in the queue). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearTimeout(timer);
      this.depthGauge?.removeCallback(this.observeDepth);
      for (const jobId of [...this.pending.keys()]) {
        const p = this.pending.get(jobId) as Pending;
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
      const s = this.summaryOf(ret.worker.id);
      s.forks++;
      s.modelCalls += result.calls.length;
      s.prefixFetches = Math.max(s.prefixFetches ?? 0, ret.worker.prefixFetches);
      s.cpuMs = Math.max(s.cpuMs ?? 0, ret.worker.cpuMs);
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

  /**
   * Looks pending jobs up directly, a batch at a time (those looked at go to the back of the line):
   * a completion whose event was missed still settles its fork, and a job that is gone (Redis
   * restarted from an older snapshot, keys deleted) is enqueued again.
   */
  private async reconcile(): Promise<void> {
    if (this.reconciling) return;
    this.reconciling = true;
    try {
      const ids = [...this.pending.keys()].filter((id) => !this.attaching.has(id)).slice(0, RECONCILE_BATCH);
      const jobs = await Promise.all(ids.map((id) => Job.fromId(this.queue, id)));
      let lost = false;
      for (const [i, job] of jobs.entries()) {
        const jobId = ids[i] as string;
        if (job?.finishedOn) {
          this.settleFinished(jobId, job);
          continue;
        }
        const p = this.pending.get(jobId);
        if (!p) continue;
        if (!job && p.enqueued) lost = true;
        this.pending.delete(jobId);
        this.pending.set(jobId, p);
      }
      if (lost) await this.recover('some of its jobs are gone');
    } catch (err) {
      this.o.log(`queue: ${messageOf(err)}`);
    } finally {
      this.reconciling = false;
    }
  }

  /** The run record gone means Redis lost the run's data. A Redis that does not answer is left to the reconnection. */
  private async checkRunRecord(): Promise<void> {
    if (this.closing || this.recovering) return;
    let present: boolean;
    try {
      present = (await this.redis.exists(runKey(this.o.runId))) === 1;
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
    if (this.recovering || this.closing) return;
    this.recovering = true;
    const { o } = this;
    try {
      await storePrefix(this.redis, o.prefix, o.ttlSeconds);
      await storeRun(this.redis, o.runId, { version: RUN_RECORD_VERSION, prefixId: o.prefix.id, settings: o.settings }, o.ttlSeconds);
      const queued = [...this.pending].filter(([, p]) => p.enqueued);
      for (const [jobId, p] of queued) {
        if (p.cancelling) this.finish(jobId, emptyCancelled(p.taskId, "its job was lost with Redis's data while it was being cancelled"));
      }
      const again = queued.filter(([, p]) => !p.cancelling);
      for (let i = 0; i < again.length; i += RECONCILE_BATCH) {
        await Promise.all(again.slice(i, i + RECONCILE_BATCH).map(([jobId, p]) => this.enqueue(jobId, p.data)));
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

/** A job BullMQ failed: the worker threw (no prefix, a bad task) or it stalled past the limit (its workers died). */
function failedJob(taskId: string, reason: string): ForkResult {
  const stalled = /stalled/i.test(reason);
  return emptyFailure(taskId, stalled ? 'worker_crash' : 'error', stalled ? `the workers running this fork died: ${reason}` : `the worker could not run this fork: ${reason}`);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
