/**
 * What a distributed run puts in Redis, in one place. Keys are never in it: every worker reads
 * its own from its own environment.
 *
 * - `forkpool:prefix:<prefix id>`: the frozen prefix bytes, under their content address (sha256).
 * - `forkpool:run:<run id>`: the run record (the prefix id and the fork settings of the run).
 * - BullMQ's queue `forkpool`: one job per fork, id `<run id>.<task id, URI-encoded>`, data
 *   { runId, prefixId, task, plan, traceContext? }; its progress carries the fork's events, its return value the result.
 * - the pub/sub channel `forkpool:cancel`: { runId, taskId? }, to every coordinator and worker.
 * - `forkpool:rate:<run id>:{calls,tokens,backoff,strikes}`: the run's shared rate limit when its
 *   record has one (src/queue/shared-gate.ts): the model calls admitted in the last minute (a sorted
 *   set by time, each member ending in its tokens), their tokens, the time every worker backs off until
 *   after a 429, and the 429s of the last seconds (which lengthen that back-off).
 */
import { isAbsolute } from 'node:path';
import type { ForkResult } from '../result/fork-result.js';
import type { WorkerEvent } from '../result/fork-events.js';
import type { TranscriptTarget } from '../transcript/target.js';
import { z } from 'zod';
import { optionsOf } from '../engine/option-check.js';
import { EngineOptionsSchema } from '../engine/option-schema.js';
import type { ForkEngineOptions } from '../engine/options.js';
import type { ForkTask } from '../session/schema.js';
import type { CachePlan } from '../model/plan.js';
import type { TokenUsage } from '../model/types.js';
import { FINISH_REASONS, type Finish } from '../model/finish.js';

/** The BullMQ queue every coordinator and worker of a Redis database shares (runs are told apart by id). */
export const QUEUE_NAME = 'forkpool';
/** The name of every fork job. */
export const FORK_JOB = 'fork';

export const prefixKey = (prefixId: string): string => `forkpool:prefix:${prefixId}`;
export const runKey = (runId: string): string => `forkpool:run:${runId}`;
export const rateKey = (runId: string, part: 'calls' | 'tokens' | 'backoff' | 'strikes'): string => `forkpool:rate:${runId}:${part}`;

/**
 * The job id of a fork: deterministic from the run and the task, so enqueueing it again is a
 * no-op. BullMQ refuses ':' inside custom ids (and ids that are integers): the task id is
 * URI-encoded (':' becomes %3A) and follows the run id (hex, no '.') after a '.'.
 */
export function jobIdOf(runId: string, taskId: string): string {
  return `${runId}.${encodeURIComponent(taskId)}`;
}

/** A run id: hex (so no '.', no ':'), fresh for every run. */
export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{8,64}$/.test(value);
}

/** A fork job's data: the task, where its prefix and settings are, and the run's cache plan (no key: keys never enter Redis). */
export interface QueueJobData {
  runId: string;
  prefixId: string;
  task: ForkTask;
  /** The coordinator's cache plan, which the fork's requests follow (absent in jobs of an older coordinator). */
  plan?: CachePlan;
  /** The response the fork's first call names for the provider's cache diagnostics (ForkJob.previousResponseId). */
  previousResponseId?: string;
  /** Where the worker writes the fork's transcript (a path every worker shares), and whether it continues from it. */
  transcript?: TranscriptTarget;
  /** The coordinator's fork span as its propagator wrote it (ForkJob.traceContext): the worker's spans join the run's trace. */
  traceContext?: Record<string, string>;
}

/** Bounds on a job's trace context: W3C traceparent, tracestate (512 characters) and baggage (8192 bytes) fit. */
const TRACE_CONTEXT_MAX_FIELDS = 16;
const TRACE_CONTEXT_MAX_NAME = 64;
const TRACE_CONTEXT_MAX_VALUE = 8192;

const E = EngineOptionsSchema.shape;

/**
 * The fork settings of a run, which every worker applies to its forks (its own pool, provider and
 * tools aside): engine options, under the engine's names and checks, without their defaults (a
 * worker applies its own). `rateLimit`: model requests and tokens per minute for the whole run,
 * every worker together (`run --queue --rpm/--tpm`): each worker gives the run's forks a gate whose
 * window and 429 back-off live in Redis.
 */
const RunForkSettingsSchema = z.strictObject({
  maxTurns: E.maxTurns.unwrap().optional(),
  timeoutMs: E.timeoutMs,
  history: E.history.unwrap().optional(),
  // Explicit caches need a model call on the coordinator: not in a distributed run.
  cache: z.enum(['implicit', 'off']).optional(),
  cacheTtl: E.cacheTtl.unwrap().optional(),
  maxTokensPerFork: E.maxTokensPerFork,
  rateLimit: E.rateLimit,
});

export type RunForkSettings = z.output<typeof RunForkSettingsSchema>;

/** The run's fork settings: the coordinator's options that the record carries, under the same names. */
export function runForkSettingsOf(options: ForkEngineOptions): RunForkSettings {
  const given = options as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(RunForkSettingsSchema.shape)) if (given[key] !== undefined) settings[key] = given[key];
  // Explicit caches need a model call on the coordinator: refused before (queue-run.ts), never sent.
  if (settings.cache === 'explicit') delete settings.cache;
  return settings as RunForkSettings;
}

/** The version of the run record this forkpool writes and reads: coordinators and workers of another one are refused. */
export const RUN_RECORD_VERSION = 1;

export interface RunRecord {
  version: typeof RUN_RECORD_VERSION;
  prefixId: string;
  settings: RunForkSettings;
}

/** A job's progress: the fork's events, as a worker thread reports them to its engine. */
export type QueueProgress = Extract<WorkerEvent, { type: 'response_start' | 'turn' | 'call_failed' }> | TakenProgress | CallsProgress;

/** Sent first by the worker that took a job: who runs the fork (the coordinator's live page shows what each worker runs). */
interface TakenProgress {
  type: 'taken';
  worker: string;
}

/**
 * Sent as each model call of the fork starts and ends: the calls it has in flight. A worker that
 * dies leaves the last count behind: calls it paid for whose usage nobody will ever know.
 */
interface CallsProgress {
  type: 'calls';
  inFlight: number;
}

/** The figures of one worker process, as it was when it finished a fork (cumulative over the process). */
export interface WorkerFigures {
  /** `forkpool worker` names itself HOST:PID unless told otherwise. */
  id: string;
  /** Prefixes this process has fetched from Redis (once per prefix, whatever the number of forks). */
  prefixFetches: number;
  /** CPU time of the process, user + system, ms. */
  cpuMs: number;
}

/** A job's return value: the fork's result (a failed fork too) and who ran it. */
export interface QueueJobReturn {
  result: ForkResult;
  worker: WorkerFigures;
}

/** Where cancels go: every worker stops its forks of the run (or the one task), the run's coordinator cancels them too. */
export const CANCEL_CHANNEL = 'forkpool:cancel';

export interface CancelMessage {
  runId: string;
  /** Absent: every fork of the run. */
  taskId?: string;
}

export function parseCancelMessage(text: string): CancelMessage | undefined {
  try {
    const m = JSON.parse(text) as Partial<CancelMessage> | null;
    if (m === null || typeof m !== 'object' || !isRunId(m.runId)) return undefined;
    if (m.taskId !== undefined && typeof m.taskId !== 'string') return undefined;
    return m.taskId === undefined ? { runId: m.runId } : { runId: m.runId, taskId: m.taskId };
  } catch {
    return undefined;
  }
}

/** Checks a job's data as it comes out of Redis (the task itself is checked by the engine). */
export function parseJobData(value: unknown): QueueJobData {
  const data = value as Partial<QueueJobData> | null;
  if (
    data === null ||
    typeof data !== 'object' ||
    !isRunId(data.runId) ||
    typeof data.prefixId !== 'string' ||
    !/^[0-9a-f]{64}$/.test(data.prefixId)
  ) {
    throw new TypeError('the job is not a forkpool fork job (runId, prefixId, task)');
  }
  if (data.task === null || typeof data.task !== 'object') throw new TypeError('the fork job has no task');
  if (
    data.plan !== undefined &&
    (data.plan === null || typeof data.plan !== 'object' || typeof data.plan.provider !== 'string' || typeof data.plan.request !== 'object')
  ) {
    throw new TypeError("the fork job's cache plan is not one (provider, request, …)");
  }
  if (data.previousResponseId !== undefined && typeof data.previousResponseId !== 'string') {
    throw new TypeError("the fork job's previousResponseId is not a string");
  }
  const t = data.transcript as Partial<{ path: unknown; continueFrom: unknown; message: unknown }> | undefined;
  if (
    t !== undefined &&
    (t === null ||
      typeof t !== 'object' ||
      typeof t.path !== 'string' ||
      !isAbsolute(t.path) ||
      (t.continueFrom !== undefined && t.continueFrom !== 'crash' && !(t.continueFrom === 'message' && typeof t.message === 'string')))
  ) {
    throw new TypeError(
      "the fork job's transcript is not an absolute path with an optional continueFrom ('crash', or 'message' and its message)",
    );
  }
  // Only tracing is lost with a malformed trace context: what is malformed is dropped, the fork runs.
  const { traceContext, ...rest } = data as QueueJobData;
  const fields = traceContextOf(traceContext);
  return fields === undefined ? rest : { ...rest, traceContext: fields };
}

/** A propagator's fields: the well-formed ones (string names and values, none too long), at most a few; undefined when none is. */
function traceContextOf(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = Object.entries(value)
    .filter(
      (field): field is [string, string] =>
        field[0].length <= TRACE_CONTEXT_MAX_NAME && typeof field[1] === 'string' && field[1].length <= TRACE_CONTEXT_MAX_VALUE,
    )
    .slice(0, TRACE_CONTEXT_MAX_FIELDS);
  return fields.length > 0 ? Object.fromEntries(fields) : undefined;
}

/** The longest response model name taken from a worker (a model id; longer is not one). */
const MODEL_NAME_MAX = 200;
/** A worker's name longer than this is not one (HOST:PID, or --name). */
const WORKER_NAME_MAX = 200;

/**
 * A worker's progress event as the coordinator takes it: the fields it uses, checked, in a copy (no
 * content: a call's content never travels through Redis); undefined for anything else.
 */
export function parseQueueProgress(value: unknown): QueueProgress | undefined {
  const e = value as Record<string, unknown> | null;
  if (e === null || typeof e !== 'object') return undefined;
  if (e.type === 'taken')
    return typeof e.worker === 'string' && e.worker.length <= WORKER_NAME_MAX ? { type: 'taken', worker: e.worker } : undefined;
  if (e.type === 'calls')
    return Number.isSafeInteger(e.inFlight) && (e.inFlight as number) >= 0 ? { type: 'calls', inFlight: e.inFlight as number } : undefined;
  if (typeof e.turn !== 'number') return undefined;
  const time = (t: unknown): t is number => typeof t === 'number' && Number.isFinite(t);
  const times = time(e.startedAt) && time(e.endedAt) ? { startedAt: e.startedAt, endedAt: e.endedAt } : undefined;
  switch (e.type) {
    case 'response_start':
      return { type: 'response_start', turn: e.turn, ...(typeof e.responseId === 'string' ? { responseId: e.responseId } : {}) };
    case 'call_failed':
      if (times === undefined || typeof e.errorType !== 'string' || typeof e.message !== 'string') return undefined;
      return { type: 'call_failed', turn: e.turn, ...times, errorType: e.errorType.slice(0, 64), message: e.message };
    case 'turn': {
      if (typeof e.functionCalls !== 'number' || !isUsage(e.usage)) return undefined;
      return {
        type: 'turn',
        turn: e.turn,
        usage: e.usage,
        functionCalls: e.functionCalls,
        ...(times ?? {}),
        ...(isFinish(e.finish) ? { finish: { reason: e.finish.reason, raw: e.finish.raw.slice(0, 64) } } : {}),
        ...(typeof e.responseId === 'string' ? { responseId: e.responseId } : {}),
        ...(typeof e.responseModel === 'string' && e.responseModel.length <= MODEL_NAME_MAX ? { responseModel: e.responseModel } : {}),
      };
    }
    default:
      return undefined;
  }
}

function isFinish(value: unknown): value is Finish {
  const f = value as Partial<Finish> | null;
  return f !== null && typeof f === 'object' && typeof f.reason === 'string' && FINISH_REASONS.has(f.reason) && typeof f.raw === 'string';
}

function isUsage(value: unknown): value is TokenUsage {
  const u = value as Partial<TokenUsage> | null;
  const count = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  return (
    u !== null &&
    typeof u === 'object' &&
    count(u.promptTokens) &&
    count(u.outputTokens) &&
    (u.cachedTokens === null || count(u.cachedTokens))
  );
}

/** Checks a run record as it comes out of Redis: its version this forkpool's, its settings as the engine's schema says. */
export function parseRunRecord(text: string, runId: string): RunRecord {
  let record: Partial<RunRecord> | null;
  try {
    record = JSON.parse(text) as Partial<RunRecord> | null;
  } catch {
    throw new TypeError(`the record of run ${runId} is not JSON`);
  }
  if (record === null || typeof record !== 'object')
    throw new TypeError(`the record of run ${runId} is not a run record (version, prefixId, settings)`);
  if (record.version !== RUN_RECORD_VERSION) {
    throw new TypeError(
      `the record of run ${runId} is version ${JSON.stringify(record.version)}, and this forkpool reads version ${RUN_RECORD_VERSION}: run the coordinator and its workers on the same forkpool version`,
    );
  }
  if (typeof record.prefixId !== 'string') throw new TypeError(`the record of run ${runId} has no prefixId`);
  const settings = optionsOf(RunForkSettingsSchema, record.settings, {
    value: (p) => `the record of run ${runId}: settings${p.map((k) => `.${String(k)}`).join('')}`,
  });
  return { version: RUN_RECORD_VERSION, prefixId: record.prefixId, settings };
}

/** Checks a job's return value: a result of the job's own task, with the fields the report reads. */
export function parseJobReturn(value: unknown, taskId: string): QueueJobReturn {
  const ret = value as Partial<QueueJobReturn> | null;
  const result = ret?.result as Partial<ForkResult> | undefined;
  if (
    result === null ||
    typeof result !== 'object' ||
    !['completed', 'failed', 'cancelled'].includes(result.status as string) ||
    typeof result.usage !== 'object' ||
    !Array.isArray(result.calls)
  ) {
    throw new TypeError('the job returned no fork result');
  }
  if (result.id !== taskId) throw new TypeError(`the job returned the result of another task (${JSON.stringify(result.id)})`);
  const worker = ret?.worker;
  const figures: WorkerFigures =
    worker && typeof worker.id === 'string'
      ? { id: worker.id, prefixFetches: Number(worker.prefixFetches) || 0, cpuMs: Number(worker.cpuMs) || 0 }
      : { id: 'unknown', prefixFetches: 0, cpuMs: 0 };
  return { result: result as ForkResult, worker: figures };
}
