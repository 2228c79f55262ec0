import { within } from '../input/within.js';
import { existsSync } from 'node:fs';
import type { Piscina } from 'piscina';
import { TRANSCRIPT_VERSION } from '../transcript/format.js';
import { openTranscript, type TranscriptWriter } from '../transcript/writer.js';
import type { AttemptStatus } from '../model/types.js';
import type { ForkTask } from '../session/schema.js';
import type { ToolCall, ToolHost, ToolOutcome } from '../tools/host.js';
import type { EngineCallGate } from './call-gate.js';
import { openForkChannel, type ForkChannel } from './host-end.js';
import { openLink } from './thread-channels.js';
import { emptyFailure } from '../result/results.js';
import type { ForkJob, WorkerEvent } from '../wire/protocol.js';
import type { ForkResult } from '../result/fork-result.js';

/**
 * Where forks go: the engine's Piscina pool, or anything that takes a fork job the same way (src/queue
 * hands each job to a BullMQ queue). The job's result comes back on its channel; what `run` settles
 * with says only whether the job's thread died.
 */
export type ForkPool = Pick<Piscina, 'run' | 'close'>;

/** What every fork of a run is started with: the pool, the tools and the gate, and the job's run-wide part. */
export interface ForkStart {
  pool: ForkPool;
  host: ToolHost;
  gate: EngineCallGate;
  declaredTools: ReadonlySet<string>;
  spawnTools: ReadonlySet<string>;
  /**
   * This process writes the transcripts its forks' jobs name (false where the pool hands jobs to
   * other processes: the worker that runs a fork writes its transcript).
   */
  writesTranscripts: boolean;
  /** The job without its task and link: the prefix, the plan, the provider and the bounds. */
  job: Omit<ForkJob, 'task' | 'link'>;
}

export interface ForkHooks {
  /** false once no more model calls may start (a run's budget is spent). */
  admit(): boolean;
  onEvent(event: WorkerEvent): void;
  /** `startedAt`: when the call began (epoch ms); it has just ended. */
  onToolCall(call: ToolCall, outcome: ToolOutcome, startedAt: number): void;
  /** An attempt that did not succeed (a 429, a failure), and whether a retry was asked for. */
  onAttempt?(status: Exclude<AttemptStatus, 'ok'>, wantsRetry: boolean): void;
}

export interface StartedFork {
  channel: ForkChannel;
  /** The worker's result; a worker that died is a `worker_crash` failure. Never rejects. */
  result: Promise<ForkResult>;
}

/**
 * One fork on the pool: its channel to this thread's tools and gate, its job, and its result. The
 * one path every fork takes, a fan-out's or a single one's (ForkEngine.runFork); the channel is
 * closed once the result is in.
 */
export function startFork(start: ForkStart, task: ForkTask, hooks: ForkHooks): StartedFork {
  const target = start.job.transcript;
  // Decided where the file is written (a distributed run's coordinator passes the target on as it is):
  // a fork to resume that never wrote a transcript starts afresh; one to revive must have one (its
  // worker fails naming the file), and nothing is written for it then.
  const exists = target?.continueFrom !== undefined && start.writesTranscripts && existsSync(target.path);
  const continuing = target?.continueFrom === 'message' || (target?.continueFrom === 'crash' && (exists || !start.writesTranscripts));
  const writes = target !== undefined && start.writesTranscripts && (target.continueFrom !== 'message' || exists);
  const transcript = writes ? openTranscriptOf(start, task, continuing) : undefined;
  const opened = openLink(start.pool);
  const channel = openForkChannel({
    port: opened.end,
    host: start.host,
    gate: start.gate,
    policy: {
      forkId: task.id,
      declaredTools: start.declaredTools,
      spawnTools: start.spawnTools,
      ...(task.subagentType !== undefined ? { subagentType: task.subagentType } : {}),
      ...(task.tools !== undefined ? { allowedTools: task.tools } : {}),
    },
    admit: hooks.admit,
    onEvent: (event) => {
      if (event.type === 'transcript') transcript?.write(event.entry);
      hooks.onEvent(event);
    },
    onToolCall: hooks.onToolCall,
    ...(hooks.onAttempt !== undefined ? { onAttempt: hooks.onAttempt } : {}),
  });
  const job: ForkJob = {
    ...start.job,
    ...(target !== undefined ? { transcript: continuing ? target : { path: target.path } } : {}),
    task,
    link: opened.link,
  };
  const ran = (
    opened.transferList ? start.pool.run(job, { transferList: opened.transferList as never }) : start.pool.run(job)
  ) as Promise<unknown>;
  const result = resultOf(channel, ran, task)
    .then(async (r) => {
      if (transcript !== undefined) {
        transcript.write({
          type: 'end',
          status: r.status,
          turns: r.turns,
          ...(r.status !== 'completed' ? { error: r.error } : {}),
          at: new Date().toISOString(),
        });
        // The result is reported once its transcript is whole (what reads one after the other finds
        // both), but not later than a file system that hangs allows.
        await closeWithin(transcript, TRANSCRIPT_CLOSE_MS);
      }
      return r;
    })
    .finally(() => channel.close());
  return { channel, result };
}

/**
 * How long a fork's result may trail its job's end: it was posted on the fork's channel before the
 * job returned, so it is already on its way; past this the thread lost it.
 */
const RESULT_AFTER_JOB_MS = 30_000;

/**
 * The fork's result, from its channel (where it follows every event the fork reported). The pool's
 * own verdict only says whether the job's thread died, and when a channel closed without a result, how.
 */
async function resultOf(channel: ForkChannel, ran: Promise<unknown>, task: ForkTask): Promise<ForkResult> {
  const job = ran.then(
    () => ({ died: false as const }),
    (err: unknown) => ({ died: true as const, err }),
  );
  const first = await Promise.race([channel.result.then((result) => ({ result })), job]);
  if ('result' in first && first.result !== undefined) return first.result;
  const verdict = 'died' in first ? first : await job;
  if (verdict.died) return crashResult(task, verdict.err);
  const late = await within(RESULT_AFTER_JOB_MS, channel.result);
  return late ?? emptyFailure(task.id, 'worker_crash', "the fork's thread ended its job without sending its result");
}

/** How long a fork's result waits for its transcript's last writes. */
const TRANSCRIPT_CLOSE_MS = 10_000;

async function closeWithin(transcript: TranscriptWriter, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      process.emitWarning(
        `a transcript's last writes took longer than ${ms} ms; the fork's result is reported without waiting for them`,
        'ForkpoolWarning',
      );
      resolve();
    }, ms);
  });
  await Promise.race([transcript.close(), late]);
  clearTimeout(timer);
}

/**
 * A fork's transcript, opened with its header (a fresh start) or to be added to (it continues: the
 * worker reads it first, then reports its `resumed` line, so that it never reads its own marker).
 */
function openTranscriptOf(start: ForkStart, task: ForkTask, continuing: boolean): TranscriptWriter | undefined {
  const target = start.job.transcript;
  if (target === undefined) return undefined;
  const writer = openTranscript(target.path, continuing ? 'append' : 'fresh');
  if (!continuing)
    writer.write({
      type: 'header',
      version: TRANSCRIPT_VERSION,
      taskId: task.id,
      prefixId: start.job.prefix.id,
      format: start.job.plan.shape,
      task,
      at: new Date().toISOString(),
    });
  return writer;
}

function crashResult(task: ForkTask, err: unknown): ForkResult {
  const message = err instanceof Error ? err.message : String(err);
  return emptyFailure(task.id, 'worker_crash', `the worker running this fork died: ${message}`);
}
