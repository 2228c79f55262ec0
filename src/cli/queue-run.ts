import { randomBytes } from 'node:crypto';
import { ForkEngine } from '../engine/engine.js';
import type { ForkEngineOptions } from '../engine/options.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { workerCommandOf, type QueueAddress } from '../queue/address.js';
import type { RunReport } from '../engine/report.js';
import { priceOf } from '../model/prices.js';
import { addCached, billedTokens } from '../model/types.js';
import type { LostAttempts, WorkerSummary } from '../queue/attempt-ledger.js';
import type { QueueDispatcher } from '../queue/dispatcher.js';
import { runForkSettingsOf } from '../queue/redis-wire.js';
import type { CliIo } from './io.js';
import { queueFlagOf } from './queue-flag.js';
import { UsageError } from './usage-error.js';

/** The lead fork's job may wait for a worker to start: warm-up gives it this long (from its enqueue) before releasing the rest. */
const QUEUE_STAGGER_CAP_MS = 30_000;

/** Flags that belong to each worker in a distributed run: the coordinator runs no fork and calls no model. */
// --rpm and --tpm are not among them: they go into the run record, one limit for every worker together (src/queue/shared-gate.ts).
const WORKER_ONLY = [
  'threads',
  'workspace',
  'tools',
  'base-url',
  'api-key-env',
  'call-timeout-ms',
  'max-attempts',
  'retry-budget',
] as const;

/** `run --queue`: the address, checked with the flags that cannot go with it, before anything runs (undefined: a run on this machine). */
export function queueAddressOf(
  values: Record<string, unknown> & { queue?: string; 'redis-password-env'?: string },
  env: NodeJS.ProcessEnv,
): QueueAddress | undefined {
  if (values.queue === undefined) {
    if (values['redis-password-env'] !== undefined)
      throw new UsageError("--redis-password-env: only with --queue (the distributed run's Redis)");
    return undefined;
  }
  for (const flag of WORKER_ONLY) {
    if (values[flag] !== undefined) {
      throw new UsageError(
        `--${flag} goes to each forkpool worker in a distributed run (--queue): the coordinator runs no fork and calls no model`,
      );
    }
  }
  if (values.cache === 'explicit') throw new UsageError('--cache explicit is not available with --queue yet (use implicit or off)');
  return queueFlagOf(values, env, 'run');
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
  const settings = runForkSettingsOf(options);
  const log = (line: string): void => void io.stderr.write(`forkpool: ${line}\n`);
  // BullMQ is loaded only by the commands that use it (it costs every CLI start about 130 ms).
  const { QueueDispatcher } = await import('../queue/dispatcher.js');
  // The run's price, as the engine finds it: what the attempts lost with dead workers cost.
  const price = options.provider === undefined ? undefined : priceOf(options.provider.kind, prefix.session.model, options.prices);
  const dispatcher = await QueueDispatcher.open({
    address,
    runId,
    prefix,
    settings,
    attach,
    log,
    ...(price !== undefined ? { price } : {}),
  });
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
    log(
      `distributed run ${runId} on ${address.display}: ${forks} fork${forks === 1 ? '' : 's'} for the workers (${workerCommandOf(address)})`,
    );
    return { engine, dispatcher, runId, label: `distributed on ${address.display} (run ${runId})` };
  } catch (err) {
    await dispatcher.close();
    throw err;
  }
}

/**
 * The run's report with the attempts lost with dead workers in its totals: their calls (those in
 * flight when their worker died among them), tool calls and tokens. Its cost and token budget
 * already hold them (the engine counted each call as it returned).
 */
export function withLostAttempts(report: RunReport, lost: LostAttempts): RunReport {
  if (lost.attempts === 0) return report;
  const promptTokens = report.promptTokens + lost.usage.promptTokens;
  const cachedTokens = addCached(report.cachedTokens, lost.usage.cachedTokens);
  return {
    ...report,
    modelCalls: report.modelCalls + lost.modelCalls,
    toolCalls: report.toolCalls + lost.toolCalls,
    promptTokens,
    cachedTokens,
    outputTokens: report.outputTokens + lost.usage.outputTokens,
    hitRate: cachedTokens === null ? null : promptTokens > 0 ? cachedTokens / promptTokens : 0,
  };
}

/** What the JSON and stream-json summaries add for a distributed run: its id, its workers, and what the attempts lost with dead workers spent. */
export function queueSummaryFields(queue: QueueRun): { runId: string; workers: WorkerSummary[]; lostAttempts?: LostAttempts } {
  const lost = queue.dispatcher.lostAttempts();
  return { runId: queue.runId, workers: queue.dispatcher.workers(), ...(lost.attempts > 0 ? { lostAttempts: lost } : {}) };
}

/** The per-worker lines of the text summary, and the line of the attempts lost with dead workers. */
export function workersText(workers: readonly WorkerSummary[], lost: LostAttempts): string {
  const lines =
    workers.length === 0 ? ['workers    none took a fork'] : [`workers    ${workers.length} process${workers.length === 1 ? '' : 'es'}`];
  const width = Math.max(0, ...workers.map((w) => w.id.length));
  for (const w of workers) {
    const figures =
      w.prefixFetches !== undefined && w.cpuMs !== undefined
        ? ` · prefix fetches ${w.prefixFetches} · cpu ${(w.cpuMs / 1000).toFixed(2)} s`
        : '';
    const lostText = w.lostAttempts > 0 ? ` · ${plural(w.lostAttempts, 'attempt')} lost (its job's lock ran out: it died or stalled)` : '';
    lines.push(`worker     ${w.id.padEnd(width)}  ${plural(w.forks, 'fork')} · ${plural(w.modelCalls, 'model call')}${figures}${lostText}`);
  }
  if (lost.attempts > 0) lines.push(`lost       ${lostAttemptsText(lost)}`);
  return lines.join('\n');
}

/** "attempts lost to dead workers: 2 forks, 41 k tokens, …": what the run paid for that is in no fork's result. */
function lostAttemptsText(lost: LostAttempts): string {
  const answered = lost.modelCalls - lost.unknownCalls;
  const parts = [
    `${plural(lost.forks, 'fork')}${lost.attempts !== lost.forks ? ` (${lost.attempts} attempts)` : ''}`,
    `${tokensText(billedTokens(lost.usage))} tokens`,
    `${plural(answered, 'model call')}${lost.unknownCalls > 0 ? ` and ${lost.unknownCalls} of unknown usage (in flight when the worker died)` : ''}`,
    plural(lost.toolCalls, 'tool call'),
    ...(lost.costUsd !== undefined ? [`$${lost.costUsd >= 0.01 ? lost.costUsd.toFixed(2) : lost.costUsd.toPrecision(4)}`] : []),
  ];
  return `attempts lost to dead workers: ${parts.join(', ')} (in the totals above; each fork's result is its last attempt's)`;
}

/** 41 k, 1.2 M: tokens at a glance; below a thousand, as they are. */
function tokensText(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${n < 10_000 ? (n / 1_000).toFixed(1) : Math.round(n / 1_000)} k`;
  return `${(n / 1_000_000).toFixed(1)} M`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
