/**
 * Everything that crosses the thread boundary between the engine and a fork worker.
 * Plain data only: classes and thrown errors do not survive structured clone.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CachePlan } from '../model/plan.js';
import type { AttemptStatus, ProviderConfig, RetryPolicy } from '../model/types.js';
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
  /** The fork's channel to the main thread: Comlink calls one way, a cancel message the other. */
  port: MessagePort;
}

/** The main thread's side of a fork's channel, called by the worker through Comlink. */
export interface ForkHostApi {
  execTool(call: ToolCall): Promise<ToolOutcome>;
  report(event: WorkerEvent): void;
  /** The engine's call gate: admission before each model call attempt, and its outcome after. */
  acquireCall(tokens: number): Promise<boolean>;
  releaseCall(status: AttemptStatus, wantsRetry: boolean): boolean | Promise<boolean>;
  /** Answers once every message sent before it on this channel has been handled. */
  flush(): void;
  /**
   * The fork is about to end: the parent's messages sent from now on are not delivered (send says
   * so). The answer comes after every message sent before it, so the worker has them all by then.
   */
  closing(): void;
}

/*
 * One-way messages on a fork's channel, beside Comlink's calls (whose expose ignores them): what
 * needs no answer costs one message, not a call and its reply. One port keeps them in order with
 * the calls, so `flush` still answers after every earlier event.
 */

export const EVENT_MESSAGE = 'forkpool:event';
/** Worker → main: a progress event. */
export interface EventMessage {
  type: typeof EVENT_MESSAGE;
  event: WorkerEvent;
}

export const RELEASE_MESSAGE = 'forkpool:release';
/** Worker → main: a call's slot given back when no retry is asked for (so there is nothing to answer). */
export interface ReleaseMessage {
  type: typeof RELEASE_MESSAGE;
  status: AttemptStatus;
}

export const REOPEN_MESSAGE = 'forkpool:reopen';
/** Worker → main: after `closing`, a message that had arrived gives the fork another turn: it reads messages again. */
export interface ReopenMessage {
  type: typeof REOPEN_MESSAGE;
}

/** A one-way message from a worker, by its type. */
export function oneWayMessage(value: unknown): EventMessage | ReleaseMessage | ReopenMessage | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return type === EVENT_MESSAGE || type === RELEASE_MESSAGE || type === REOPEN_MESSAGE ? (value as EventMessage | ReleaseMessage | ReopenMessage) : undefined;
}

export const CANCEL_MESSAGE = 'forkpool:cancel';
/** Cancel now: the model call in flight is aborted. */
export interface CancelMessage {
  type: typeof CANCEL_MESSAGE;
}

export function isCancelMessage(value: unknown): value is CancelMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === CANCEL_MESSAGE;
}

export const PARENT_MESSAGE = 'forkpool:parent-message';
/** Main → worker: the parent's message to a running fork, for its next turn boundary (send_message). */
export interface ParentMessage {
  type: typeof PARENT_MESSAGE;
  text: string;
}

export function isParentMessage(value: unknown): value is ParentMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === PARENT_MESSAGE && typeof (value as { text?: unknown }).text === 'string';
}

export const STOP_MESSAGE = 'forkpool:stop';
/** Stop before the next model call (what is in flight was already paid for): the run's token budget (`budget`) or cost cap (`cost`) is spent. */
export interface StopMessage {
  type: typeof STOP_MESSAGE;
  reason: 'budget' | 'cost';
}

export function isStopMessage(value: unknown): value is StopMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === STOP_MESSAGE;
}
