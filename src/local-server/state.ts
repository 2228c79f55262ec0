import { createExplicitCacheStore, type ExplicitCacheStore } from './explicit-cache.js';
import { createFaultInjector, type FaultInjector, type FaultSpec } from './faults.js';
import { resolveLatency, type LatencyModel, type LatencyPreset } from './latency.js';
import { createMetrics, type LocalServerMetrics, type MetricsRecorder } from './metrics.js';
import { createPrefixCache, DEFAULT_CACHE_CONFIG, type PrefixCache, type PrefixCacheConfig } from './prefix-cache.js';
import type { RouteKind } from './routes.js';

export interface LocalServerOptions {
  /** 0 (default): any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 'zero'. */
  latency?: LatencyPreset | LatencyModel;
  cache?: Partial<PrefixCacheConfig>;
  /** Rates per kind + seed, or the string form ("429=0.1,drop=0.01,seed=7"). */
  faults?: FaultSpec | string;
  /** When set, requests must carry this key (x-goog-api-key header or ?key=): 401 without, 403 when wrong. */
  requireApiKey?: string;
  /** Default 32 MiB; larger bodies get 413. */
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request (headers and body), else 408 and the socket is closed. Default 300 000 (Node's). */
  requestTimeoutMs?: number;
  /** Keep every request's raw body in `requests`. */
  captureRequests?: boolean;
}

export interface CapturedRequest {
  route: RouteKind | 'unknown';
  /** Model named by the URL (or by a cachedContents.create body); '' when none. */
  model: string;
  /** The raw request body. */
  body: string;
}

/** Everything a request handler needs; one per server. */
export interface ServerState {
  cache: PrefixCache;
  explicit: ExplicitCacheStore;
  latency: LatencyModel;
  faults: FaultInjector;
  metrics: MetricsRecorder;
  /** Attempts per identical request, for the scripted FAIL command. */
  failAttempts: Map<string, number>;
  nextResponse: () => number;
}

export function createState(options: LocalServerOptions, faults: FaultSpec | undefined): ServerState {
  const config: PrefixCacheConfig = { ...DEFAULT_CACHE_CONFIG, ...options.cache };
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'number' || !(value >= 0) || (key === 'blockTokens' && !(value >= 1))) {
      throw new Error(`local server: cache.${key} must be a ${key === 'blockTokens' ? 'positive' : 'non-negative'} number`);
    }
  }
  let serial = 0;
  return {
    cache: createPrefixCache(config),
    explicit: createExplicitCacheStore(config.minTokens),
    latency: resolveLatency(options.latency),
    faults: createFaultInjector(faults),
    metrics: createMetrics(),
    failAttempts: new Map(),
    nextResponse: () => ++serial,
  };
}

export function metricsOf(state: ServerState): LocalServerMetrics {
  return state.metrics.snapshot({
    cacheEntries: state.cache.entries(),
    blockTokens: state.cache.config.blockTokens,
    evictions: state.cache.evictions(),
    explicitCaches: state.explicit.size(),
  });
}
