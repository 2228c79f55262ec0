import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import { PriceTableSchema, type PriceTable } from '../model/prices.js';
import type { CachePlan, PlanInput } from '../model/plan.js';
import { findProvider, providerKindList, providerUsage, resolvePlan } from '../model/providers/index.js';
import { GEMINI_MIN_CACHE_TOKENS } from '../model/providers/gemini.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../model/types.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { ParentSession } from '../shapes/registry.js';
import type { Tool } from '../tools/define.js';
import type { EngineCallGate, RateLimits } from './call-gate.js';
import type { ForkResult } from './thread-wire.js';

export type { BuiltInProviderOption, ProviderOption } from '../model/providers/options.js';
import type { ProviderOption } from '../model/providers/options.js';
import type { Context } from '@opentelemetry/api';

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
  /** The provider's minimum cacheable prefix, in tokens; default: the provider's documented one for the model (OpenAI 1024; Gemini 2048 for 2.5, 4096 for 3.x and 4). */
  minCacheTokens?: number;
  /** The provider caches in steps of this many tokens (OpenAI: 128); default: the provider's documented one, else 1. */
  cacheBlockTokens?: number;
  /**
   * How long after a response has begun its prefix can be read, ms (DeepSeek builds its cache in
   * seconds): warm-up waits this long more, and a parent-warm fan-out this long from its start.
   * Default: the provider's (DeepSeek 3000, others 0).
   */
  cacheBuildMs?: number;
  /** Anthropic: the TTL of the cache breakpoints forkpool places, '5m' (default; writes cost 1.25×) or '1h' (2×). */
  cacheTtl?: '5m' | '1h';
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
  /**
   * US dollars one fan-out may spend, at the model's price (`prices`, else forkpool's table): once
   * spent it stops as `maxTokens` does (kind "budget"), overshooting by at most the calls in flight.
   * A model without a price cannot be capped so: the fan-out is refused.
   */
  maxCost?: number;
  /** Prices and context windows of one's own, by model id (or id prefix), over forkpool's tables (src/model/prices.ts, src/model/context-windows.ts; docs/prices.md). */
  prices?: PriceTable;
  /** Recent events a run keeps for `events({ replay: true })`; default 1000. */
  eventReplayLimit?: number;
  /** OpenTelemetry: what the spans carry (spans and metrics go to the application's registered providers). */
  telemetry?: TelemetryOptions;
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
  /**
   * Called once per fork, the moment its result exists, with the task it ran: the same as calling
   * `run.onResult(listener)` before the run starts (what a run with `retainResults: false` needs).
   */
  onResult?: (result: ForkResult, task: ForkTask) => void;
  /**
   * OpenAI: the `prompt_cache_key` every fork request carries, so all forks route to the same
   * cache. Default: the prefix id. Pass the key an outside parent already uses, so the forks land
   * where the parent's cache is; null when that parent sends none (a key changes the routing, and
   * the forks would miss the parent's entry). Providers without such a key ignore it.
   */
  promptCacheKey?: string | null;
  /**
   * OpenAI's Responses API: the id of the parent's last response, stored by OpenAI (`store: true`).
   * With `cache: 'explicit'`, each fork whose seed holds the parent's conversation unchanged names
   * it (`previous_response_id`) and sends only its own items, plus the session's instructions, tools
   * and settings, which a named response does not carry over. Other shapes and caches ignore it.
   */
  storedResponse?: string;
  /**
   * Told when a fork's model response has begun, on every turn (turn 1: its first). Warm-up reads
   * the same moment; `forkpool worker` passes it on to the coordinator of a distributed run.
   */
  onResponseStart?: (taskId: string, turn: number) => void;
  /**
   * The gate every model call of this fan-out passes instead of the engine's own (its rate limits,
   * in-flight bound and retry budget): `forkpool worker` gives each job the gate of its run, whose
   * requests and tokens per minute and 429 back-off are shared through Redis by every worker.
   */
  callGate?: EngineCallGate;
  /**
   * Writes each fork's transcript as it goes, one JSON Lines file per task in `dir`
   * (`<task id>.jsonl`; src/transcript/format.ts): the prefix named by its id, then each message of
   * the fork's own with its usage. A completed fork can then be revived (`run.send`). `resume:
   * true`: a fork whose transcript exists continues from its last completed turn instead of
   * starting again (a run resumed after a crash). In a distributed run, the worker that runs a fork
   * writes its file: `dir` must be a folder every worker shares.
   */
  transcripts?: { dir: string; resume?: boolean };
  /**
   * OpenTelemetry: the context the fan-out's span goes under (default: the active one, when the
   * application registered a context manager) — an agent's or a tool call's span, say.
   */
  traceParent?: Context;
  /** OpenTelemetry: the agent whose conversation the forks continue, on each fork's span (`forkpool.parent_agent.id`). */
  parentAgentId?: string;
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
  minCacheTokens: GEMINI_MIN_CACHE_TOKENS,
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
  /** undefined: the provider's own (cacheRules). */
  minCacheTokens: number | undefined;
  cacheBlockTokens: number | undefined;
  cacheBuildMs: number | undefined;
  cacheTtl: '5m' | '1h';
  callTimeoutMs: number | undefined;
  retry: RetryPolicy | undefined;
  globalRetryBudget: number | undefined;
  rateLimit: RateLimits | undefined;
  resourceLimits: ResourceLimits | undefined;
  spawnTools: readonly string[];
  maxTokens: number | undefined;
  maxTokensPerFork: number | undefined;
  maxCost: number | undefined;
  prices: PriceTable;
  eventReplayLimit: number;
  telemetry: TelemetryOptions;
}

/** What the engine's spans carry beyond the conventions' defaults. */
export interface TelemetryOptions {
  /**
   * Prompts and completions on the spans, as the GenAI conventions' opt-in content attributes
   * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, a tool call's
   * arguments and result). Off by default: content may hold what a trace store must not.
   */
  captureContent?: boolean;
}

const KNOWN = [
  'provider', 'threads', 'concurrency', 'tools', 'warmup', 'cache', 'maxTurns', 'timeoutMs', 'history', 'staggerCapMs',
  'minCacheTokens', 'cacheBlockTokens', 'cacheBuildMs', 'cacheTtl', 'callTimeoutMs', 'retry', 'globalRetryBudget', 'rateLimit', 'resourceLimits', 'spawnTools', 'maxTokens',
  'maxTokensPerFork', 'maxCost', 'prices', 'eventReplayLimit', 'telemetry',
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
  const threads = integer('threads', options.threads, 1) ?? Math.min(availableParallelism(), MAX_THREADS);
  if (threads > MAX_THREADS) throw new RangeError(`ForkEngine: options.threads must be at most ${MAX_THREADS}, got ${threads}`);
  const retry = options.retry === undefined ? undefined : resolveRetry(record('retry', options.retry, ['maxAttempts', 'baseDelayMs', 'maxDelayMs', 'forkBudget']));
  const rateLimit = options.rateLimit === undefined ? undefined : record('rateLimit', options.rateLimit, ['requestsPerMinute', 'tokensPerMinute']);
  return {
    provider: resolveProvider(options.provider),
    threads,
    concurrency: integer('concurrency', options.concurrency, 1) ?? d.concurrency,
    tools: list('tools', options.tools, (tool) => typeof tool === 'object' && tool !== null, 'tools made with defineTool'),
    warmup: oneOf('warmup', options.warmup, ['auto', 'none'] as const) ?? d.warmup,
    cache: oneOf('cache', options.cache, ['implicit', 'explicit', 'off'] as const) ?? d.cache,
    maxTurns: integer('maxTurns', options.maxTurns, 1) ?? d.maxTurns,
    timeoutMs: integer('timeoutMs', options.timeoutMs, 1, MAX_TIMER_MS),
    history: oneOf('history', options.history, ['inherit', 'completed-turns'] as const) ?? d.history,
    staggerCapMs: integer('staggerCapMs', options.staggerCapMs, 0, MAX_TIMER_MS) ?? d.staggerCapMs,
    minCacheTokens: integer('minCacheTokens', options.minCacheTokens, 0),
    cacheBlockTokens: integer('cacheBlockTokens', options.cacheBlockTokens, 1),
    cacheBuildMs: integer('cacheBuildMs', options.cacheBuildMs, 0, MAX_TIMER_MS),
    cacheTtl: oneOf('cacheTtl', options.cacheTtl, ['5m', '1h'] as const) ?? '5m',
    callTimeoutMs: integer('callTimeoutMs', options.callTimeoutMs, 1, MAX_TIMER_MS),
    retry,
    globalRetryBudget: integer('globalRetryBudget', options.globalRetryBudget, 0),
    rateLimit:
      rateLimit === undefined
        ? undefined
        : {
            ...optional('requestsPerMinute', integer('rateLimit.requestsPerMinute', rateLimit.requestsPerMinute, 1)),
            ...optional('tokensPerMinute', integer('rateLimit.tokensPerMinute', rateLimit.tokensPerMinute, 1)),
          },
    resourceLimits: options.resourceLimits === undefined ? undefined : (record('resourceLimits', options.resourceLimits, RESOURCE_LIMIT_KEYS) as ResourceLimits),
    spawnTools: list('spawnTools', options.spawnTools, (name) => typeof name === 'string' && name !== '', 'tool names'),
    maxTokens: integer('maxTokens', options.maxTokens, 1),
    maxTokensPerFork: integer('maxTokensPerFork', options.maxTokensPerFork, 1),
    maxCost: positive('maxCost', options.maxCost),
    prices: options.prices === undefined ? {} : priceTable(options.prices),
    eventReplayLimit: integer('eventReplayLimit', options.eventReplayLimit, 0) ?? d.eventReplayLimit,
    telemetry: resolveTelemetry(options.telemetry),
  };
}

function resolveTelemetry(telemetry: TelemetryOptions | undefined): TelemetryOptions {
  if (telemetry === undefined) return {};
  const { captureContent } = record('telemetry', telemetry, ['captureContent']);
  if (captureContent !== undefined && typeof captureContent !== 'boolean') throw new TypeError(`ForkEngine: options.telemetry.captureContent must be true or false, got ${JSON.stringify(captureContent)}`);
  return captureContent === true ? { captureContent } : {};
}

function resolveRetry(retry: Partial<RetryPolicy>): RetryPolicy {
  const out: RetryPolicy = {
    maxAttempts: integer('retry.maxAttempts', retry.maxAttempts, 1) ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: integer('retry.baseDelayMs', retry.baseDelayMs, 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: integer('retry.maxDelayMs', retry.maxDelayMs, 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.maxDelayMs,
  };
  if (out.baseDelayMs > out.maxDelayMs) {
    throw new RangeError(`ForkEngine: options.retry.baseDelayMs (${out.baseDelayMs}) must not exceed options.retry.maxDelayMs (${out.maxDelayMs})`);
  }
  const forkBudget = integer('retry.forkBudget', retry.forkBudget, 0);
  return forkBudget === undefined ? out : { ...out, forkBudget };
}

/** Node clamps a longer timer to 1 ms: a bound past this would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

const RESOURCE_LIMIT_KEYS = ['maxYoungGenerationSizeMb', 'maxOldGenerationSizeMb', 'codeRangeSizeMb', 'stackSizeMb'];

function integer(name: string, value: unknown, min: 0 | 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new TypeError(`ForkEngine: options.${name} must be a number, got ${typeof value}`);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`ForkEngine: options.${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got ${value}`);
  }
  if (value > max) throw new RangeError(`ForkEngine: options.${name} must be at most ${max}, got ${value}`);
  return value;
}

function positive(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`ForkEngine: options.${name} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Prices by model: each entry as PriceTableSchema says, the first wrong one named. */
function priceTable(value: unknown): PriceTable {
  const parsed = PriceTableSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
  throw new TypeError(`ForkEngine: options.prices${at}: ${issue?.message ?? 'is not a price table'} (by model: { input, cachedInput, cacheWrite?, cacheWrite1h?, output } in USD per million tokens, tiers?, cacheStoragePerHour?, contextWindow?: docs/prices.md)`);
}

/** A plain object with only the given keys (a misspelt nested option is an error, not ignored). */
function record<T>(name: string, value: T, keys: readonly string[]): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`ForkEngine: options.${name} must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new TypeError(`ForkEngine: options.${name}.${key} is not an option (known: ${keys.join(', ')})`);
  }
  return value;
}

function list<T>(name: string, value: readonly T[] | undefined, ok: (item: unknown) => boolean, what: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(ok)) throw new TypeError(`ForkEngine: options.${name} must be an array of ${what}`);
  return value;
}

/** The provider, checked against its module's keys: a mistyped one must never fall through to the simulator. */
function resolveProvider(provider: unknown): ProviderOption {
  const choices = providerUsage;
  if (provider === undefined) throw new TypeError(`ForkEngine: options.provider is required: ${choices()}`);
  if (provider === null || typeof provider !== 'object' || Array.isArray(provider)) record('provider', provider, []);
  const given = provider as Record<string, unknown>;
  const module = typeof given.kind === 'string' ? findProvider(given.kind) : undefined;
  if (module === undefined) {
    throw new TypeError(`ForkEngine: options.provider.kind must be ${providerKindList()}, got ${JSON.stringify(given.kind)}: ${choices()}`);
  }
  record('provider', given, ['kind', ...(given.module !== undefined ? ['module'] : []), ...module.optionKeys, ...(module.flagKeys ?? []), ...(module.objectKeys ?? [])]);
  for (const key of module.optionKeys) {
    if (given[key] !== undefined && (typeof given[key] !== 'string' || given[key] === '')) {
      throw new TypeError(`ForkEngine: options.provider.${key} must be a non-empty string`);
    }
  }
  for (const key of module.flagKeys ?? []) {
    if (given[key] !== undefined && typeof given[key] !== 'boolean') {
      throw new TypeError(`ForkEngine: options.provider.${key} must be true or false, got ${JSON.stringify(given[key])}`);
    }
  }
  module.checkOption?.(given);
  return given as ProviderOption;
}

/** The provider's cache plan for a session under these options: the engine's, and the bench's own runners'. */
export function planOf(options: ResolvedOptions, session: Readonly<ParentSession>, run: Pick<PlanInput, 'cacheKey' | 'role' | 'parentWarm' | 'storedResponse'>): CachePlan {
  return resolvePlan(options.provider.kind, {
    session,
    cache: options.cache,
    cacheTtl: options.cacheTtl,
    warmup: options.warmup,
    overrides: { minCacheTokens: options.minCacheTokens, cacheBlockTokens: options.cacheBlockTokens, cacheBuildMs: options.cacheBuildMs },
    ...run,
  });
}

/** Checks a fan-out's own options. */
export function checkFanOutOptions(options: FanOutOptions): FanOutOptions {
  const o = record('fanOut', options, ['parentWarm', 'retainResults', 'promptCacheKey', 'storedResponse', 'onResponseStart', 'onResult', 'callGate', 'transcripts', 'traceParent', 'parentAgentId']);
  if (o.traceParent !== undefined && (o.traceParent === null || typeof (o.traceParent as { getValue?: unknown }).getValue !== 'function')) {
    throw new TypeError('ForkEngine.fanOut: options.traceParent must be an OpenTelemetry Context');
  }
  if (o.parentAgentId !== undefined && (typeof o.parentAgentId !== 'string' || o.parentAgentId === '')) {
    throw new TypeError('ForkEngine.fanOut: options.parentAgentId must be a non-empty string');
  }
  const t = o.transcripts as { dir?: unknown; resume?: unknown } | null | undefined;
  if (t !== undefined) {
    if (t === null || typeof t !== 'object' || typeof t.dir !== 'string' || t.dir === '') throw new TypeError('ForkEngine.fanOut: options.transcripts.dir must be a folder (a non-empty string)');
    if (t.resume !== undefined && typeof t.resume !== 'boolean') throw new TypeError('ForkEngine.fanOut: options.transcripts.resume must be true or false');
    const extra = Object.keys(t).filter((k) => k !== 'dir' && k !== 'resume');
    if (extra.length > 0) throw new TypeError(`ForkEngine.fanOut: options.transcripts has no option ${JSON.stringify(extra[0])} (it takes dir and resume)`);
  }
  for (const key of ['parentWarm', 'retainResults'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') throw new TypeError(`ForkEngine.fanOut: options.${key} must be true or false`);
  }
  if (o.storedResponse !== undefined && (typeof o.storedResponse !== 'string' || o.storedResponse === '')) {
    throw new TypeError('ForkEngine.fanOut: options.storedResponse must be a response id (a non-empty string)');
  }
  if (o.promptCacheKey !== undefined && o.promptCacheKey !== null && (typeof o.promptCacheKey !== 'string' || o.promptCacheKey === '')) {
    throw new TypeError('ForkEngine.fanOut: options.promptCacheKey must be a non-empty string, or null for none');
  }
  for (const key of ['onResponseStart', 'onResult'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') throw new TypeError(`ForkEngine.fanOut: options.${key} must be a function`);
  }
  const gate = o.callGate as Partial<EngineCallGate> | null | undefined;
  if (gate !== undefined && (gate === null || typeof gate.acquire !== 'function' || typeof gate.release !== 'function')) {
    throw new TypeError('ForkEngine.fanOut: options.callGate must have acquire(tokens, signal) and release(status, wantsRetry)');
  }
  return o;
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
