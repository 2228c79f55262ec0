import { hostname } from 'node:os';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ROOT_CONTEXT, propagation, trace, type Context } from '@opentelemetry/api';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { createCallGate, type CallGate } from '../engine/call-gate.js';
import { ForkEngine, type ForkEngineOptions } from '../engine/engine.js';
import type { TranscriptTarget } from '../transcript/target.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { connectionOf, type QueueAddress } from './address.js';
import { connectRedis } from './redis.js';
import {
  CANCEL_CHANNEL,
  QUEUE_NAME,
  parseCancelMessage,
  parseJobData,
  type QueueJobData,
  type QueueJobReturn,
  type QueueProgress,
  type RunForkSettings,
  type WorkerFigures,
} from './redis-wire.js';
import { createSharedGate, type SharedGate } from './shared-gate.js';
import { fetchPrefix, fetchRun } from './store.js';

/** BullMQ's own default: a job whose worker has not renewed its lock for this long is taken over. */
export const DEFAULT_LOCK_MS = 30_000;

export interface QueueWorkerOptions {
  address: QueueAddress;
  /**
   * This process's engine: its provider (keys from its own environment, never from Redis),
   * threads, concurrency, tools and retries. Each run's fork settings come from the run record.
   */
  engine: ForkEngineOptions;
  /** Forks this process runs at once (BullMQ's concurrency and the engine's). */
  concurrency: number;
  /** The job lock; a worker that dies holds its jobs this long (at most twice) before another takes them. */
  lockMs?: number;
  /** Default HOST:PID. */
  name?: string;
  /**
   * The folder under which this process writes the transcripts its jobs name (a folder the
   * coordinators share with it). Without it, none is written: a path comes from Redis, and
   * whoever can write jobs there must not choose which files a worker writes.
   */
  transcriptsRoot?: string;
  /** Lines for people (stderr). */
  log?: (line: string) => void;
}

export interface QueueWorker {
  readonly name: string;
  /** Takes no more jobs, lets the forks in flight finish and complete their jobs, then disconnects. */
  close(): Promise<void>;
}

/**
 * `forkpool worker`: takes fork jobs from the queue and runs each on this process's own engine
 * (one Piscina pool per distinct run setting). A prefix is fetched from Redis once per process,
 * when its first job arrives, and frozen into one SharedArrayBuffer that every fork of it shares.
 * A fork that fails is still a completed job (its result says how it failed); only a worker that
 * dies lets BullMQ deliver its jobs again, once their lock runs out.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const log = options.log ?? (() => undefined);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const lockMs = options.lockMs ?? DEFAULT_LOCK_MS;
  const redis = await connectRedis(options.address, (err) => log(`redis: ${err.message}`));
  const runner = new JobRunner(
    redis,
    options.engine,
    options.concurrency,
    name,
    log,
    options.transcriptsRoot === undefined ? undefined : resolve(options.transcriptsRoot),
  );
  // Cancels reach the forks this process runs (a coordinator's SIGINT, forkpool cancel).
  const subscriber = redis.duplicate();
  subscriber.on('error', (err) => log(`redis: ${err.message}`));
  subscriber.on('message', (_channel: string, text: string) => {
    const message = parseCancelMessage(text);
    if (message) runner.cancel(message.runId, message.taskId);
  });
  const worker = new Worker(QUEUE_NAME, (job: Job) => runner.run(job), {
    connection: connectionOf(options.address),
    concurrency: options.concurrency,
    lockDuration: lockMs,
    // Stalled jobs are looked for as often as a lock can run out: a dead worker's forks move on in at most about twice the lock.
    stalledInterval: lockMs,
    name,
    autorun: true,
  });
  worker.on('error', (err) => log(`queue: ${err.message}`));
  worker.on('failed', (job, err) => log(`fork job ${job?.id ?? '?'} failed: ${err.message}`));
  try {
    await subscriber.subscribe(CANCEL_CHANNEL);
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close(true).catch(() => undefined);
    await runner.close();
    subscriber.disconnect();
    redis.disconnect();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    name,
    close() {
      closing ??= (async () => {
        await worker.close();
        await runner.close();
        await subscriber.quit().catch(() => subscriber.disconnect());
        await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}

/** Runs fork jobs: prefixes and run records fetched once, engines made once per distinct fork settings. */
class JobRunner {
  private readonly prefixes = new Map<string, Promise<FrozenPrefix>>();
  private readonly runs = new Map<string, Promise<RunForkSettings>>();
  private readonly engines = new Map<string, Promise<ForkEngine>>();
  /** The shared rate limit of each run that has one (its window and 429 back-off in Redis). */
  private readonly gates = new Map<string, SharedGate>();
  /** This process's own in-flight bound and retry budget, under every run's shared gate. */
  private localGate: CallGate | undefined;
  /**
   * The forks running here. One task may run here twice at once: its job lost with Redis's data
   * and enqueued again by its coordinator while the first run of it goes on.
   */
  private readonly active = new Set<{ runId: string; taskId: string; cancel: () => void }>();
  private prefixFetches = 0;

  constructor(
    private readonly redis: Redis,
    private readonly base: ForkEngineOptions,
    private readonly concurrency: number,
    private readonly name: string,
    private readonly log: (line: string) => void,
    private readonly transcriptsRoot: string | undefined,
  ) {}

  async run(job: Job): Promise<QueueJobReturn> {
    const data = parseJobData(job.data);
    const [prefix, settings] = await Promise.all([this.prefix(data.prefixId), this.settings(data.runId, data.prefixId)]);
    const engine = await this.engine(settings);
    this.log(`fork ${JSON.stringify(data.task.id)} of run ${data.runId}: started`);
    const updates: Promise<unknown>[] = [];
    const progress = (event: QueueProgress): void => {
      // Lost progress only costs warm-up time or budget accuracy: never the fork.
      updates.push(job.updateProgress(event).catch(() => undefined));
    };
    progress({ type: 'taken', worker: this.name });
    const gate = this.gate(data.runId, settings);
    // One fork, not a fan-out of one: the run's scheduling, warm-up and accounting are the coordinator's.
    const single = engine.runFork(prefix, data.task, {
      // The coordinator's plan: every worker decorates the run's requests alike.
      ...(data.plan ? { plan: data.plan } : {}),
      // The run's rate limit, shared with every worker through Redis, instead of this engine's own.
      ...(gate ? { callGate: gate } : {}),
      // The coordinator names where this fork's transcript goes; this process writes it, under its own root only.
      ...((await this.transcriptOf(data)) ?? {}),
      ...(traceParentOf(data) ?? {}),
      // A worker that dies mid-call leaves its last count: calls paid for whose usage the coordinator never learns.
      onCallsInFlight: (inFlight) => progress({ type: 'calls', inFlight }),
      onEvent: (event) => {
        // The coordinator releases the other forks of a run when its lead's first response begins; its
        // model-call spans and metrics are made from the turns and failed calls reported here.
        if (event.type === 'turn' || event.type === 'call_failed' || (event.type === 'response_start' && event.turn === 1)) progress(event);
      },
    });
    const fork = { runId: data.runId, taskId: data.task.id, cancel: single.cancel };
    this.active.add(fork);
    const result = await single.result.finally(() => this.active.delete(fork));
    await Promise.all(updates);
    this.log(`fork ${JSON.stringify(data.task.id)} of run ${data.runId}: ${result.status}`);
    return { result, worker: this.figures() };
  }

  /** The job's transcript, when this process may write it: a `.jsonl` file under its --transcripts-root. */
  private async transcriptOf(data: QueueJobData): Promise<{ transcript: TranscriptTarget } | undefined> {
    const target = data.transcript;
    if (target === undefined) return undefined;
    const root = this.transcriptsRoot;
    if (root !== undefined && target.path.endsWith('.jsonl') && (await isUnder(root, target.path))) return { transcript: target };
    this.log(
      `fork ${JSON.stringify(data.task.id)} of run ${data.runId}: its transcript ${target.path} is not written: ${root === undefined ? 'this worker has no --transcripts-root' : `it is not a .jsonl file under --transcripts-root ${root}`}`,
    );
    return undefined;
  }

  /** Cancels the forks of a run running here (or the one task): each ends cancelled, and its job completes with that result. */
  cancel(runId: string, taskId: string | undefined): void {
    for (const fork of this.active) {
      if (fork.runId !== runId || (taskId !== undefined && fork.taskId !== taskId)) continue;
      this.log(`fork ${JSON.stringify(fork.taskId)} of run ${runId}: cancel received`);
      fork.cancel();
    }
  }

  async close(): Promise<void> {
    const engines = await Promise.allSettled(this.engines.values());
    await Promise.all(engines.map((e) => (e.status === 'fulfilled' ? e.value.close() : undefined)));
  }

  private figures(): WorkerFigures {
    const cpu = process.cpuUsage();
    return { id: this.name, prefixFetches: this.prefixFetches, cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
  }

  /** Once per process per prefix: concurrent first jobs share the one fetch; a failed fetch is tried again by the next job. */
  private prefix(prefixId: string): Promise<FrozenPrefix> {
    let prefix = this.prefixes.get(prefixId);
    if (!prefix) {
      prefix = fetchPrefix(this.redis, prefixId);
      this.prefixes.set(prefixId, prefix);
      prefix.then(
        () => {
          this.prefixFetches++;
          this.log(`prefix ${prefixId.slice(0, 12)} fetched`);
        },
        () => this.prefixes.delete(prefixId),
      );
    }
    return prefix;
  }

  private settings(runId: string, prefixId: string): Promise<RunForkSettings> {
    let settings = this.runs.get(runId);
    if (!settings) {
      settings = fetchRun(this.redis, runId).then((record) => {
        if (record.prefixId !== prefixId)
          throw new Error(`run ${runId} is of prefix ${record.prefixId.slice(0, 12)}, not ${prefixId.slice(0, 12)}`);
        return record.settings;
      });
      this.runs.set(runId, settings);
      settings.catch(() => this.runs.delete(runId));
    }
    return settings;
  }

  /**
   * The run's shared gate, made once per run. Under it, one local gate for the whole process: the
   * adaptive in-flight bound (this process's concurrency), its own --rpm/--tpm if it was given some,
   * and its retry budget.
   */
  private gate(runId: string, settings: RunForkSettings): SharedGate | undefined {
    if (!settings.rateLimit) return undefined;
    let gate = this.gates.get(runId);
    if (!gate) {
      this.localGate ??= createCallGate({
        maxInFlight: this.concurrency,
        ...this.base.rateLimit,
        ...(this.base.globalRetryBudget !== undefined ? { globalRetryBudget: this.base.globalRetryBudget } : {}),
      });
      gate = createSharedGate({ redis: this.redis, runId, limits: settings.rateLimit, local: this.localGate, log: this.log });
      this.gates.set(runId, gate);
    }
    return gate;
  }

  private engine(settings: RunForkSettings): Promise<ForkEngine> {
    // The rate limit is the fan-out's gate (per run), not the engine's: runs that differ only in it share an engine.
    const { rateLimit: _shared, ...engineSettings } = settings;
    const key = JSON.stringify(engineSettings);
    let engine = this.engines.get(key);
    if (!engine) {
      // The record's settings are engine options under their own names (RunForkSettingsSchema).
      engine = ForkEngine.create({ ...this.base, ...engineSettings });
      this.engines.set(key, engine);
      engine.catch(() => this.engines.delete(key));
    }
    return engine;
  }
}

/**
 * The coordinator's fork span, read with this process's propagator: its tool spans go under it. A
 * context it cannot read (no propagator registered here, another format) gives none, not tool spans
 * that each start a trace of their own.
 */
function traceParentOf(data: QueueJobData): { traceParent: Context } | undefined {
  if (data.traceContext === undefined) return undefined;
  const traceParent = propagation.extract(ROOT_CONTEXT, data.traceContext);
  return trace.getSpanContext(traceParent) === undefined ? undefined : { traceParent };
}

/**
 * A path is under a folder when it is so as written (no `..`) and where its nearest existing folder
 * really is (a symbolic link inside the root may not lead out of it; the file itself is opened
 * without following one).
 */
async function isUnder(root: string, path: string): Promise<boolean> {
  const inside = (base: string, p: string): boolean => {
    const rel = relative(base, p);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  if (!inside(root, path)) return false;
  const realRoot = await realpath(root).catch(() => undefined);
  if (realRoot === undefined) return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const real = await realpath(dir).catch(() => undefined);
    if (real !== undefined) return real === realRoot || inside(realRoot, real);
    if (dirname(dir) === dir) return false;
  }
}
