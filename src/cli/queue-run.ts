import { randomBytes } from 'node:crypto';
import { ForkEngine } from '../engine/engine.js';
import type { ForkEngineOptions } from '../engine/options.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { QueueAddress } from '../queue/address.js';
import type { QueueDispatcher, WorkerSummary } from '../queue/dispatcher.js';
import type { RunForkSettings } from '../queue/redis-wire.js';
import type { CliIo } from './io.js';
import { queueFlagOf } from './queue-flag.js';
import { UsageError } from './usage-error.js';

/** The lead fork's job may wait for a worker to start: warm-up gives it this long (from its enqueue) before releasing the rest. */
const QUEUE_STAGGER_CAP_MS = 30_000;

/** Flags that belong to each worker in a distributed run: the coordinator runs no fork and calls no model. */
// --rpm and --tpm are not among them: they go into the run record, one limit for every worker together (src/queue/shared-gate.ts).
const WORKER_ONLY = ['threads', 'workspace', 'tools', 'base-url', 'api-key-env', 'call-timeout-ms', 'max-attempts', 'retry-budget'] as const;

/** `run --queue`: the address, checked with the flags that cannot go with it, before anything runs. */
export function queueAddressOf(values: Record<string, unknown>): QueueAddress {
  for (const flag of WORKER_ONLY) {
    if (values[flag] !== undefined) {
      throw new UsageError(`--${flag} goes to each forkpool worker in a distributed run (--queue): the coordinator runs no fork and calls no model`);
    }
  }
  if (values.cache === 'explicit') throw new UsageError('--cache explicit is not available with --queue yet (use implicit or off)');
  return queueFlagOf(values.queue as string, 'run');
}

export interface QueueRun {
  engine: ForkEngine;
  dispatcher: QueueDispatcher;
  runId: string;
  /** What the summary names instead of a provider. */
  label: string;
}

/**
 * The coordinator of a distributed run: the prefix and the run's fork settings go to Redis, and an
 * engine whose forks are BullMQ jobs schedules them (warm-up included: the lead fork's job goes
 * alone, the rest once a worker reports that its first response began).
 */
/** A fresh run id: hex, so it fits in a job id (no '.', no ':'). */
export function newRunId(): string {
  return randomBytes(8).toString('hex');
}

/** Which run the coordinator drives: a fresh one, or (attach) one a resumed journal names, whose jobs may be in the queue. */
export interface QueueRunId {
  runId: string;
  attach: boolean;
}

export async function openQueueRun(
  address: QueueAddress,
  options: ForkEngineOptions,
  prefix: FrozenPrefix,
  forks: number,
  io: CliIo,
  { runId, attach }: QueueRunId,
): Promise<QueueRun> {
  const settings: RunForkSettings = {
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.history !== undefined ? { history: options.history } : {}),
    ...(options.cache === 'implicit' || options.cache === 'off' ? { cache: options.cache } : {}),
    ...(options.cacheTtl !== undefined ? { cacheTtl: options.cacheTtl } : {}),
    ...(options.maxTokensPerFork !== undefined ? { maxTokensPerFork: options.maxTokensPerFork } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
  };
  const log = (line: string): void => void io.stderr.write(`forkpool: ${line}\n`);
  // BullMQ is loaded only by the commands that use it (it costs every CLI start about 130 ms).
  const { QueueDispatcher } = await import('../queue/dispatcher.js');
  const dispatcher = await QueueDispatcher.open({ address, runId, prefix, settings, attach, log });
  try {
    const engine = await ForkEngine.createRemote(
      {
        ...options,
        // Forks in the queue at once: all of them unless --concurrency bounds it (each worker bounds its own).
        concurrency: options.concurrency ?? Math.max(1, forks),
        staggerCapMs: QUEUE_STAGGER_CAP_MS,
      },
      dispatcher,
    );
    if (attach) log(`re-attaching to distributed run ${runId}: forks whose jobs are still in the queue are collected, not enqueued again`);
    log(`distributed run ${runId} on ${address.display}: ${forks} fork${forks === 1 ? '' : 's'} for the workers (forkpool worker --queue ${address.display})`);
    return { engine, dispatcher, runId, label: `distributed on ${address.display} (run ${runId})` };
  } catch (err) {
    await dispatcher.close();
    throw err;
  }
}

/** The per-worker lines of the text summary. */
export function workersText(workers: readonly WorkerSummary[]): string {
  if (workers.length === 0) return 'workers    none finished a fork';
  const width = Math.max(...workers.map((w) => w.id.length));
  return [
    `workers    ${workers.length} process${workers.length === 1 ? '' : 'es'}`,
    ...workers.map(
      (w) =>
        `worker     ${w.id.padEnd(width)}  ${w.forks} fork${w.forks === 1 ? '' : 's'} · ${w.modelCalls} model call${w.modelCalls === 1 ? '' : 's'} · prefix fetches ${w.prefixFetches} · cpu ${(w.cpuMs / 1000).toFixed(2)} s`,
    ),
  ].join('\n');
}
