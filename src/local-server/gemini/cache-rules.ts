import type { PrefixCacheConfig } from '../core/prefix-cache.js';

/**
 * Gemini's context cache rules as the simulator applies them: its own copy, not the client's
 * (src/model, src/engine). The page cited is "Context caching",
 * https://ai.google.dev/gemini-api/docs/caching (below: "the page"). The simulator applies one
 * minimum to every model (a server started with `cache: { minTokens }` takes another); the page
 * gives one per model, and its table has changed over time (see `minTokens`).
 */

/** The implicit cache of the Gemini routes, and the minimum of cachedContents.create. */
export const DEFAULT_CACHE_CONFIG: PrefixCacheConfig = {
  /** Not documented: the granularity of hits is the simulator's choice. */
  blockTokens: 64,
  /**
   * The page: "The minimum input token count for context caching is listed in the following table
   * for each model". Copies of 2025 to 2026-05 list 1,024 for Gemini 2.5 Flash and Gemini 3 Flash
   * Preview (4,096 for 2.5 Pro and 3 Pro Preview); the copy last updated 2026-10-13 lists 2,048
   * for Gemini 2.5 Flash and 2.5 Pro and 4,096 for Gemini 3.1 Pro Preview, 3.6 and 3.8 Flash and
   * 4 Argon. The simulator keeps 1,024, the Flash figure of the earlier copies, which its tests
   * and the bench's cache figures are measured against.
   */
  minTokens: 1024,
  /** A simulator's bound, not a provider's. */
  capacityTokens: 8_000_000,
  /** Not documented for the implicit cache: 5 minutes is the simulator's choice. */
  ttlMs: 300_000,
  /** Not documented: a prefix is readable once the request that wrote it has been prefilled. */
  buildDelayMs: 0,
};

/**
 * cachedContents without `ttl` or `expire_time`: "The default expiration time of a context cache
 * is 60 minutes after its creation time"
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/context-cache/context-cache-update).
 */
export const EXPLICIT_DEFAULT_TTL_MS = 3_600_000;
