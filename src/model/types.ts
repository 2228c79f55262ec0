import type { Failure } from '../failure.js';
import type { Content } from '../session/schema.js';

/** One model call, in Gemini's shapes. Prefix fields are the parent's, verbatim. */
export interface ModelRequest {
  model: string;
  systemInstruction?: unknown;
  tools?: readonly unknown[];
  toolConfig?: unknown;
  generationConfig?: Readonly<Record<string, unknown>>;
  contents: readonly Content[];
  /** Explicit cache name; the prefix fields above must then be absent (the API rejects both). */
  cachedContent?: string;
}

export interface TokenUsage {
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
}

type ModelErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'malformed';

/** A failed model call: the shared failure shape, plus what retries need. */
export interface ModelError extends Failure<ModelErrorKind> {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The server's own hint (Retry-After header or RetryInfo), in ms. */
  retryAfterMs?: number;
  /** Whether the same call may succeed when sent again. */
  retryable: boolean;
}

export type ModelOutcome =
  | { ok: true; content: Content; usage: TokenUsage; finishReason: string | undefined; attempts: number }
  | { ok: false; error: ModelError; attempts: number };

/** What an attempt came to, for the run-wide call gate. */
export type AttemptStatus = 'ok' | 'rate_limited' | 'failed';

/**
 * Admission for each attempt of a model call: rate limits, adaptive concurrency, retry budgets.
 * acquire resolves false when the wait was aborted; release says whether a retry may follow.
 */
export interface AttemptGate {
  acquire(tokens: number): Promise<boolean>;
  release(status: AttemptStatus, wantsRetry: boolean): Promise<boolean>;
}

export interface GenerateOptions {
  signal: AbortSignal;
  gate?: AttemptGate;
  /** About how many tokens the request holds (for tokens-per-minute limits). */
  tokenEstimate?: number;
  /** Called once, when the first bytes of the response arrive (prefill done). */
  onResponseStart?: () => void;
}

interface CacheHandle {
  name: string;
  /** Tokens the provider counted into the cache. */
  tokens: number;
}

export type CacheOutcome = { ok: true; cache: CacheHandle } | { ok: false; error: ModelError };

/** The narrow interface the engine needs from a model backend. */
export interface ModelProvider {
  generate(request: ModelRequest, options: GenerateOptions): Promise<ModelOutcome>;
  createCache(
    request: Omit<ModelRequest, 'cachedContent'>,
    ttlSeconds: number,
    signal: AbortSignal,
  ): Promise<CacheOutcome>;
  deleteCache(name: string): Promise<void>;
}

/** Serializable: crosses into worker threads. */
export interface ProviderConfig {
  kind: 'local' | 'gemini';
  baseUrl?: string;
  apiKey?: string;
  /** Per-attempt bound on one HTTP call, ms. */
  callTimeoutMs?: number;
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  /** Attempts per model call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Retries one fork may spend over all its calls; undefined = only maxAttempts bounds them. */
  forkBudget?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };
