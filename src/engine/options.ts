import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import { DEFAULT_RETRY, type RetryPolicy } from '../model/types.js';
import type { HistoryMode } from '../session/schema.js';
import type { Tool } from '../tools/define.js';
import type { RateLimits } from './call-gate.js';

export type ProviderOption =
  | { kind: 'local'; url?: string }
  | { kind: 'gemini'; apiKey?: string; baseUrl?: string };

export interface ForkEngineOptions {
  provider?: ProviderOption;
  /** Worker threads; default: the number of cores. */
  threads?: number;
  /** Forks in flight across the pool; default 64. */
  concurrency?: number;
  tools?: readonly Tool[];
  warmup?: 'auto' | 'none';
  cache?: 'implicit' | 'explicit' | 'off';
  maxTurns?: number;
  /** Per-fork bound, ms. */
  timeoutMs?: number;
  /** Which history forks start from when their task does not say: 'inherit' (default) or 'completed-turns'. */
  history?: HistoryMode;
  /** Warm-up releases the other forks after this long even without a first response; default 5000. */
  staggerCapMs?: number;
  /** The provider's minimum cacheable prefix, in tokens; default 1024. */
  minCacheTokens?: number;
  /** Per-attempt bound on one model HTTP call, ms. */
  callTimeoutMs?: number;
  /** Backoff and attempts per model call, and retries per fork (`forkBudget`). */
  retry?: Partial<RetryPolicy>;
  /** Retries the whole engine may spend, across forks. */
  globalRetryBudget?: number;
  /** Requests and tokens per minute across every fork of the engine. */
  rateLimit?: RateLimits;
  /** Worker thread limits (a worker over them dies and only its forks fail). */
  resourceLimits?: ResourceLimits;
  /** Extra tool names that would start an agent: refused in forks like `agent`. */
  spawnTools?: readonly string[];
  /**
   * Tokens (prompt + output, as the provider reports them) one fan-out may spend. Once spent,
   * queued forks end cancelled (kind "budget") and running forks end before their next model call.
   */
  maxTokens?: number;
  /** Tokens one fork may spend (a task's own `maxTokens` wins); past them it fails with kind "budget". */
  maxTokensPerFork?: number;
  /** Recent events a run keeps for `events({ replay: true })`; default 1000. */
  eventReplayLimit?: number;
}

export interface FanOutOptions {
  /** The parent has just sent this prefix (always so inside runParentAgent). */
  parentWarm?: boolean;
  /**
   * false: each result goes to `onResult` listeners and is then dropped, so memory stays flat
   * however many forks run; `results()` is unavailable and the report has totals, no per-fork rows.
   * Default true.
   */
  retainResults?: boolean;
}

/** Every worker starts at once with its own V8 heap; forks wait on the network, so concurrency scales instead. */
export const MAX_THREADS = 256;

/** The defaults, in one place: the engine, the CLI's help and the README read them from here. */
export const ENGINE_DEFAULTS = Object.freeze({
  concurrency: 64,
  warmup: 'auto',
  cache: 'implicit',
  maxTurns: 200,
  history: 'inherit',
  staggerCapMs: 5_000,
  minCacheTokens: 1024,
  eventReplayLimit: 1_000,
  maxAttempts: DEFAULT_RETRY.maxAttempts,
} as const);

export const DEFAULT_MAX_TURNS = ENGINE_DEFAULTS.maxTurns;

/** Every option with its value or its default, checked once. */
export interface ResolvedOptions {
  provider: ProviderOption;
  threads: number;
  concurrency: number;
  tools: readonly Tool[];
  warmup: 'auto' | 'none';
  cache: 'implicit' | 'explicit' | 'off';
  maxTurns: number;
  timeoutMs: number | undefined;
  history: HistoryMode;
  staggerCapMs: number;
  minCacheTokens: number;
  callTimeoutMs: number | undefined;
  retry: RetryPolicy | undefined;
  globalRetryBudget: number | undefined;
  rateLimit: RateLimits | undefined;
  resourceLimits: ResourceLimits | undefined;
  spawnTools: readonly string[];
  maxTokens: number | undefined;
  maxTokensPerFork: number | undefined;
  eventReplayLimit: number;
}

const KNOWN = [
  'provider', 'threads', 'concurrency', 'tools', 'warmup', 'cache', 'maxTurns', 'timeoutMs', 'history', 'staggerCapMs',
  'minCacheTokens', 'callTimeoutMs', 'retry', 'globalRetryBudget', 'rateLimit', 'resourceLimits', 'spawnTools', 'maxTokens',
  'maxTokensPerFork', 'eventReplayLimit',
];

/**
 * Checks every option once, as ForkEngine.create is called: a TypeError or RangeError naming
 * `options.x` and what it must be, never a failure later, per fork.
 */
export function resolveOptions(options: ForkEngineOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('ForkEngine: options must be an object');
  for (const key of Object.keys(options)) {
    if (key === 'seed') throw new TypeError('ForkEngine: options.seed is now called options.history ("inherit" or "completed-turns")');
    if (!KNOWN.includes(key)) throw new TypeError(`ForkEngine: options.${key} is not an option (known: ${KNOWN.join(', ')})`);
  }
  const d = ENGINE_DEFAULTS;
  const threads = integer('threads', options.threads, 1) ?? availableParallelism();
  if (threads > MAX_THREADS) throw new RangeError(`ForkEngine: options.threads must be at most ${MAX_THREADS}, got ${threads}`);
  const retry = options.retry === undefined ? undefined : resolveRetry(options.retry);
  return {
    provider: options.provider as ProviderOption,
    threads,
    concurrency: integer('concurrency', options.concurrency, 1) ?? d.concurrency,
    tools: options.tools ?? [],
    warmup: oneOf('warmup', options.warmup, ['auto', 'none'] as const) ?? d.warmup,
    cache: oneOf('cache', options.cache, ['implicit', 'explicit', 'off'] as const) ?? d.cache,
    maxTurns: integer('maxTurns', options.maxTurns, 1) ?? d.maxTurns,
    timeoutMs: integer('timeoutMs', options.timeoutMs, 1),
    history: oneOf('history', options.history, ['inherit', 'completed-turns'] as const) ?? d.history,
    staggerCapMs: integer('staggerCapMs', options.staggerCapMs, 0) ?? d.staggerCapMs,
    minCacheTokens: integer('minCacheTokens', options.minCacheTokens, 0) ?? d.minCacheTokens,
    callTimeoutMs: integer('callTimeoutMs', options.callTimeoutMs, 1),
    retry,
    globalRetryBudget: integer('globalRetryBudget', options.globalRetryBudget, 0),
    rateLimit:
      options.rateLimit === undefined
        ? undefined
        : {
            ...optional('requestsPerMinute', integer('rateLimit.requestsPerMinute', options.rateLimit.requestsPerMinute, 1)),
            ...optional('tokensPerMinute', integer('rateLimit.tokensPerMinute', options.rateLimit.tokensPerMinute, 1)),
          },
    resourceLimits: options.resourceLimits,
    spawnTools: options.spawnTools ?? [],
    maxTokens: integer('maxTokens', options.maxTokens, 1),
    maxTokensPerFork: integer('maxTokensPerFork', options.maxTokensPerFork, 1),
    eventReplayLimit: integer('eventReplayLimit', options.eventReplayLimit, 0) ?? d.eventReplayLimit,
  };
}

function resolveRetry(retry: Partial<RetryPolicy>): RetryPolicy {
  const out: RetryPolicy = {
    maxAttempts: integer('retry.maxAttempts', retry.maxAttempts, 1) ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: integer('retry.baseDelayMs', retry.baseDelayMs, 0) ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: integer('retry.maxDelayMs', retry.maxDelayMs, 0) ?? DEFAULT_RETRY.maxDelayMs,
  };
  const forkBudget = integer('retry.forkBudget', retry.forkBudget, 0);
  return forkBudget === undefined ? out : { ...out, forkBudget };
}

function integer(name: string, value: unknown, min: 0 | 1): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new TypeError(`ForkEngine: options.${name} must be a number, got ${typeof value}`);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`ForkEngine: options.${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got ${value}`);
  }
  return value;
}

function oneOf<const T extends readonly string[]>(name: string, value: unknown, allowed: T): T[number] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new TypeError(`ForkEngine: options.${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T[number];
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
