/**
 * Everything that crosses the thread boundary between the main thread and a fork's thread: the
 * fork's job (Piscina's task) and the messages on its channel. Plain data only: classes and thrown
 * errors do not survive structured clone.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CachePlan } from '../model/plan.js';
import type { AttemptStatus, ProviderConfig, RetryPolicy } from '../model/types.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { ToolCall, ToolOutcome } from '../tools/host.js';
import type { WorkerEvent } from '../result/fork-events.js';
import type { TranscriptTarget } from '../transcript/target.js';

// What a fork reports is public (runFork's onEvent): declared in a public module.
export type { WorkerEvent } from '../result/fork-events.js';

export interface ForkJob {
  task: ForkTask;
  prefix: { id: string; buffer: SharedArrayBuffer; byteLength: number };
  /** The prefix's token estimate, for tokens-per-minute admission of the first call. */
  prefixTokens: number;
  /** Where the model is reached (keys by environment variable where the caller gave none). */
  provider: ProviderConfig;
  history: HistoryMode;
  /** Tools that start agents: redacted in a mid-turn seed (execution is refused on the main thread). */
  spawnTools: string[];
  maxTurns: number;
  timeoutMs: number | undefined;
  /** The engine's retry policy (options.retry): its forkBudget is the retries this fork may spend over all its model calls. */
  retry: RetryPolicy | undefined;
  /** Tokens (prompt + output, as the provider counts them) this fork may spend (a task's own maxTokens wins); past them it stops before its next call. */
  maxTokensPerFork: number | undefined;
  /** The longest a tool call may take on the main thread; past it (plus a grace) the host counts as gone. */
  toolTimeoutMs: number;
  /** The run's cache plan: how each request of the fork is decorated (the provider's, resolved once for the run). */
  plan: CachePlan;
  /**
   * A response whose request the fork's first call is compared with by the provider's cache
   * diagnostics (GenerateOptions.previousResponseId): its window's first fork's, or the parent's
   * stored response (OpenAI's Responses API). With Anthropic, that request must itself have sent
   * `diagnostics` (null included); with OpenAI, it must have completed. Absent: the first call names none.
   */
  previousResponseId?: string;
  /** Its transcript: the worker reports each message for it, and continues from it when asked. */
  transcript?: TranscriptTarget;
  /**
   * The fork's span as the application's propagator writes it (W3C `traceparent`, …), for a fork
   * that runs in another process: what it records there joins the run's trace. Absent when nothing
   * is traced.
   */
  traceContext?: Record<string, string>;
  /** Each model call's report carries what it sent and received (TelemetryOptions.captureContent). */
  captureContent?: true;
  /** The fork's channel to the main thread: ForkMessages one way, HostMessages the other. */
  link: ForkLink;
}

/**
 * Where a fork's channel runs: its id on the channel of the pool thread that runs it (src/wire/mux.ts),
 * or a port of its own (a distributed run's dispatcher, which plays the fork's end in the main
 * thread's process).
 */
export type ForkLink = { fork: number } | { port: MessagePort };

/*
 * The messages of a fork's channel: plain structured-clone messages both ways, in order (a fork's
 * share of its thread's channel, or a port of its own). The fork's result is the last message it sends, so everything it reported before
 * reaches the main thread first without any drain or flush.
 */

/** What the fork asks of the main thread and waits for: each call's arguments and its answer. */
export interface HostCalls {
  /** Runs one tool call with the main thread's tool host. */
  execTool: { args: { call: ToolCall }; answer: ToolOutcome };
  /** The engine's call gate: admission before a model call attempt (false: admitted nothing). */
  acquire: { args: { tokens: number }; answer: boolean };
  /** An attempt's slot given back with a retry asked for: whether the run allows it. */
  release: { args: { status: AttemptStatus }; answer: boolean };
  /**
   * The fork is about to end: the parent's messages sent from now on are not delivered (send says
   * so). The answer comes after every message sent before it, so the fork has them all by then.
   */
  closing: { args: Record<string, never>; answer: true };
}

export type HostMethod = keyof HostCalls;

/** A call of the fork's to the main thread, by method; `id` pairs it with its answer. */
export type CallMessage = { [M in HostMethod]: { type: 'call'; id: number; method: M } & HostCalls[M]['args'] }[HostMethod];

/** Fork → main thread. */
export type ForkMessage =
  | CallMessage
  /** A progress event: needs no answer. */
  | { type: 'event'; event: WorkerEvent }
  /** A call's slot given back when no retry is asked for (so there is nothing to answer). */
  | { type: 'release'; status: AttemptStatus }
  /** After `closing`, a message that had arrived gives the fork another turn: it reads messages again. */
  | { type: 'reopen' }
  /** The fork's result: the last message on its channel. */
  | { type: 'end'; result: ForkResult };

/** Main thread → fork. */
export type HostMessage =
  /** The answer to the fork's call `id`; `failed`: the main thread could not run it (the reason, in words). */
  | { type: 'answer'; id: number; value: HostCalls[HostMethod]['answer'] }
  | { type: 'answer'; id: number; failed: string }
  /** Cancel now: the model call in flight is aborted. */
  | { type: 'cancel' }
  /** Stop before the next model call (what is in flight was already paid for): the run's token budget (`budget`) or cost cap (`cost`) is spent. */
  | { type: 'stop'; reason: StopReason }
  /** The parent's message to a running fork, for its next turn boundary (send_message). */
  | { type: 'message'; text: string };

export type StopReason = 'budget' | 'cost';
