/**
 * What a fork's run ends with, as the engine's callers read it: the result, its failure kinds, its
 * calls' usage, and why its first call missed the cache. Plain data: it crosses threads and
 * machines (the wire, the queue) as it is.
 */
import type { Failure } from '../input/failure.js';
import type { Finish } from '../model/finish.js';
import type { ResponseDiagnostics, TokenUsage } from '../model/types.js';
import type { ModelFailure } from './model-failure.js';

export type ForkStatus = 'completed' | 'failed' | 'cancelled';

export type FailureKind =
  | 'error'
  | 'model_error'
  | 'max_turns'
  | 'timeout'
  | 'output_schema'
  | 'rejected'
  | 'worker_crash'
  | 'host_gone'
  /** The fork spent its own token budget. */
  | 'budget';

/**
 * One model call's usage, kept so the report can compute the theoretical cache maximum; where the
 * provider gives them, its response id and the cache diagnostics of its prompt against the response
 * it named (the fork's previous call's, or for its first call the job's previousResponseId).
 */
export interface CallRecord extends TokenUsage, ResponseDiagnostics {
  /** For a fork's first call: the tokens its siblings of the same seed window share (estimated). */
  sharedTokens?: number;
  /** For a fork's first call: the tokens every fork of the prefix shares, whatever its window. */
  baseTokens?: number;
  /** For a fork's first call: the tokens the parent itself sent (prefix fields and its history as is). */
  parentTokens?: number;
  /** Set when the call named an explicit cache: the tokens that cache holds. */
  explicitTokens?: number;
  /** Why the model stopped this reply (the provider's word, normalized). */
  finish?: Finish;
  /** A call an earlier process made, read back from the fork's transcript (a resumed fork): counted in its result, not in this run's spend. */
  restored?: true;
}

/** Why a fork's first call was served less than its siblings share (cache-miss.ts finds it). */
export type CacheMissReason =
  /** Sent before any request carrying its prefix had been answered: nothing could be cached yet. */
  | 'cold-start'
  /** What it shares with the requests before it is shorter than the provider's minimum cacheable prompt. */
  | 'below-minimum'
  /** The first fork of a trimmed seed window: only the part every window shares had been sent before it. */
  | 'trimmed-window'
  /** The provider caches only where a request marks it, and this request marked nothing (the cache was off). */
  | 'no-breakpoint'
  /** The prefix went unused for longer than the provider keeps an entry. */
  | 'ttl'
  /** The provider said why (Anthropic's cache diagnostics, OpenAI's prompt cache diagnostics). */
  | 'provider'
  /** None of the above: the provider evicted the entry, served another cache shard, or had not built it yet. */
  | 'unexplained';

export interface CacheMiss {
  reason: CacheMissReason;
  /** Tokens of the shared prefix its first call was not served. */
  tokens: number;
  /** The reason in words, with the figures behind it. */
  detail: string;
}

interface ForkResultBase {
  id: string;
  text: string;
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
  /** What the fork's calls cost in US dollars, at the run's model price (absent without one). */
  costUsd?: number;
  /** Present when its first call was served less than its siblings share: how much, and why (the engine's main thread adds it). */
  cacheMiss?: CacheMiss;
  durationMs: number;
  /** Model calls that needed more than one attempt, summed over the fork. */
  retries: number;
  calls: CallRecord[];
  /**
   * Why the model stopped its last reply: a `completed` fork whose reply was cut (`length`,
   * `content_filter`, `refusal`, `error`) kept that reply's text, which is not a whole answer
   * (results.ts answerCut).
   */
  finish?: Finish;
  /**
   * Present when its requests named the parent's stored response (Responses API, explicit cache):
   * that response, and how many items of its own its first request sent instead of the conversation.
   */
  sent?: { storedResponse: string; items: number };
  /** Where the loop ran: the worker thread, and whether this fork had to decode the prefix. */
  worker: { threadId: number; decodedPrefix: boolean };
}

export type ForkResult =
  | (ForkResultBase & { status: 'completed'; output?: unknown })
  | (ForkResultBase & { status: 'failed'; error: ForkFailure })
  /** `budget`: the run's token budget or cost cap was spent, so the fork was stopped (queued, or at its next model call). */
  | (ForkResultBase & { status: 'cancelled'; error: Failure<CancelKind> });

export type CancelKind = 'cancelled' | 'budget';

/** Why a fork failed: its kind and message; a `model_error` also has the failed call's status, category and retry hint. */
export type ForkFailure = Failure<Exclude<FailureKind, 'model_error'>> | ModelFailure;
