import { createAnthropicCache, type AnthropicCache, type AnthropicCacheOptions } from './anthropic/cache.js';
import type { AnthropicRouteKind } from './anthropic/routes.js';
import { createExplicitCacheStore, type ExplicitCacheStore } from './gemini/explicit-cache.js';
import { createFaultInjector, type FaultInjector, type FaultSpec } from './core/faults.js';
import { resolveLatency, type LatencyModel, type LatencyPreset } from './core/latency.js';
import { createMetrics, type LocalServerMetrics, type MetricsRecorder } from './core/metrics.js';
import { isUsagePreset, USAGE_PRESETS, type UsagePreset } from './openai/cache-presets.js';
import { createChatCache, type ChatCache } from './openai/cache.js';
import { createPrefixCache, type PrefixCache, type PrefixCacheConfig } from './core/prefix-cache.js';
import { createPrefixMemo, type PrefixMemo } from './core/prefix-memo.js';
import { DEFAULT_CACHE_CONFIG } from './gemini/cache-rules.js';
import type { OpenAIRouteKind } from './openai/routes.js';
import { createResponseStore, type ResponseStore } from './responses/store.js';
import type { RouteKind } from './gemini/routes.js';

export interface LocalServerOptions {
  /** 0 (default): any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 'zero'. */
  latency?: LatencyPreset | LatencyModel;
  /** The Gemini routes' prefix cache. */
  cache?: Partial<PrefixCacheConfig>;
  /**
   * Which provider the OpenAI Chat Completions routes simulate: the usage field names and the
   * prompt cache's rules (minimum, block, TTL, build delay; DashScope's explicit markers). Default 'openai'.
   */
  usage?: UsagePreset;
  /** Overrides of the `usage` preset's prefix cache parameters (e.g. `{ buildDelayMs: 0 }` in tests). */
  openaiCache?: Partial<PrefixCacheConfig>;
  /** The Anthropic Messages route's prompt cache: `minTokens` overrides the per-model minimum cacheable prompt (tests). */
  anthropicCache?: AnthropicCacheOptions;
  /** Rates per kind + seed, or the string form ("429=0.1,drop=0.01,seed=7"). */
  faults?: FaultSpec | string;
  /**
   * When set, requests must carry this key: Gemini's x-goog-api-key header or ?key= (401 without, 403
   * when wrong), OpenAI's Bearer token, Anthropic's x-api-key or Bearer token (401 without or wrong).
   */
  requireApiKey?: string;
  /** Default 32 MiB; larger bodies get 413. */
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request (headers and body), else 408 and the socket is closed. Default 300 000 (Node's). */
  requestTimeoutMs?: number;
  /** Keep every request's raw body in `requests`. */
  captureRequests?: boolean;
}

export interface CapturedRequest {
  route: RouteKind | OpenAIRouteKind | AnthropicRouteKind | 'unknown';
  /** Model named by the URL (or by a cachedContents.create, chat completions, responses or messages body); '' when none. */
  model: string;
  /** The raw request body. */
  body: string;
}

/** Everything a request handler needs; one per server. */
export interface ServerState {
  cache: PrefixCache;
  explicit: ExplicitCacheStore;
  /** The Chat Completions routes' cache, by the `usage` preset. */
  chat: ChatCache;
  /** The Messages route's prompt cache (entries at cache_control breakpoints). */
  anthropic: AnthropicCache;
  /** The Responses route's stored responses (previous_response_id). */
  responses: ResponseStore;
  /** What every dialect remembers of the prompts it hashed, by the bytes they were sent as (bounded: core/prefix-memo.ts). */
  prompts: PrefixMemo;
  latency: LatencyModel;
  faults: FaultInjector;
  metrics: MetricsRecorder;
  /** Attempts per identical request, for the scripted FAIL command. */
  failAttempts: Map<string, number>;
  nextResponse: () => number;
}

export function createState(options: LocalServerOptions, faults: FaultSpec | undefined): ServerState {
  const config: PrefixCacheConfig = { ...DEFAULT_CACHE_CONFIG, ...options.cache };
  checkCacheConfig('cache', config);
  const usage = options.usage ?? 'openai';
  if (!isUsagePreset(usage)) throw new Error(`local server: usage must be one of ${USAGE_PRESETS.join(', ')} (got ${String(usage)})`);
  checkCacheConfig('openaiCache', { ...options.openaiCache });
  checkCacheConfig('anthropicCache', { ...options.anthropicCache });
  let serial = 0;
  return {
    cache: createPrefixCache(config),
    chat: createChatCache(usage, options.openaiCache),
    anthropic: createAnthropicCache(options.anthropicCache),
    responses: createResponseStore(),
    explicit: createExplicitCacheStore(config.minTokens, config.blockTokens),
    prompts: createPrefixMemo(),
    latency: resolveLatency(options.latency),
    faults: createFaultInjector(faults),
    metrics: createMetrics(),
    failAttempts: new Map(),
    nextResponse: () => ++serial,
  };
}

function checkCacheConfig(option: string, config: Partial<PrefixCacheConfig>): void {
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'number' || !(value >= 0) || (key === 'blockTokens' && !(value >= 1))) {
      throw new Error(`local server: ${option}.${key} must be a ${key === 'blockTokens' ? 'positive' : 'non-negative'} number`);
    }
  }
}

export function metricsOf(state: ServerState): LocalServerMetrics {
  const { cache, chat } = state;
  return state.metrics.snapshot({
    cacheEntries: cache.entries() + chat.implicit.entries() + chat.unitEntries(),
    cacheTokens: cache.entries() * cache.config.blockTokens + chat.implicit.entries() * chat.implicit.config.blockTokens,
    evictions: cache.evictions() + chat.implicit.evictions(),
    explicitCaches: state.explicit.size() + chat.explicitEntries() + state.anthropic.entries(),
  });
}
