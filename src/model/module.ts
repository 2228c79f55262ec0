import type { SessionFormat } from '../shapes/registry.js';
import type { CachePlan, PlanInput } from './plan.js';
import type { CacheOutcome, ModelProvider, ModelRequest, ProviderConfig, RetryPolicy } from './types.js';

/*
 * A provider is one module: how it is named and reached, the shapes its API takes, its cache plan
 * and its model client. The registry (providers/index.ts) maps a descriptor's kind to its module;
 * nothing outside src/model asks which provider it is.
 */

/** What every descriptor may carry besides the provider's own options. */
export interface ConnectCommon {
  callTimeoutMs?: number;
  retry?: RetryPolicy;
}

/** An explicit cache's client (Gemini's cachedContents): made before a run, deleted after it. */
export interface ExplicitCacheClient {
  /** What of a request the cache would hold (Gemini's holds no sampling settings: each request sends its own). */
  held(request: ModelRequest): ModelRequest;
  /** Makes a cache holding `request` (what held() gave), for ttlSeconds. */
  createCache(request: ModelRequest, ttlSeconds: number, signal: AbortSignal): Promise<CacheOutcome>;
  /** Best effort: an expired cache is already gone, and its TTL bounds a leaked one. */
  deleteCache(name: string): Promise<void>;
}

export interface ProviderModule {
  readonly kind: string;
  /** The session shapes its API takes. */
  readonly shapes: readonly SessionFormat[];
  /** The keys its `options.provider` takes besides `kind` (each a non-empty string). */
  readonly optionKeys: readonly string[];
  /** Keys it takes as true or false. */
  readonly flagKeys?: readonly string[];
  /** Keys it takes as objects (checkOption checks them). */
  readonly objectKeys?: readonly string[];
  /** How it is given, for the error that lists every provider. */
  readonly usage: string;
  /** Checks an option further than its keys (one it cannot go without): a TypeError naming `options.provider.<key>`. */
  checkOption?(option: Readonly<Record<string, unknown>>): void;
  /**
   * The descriptor that crosses to worker threads and other machines, from the checked option. A key
   * or base URL it cannot go without is a TypeError now, not a failure per fork; `stop` ends what
   * it started (the built-in simulator).
   */
  connect(
    option: Readonly<Record<string, unknown>>,
    common: ConnectCommon,
  ): Promise<{ config: ProviderConfig; stop?: () => Promise<void> }>;
  /** Everything provider-specific about a run's cache, resolved once. */
  plan(input: PlanInput): CachePlan;
  /** A model client on this thread for one shape (a shape it does not speak never reaches it). */
  client(config: ProviderConfig, shape: SessionFormat): ModelProvider;
  /** Explicit caches, for the providers that have them. */
  explicitCaches?(config: ProviderConfig): ExplicitCacheClient;
  /** Loads on this thread what its client's first call would (its SDK), for threads started ahead of their first fork. */
  preload?(config: ProviderConfig): Promise<void>;
}
