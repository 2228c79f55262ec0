import type { ParentSession, SessionFormat } from '../shapes/registry.js';

/*
 * The cache plan: everything provider-specific about a run's prompt cache, resolved once on the
 * main thread by the provider's module (registry.ts) and carried as one serializable field to
 * worker threads and other machines. The engine, the fork rules and the queue read it and never
 * ask which provider or shape they serve.
 */

/** How a cache entry is reached, per request: the mechanisms the providers use. */
export type RequestCache =
  /** Nothing to add: the provider matches prefixes on its own (Gemini implicit, DeepSeek, vLLM, …). */
  | { mechanism: 'none' }
  /**
   * OpenAI: `prompt_cache_key` routes every request of the run to one cache (none for the
   * simulator); `breakpoints` (GPT-5.6 and later, exact at breakpoints): each fork's request marks
   * the end of what all forks share, and with `parentWarm` where the parent's request had its
   * implicit breakpoint (shapes/openai-breakpoints.ts).
   */
  | { mechanism: 'cache-key'; key?: string; breakpoints?: { parentWarm: boolean } }
  /** DashScope explicit: a `cache_control` marker on the last message every fork shares. */
  | { mechanism: 'marker' }
  /** Anthropic: `cache_control` breakpoints, leaving room for the parent's own `parent` of the limit. */
  | { mechanism: 'breakpoints'; parent: number; ttl: '5m' | '1h' }
  /**
   * Gemini explicit: requests of a seed window that has a cachedContent name it and leave out what
   * it holds; windows without one send everything. `caches` is filled once they are made.
   */
  | { mechanism: 'cached-content'; caches: Readonly<Record<string, CachedContentRef>> }
  /**
   * OpenAI's Responses API, explicit: a fork whose seed holds the parent's conversation unchanged
   * names the parent's stored response (`previous_response_id`) and sends only its own items, with
   * the session's instructions, tools and settings (a named response carries none of them over);
   * other forks re-send everything, with `breakpoints` as under 'cache-key'. `key` routes as with 'cache-key'.
   */
  | { mechanism: 'stored-response'; responseId: string; key?: string; breakpoints?: { parentWarm: boolean } };

/** A cachedContent made for one seed window. */
export interface CachedContentRef {
  name: string;
  tokens: number;
  /** Leading seed contents that live in the cache and are left out of the request body. */
  sharedContents: number;
}

/**
 * The price of cached input relative to a normal input token, for providers that bill cache reads
 * and writes apart (the report's input cost).
 */
export interface CachePricing {
  read: number;
  write5m: number;
  write1h: number;
}

export interface CachePlan {
  /** The provider module's kind, and the shape its requests take. */
  provider: string;
  shape: SessionFormat;
  request: RequestCache;
  /** Explicit caches to make before the first fork (Gemini's cachedContents), one per seed window. */
  explicit: boolean;
  /** When a request's prefix can be read by the next ones: what a warm-up waits for. */
  readable: {
    /** 'response-start': once the response has begun; 'response-end': once it has ended (an entry written after the response). */
    after: 'response-start' | 'response-end';
    /** How long after that, ms (DeepSeek's disk cache is built in seconds). */
    buildMs: number;
    /** A warm-up is needed even when `warmup: 'none'` was asked (without it the whole first wave misses). */
    required: boolean;
    /** The parent's own request makes the entry its forks read (false: the first fork writes it). */
    fromParent: boolean;
    /**
     * How many forks a warm-up sends one at a time before the rest (default 1). DeepSeek makes a
     * unit at a prefix only once two requests share it: the second fork's request caches the shared prefix.
     */
    leads?: number;
  };
  /** What the report's theoretical maximum follows. */
  rules: {
    minCacheTokens: number;
    /** Hits come in steps of this many tokens: the maximum rounds down to them. */
    cacheBlockTokens: number;
    /** The cache holds exactly what a marker or breakpoint closes: the child message's common opening after it is not cached. */
    toMarkerOnly: boolean;
    /** How long an unused entry lasts, ms, where the provider documents it (the report names the TTL as a miss's reason only then). */
    entryTtlMs?: number;
    /** The provider caches only where a request marks a breakpoint, and this plan marks none (the cache is off). */
    unmarked?: boolean;
    /** DeepSeek's cache prefix units: a hit is a whole unit, cut every `intervalTokens` or where requests end or share a prefix (cache-figures.ts). */
    prefixUnits?: { intervalTokens: number };
  };
  /** 'explicit' when the provider's own mechanism holds the prefix (markers, breakpoints); made caches are the run's to add. */
  effective: 'implicit' | 'explicit' | 'off';
  pricing?: CachePricing;
  /** What the report says about the cache, when there is something to say. */
  note?: string;
}

/** What a provider module resolves a plan from. */
export interface PlanInput {
  session: Readonly<ParentSession>;
  shape: SessionFormat;
  cache: 'implicit' | 'explicit' | 'off';
  cacheTtl: '5m' | '1h';
  /** The run's routing key: the same for a parent and every fork it starts (undefined: none, as an outside parent that sent none). */
  cacheKey: string | undefined;
  /** Whose requests: a fan-out's forks, or the headless parent's own. */
  role: 'forks' | 'parent';
  warmup: 'auto' | 'none';
  parentWarm: boolean;
  /** The id of the parent's last response, stored by the provider (Responses API): forks may name it instead of re-sending the conversation. */
  storedResponse?: string | undefined;
  /** The caller's own figures, over the provider's documented ones. */
  overrides: { minCacheTokens?: number | undefined; cacheBlockTokens?: number | undefined; cacheBuildMs?: number | undefined };
}

/** Whether a fan-out waits for its lead fork's first response before sending the rest, as the plan's readable rule says. */
export function needsWarmup(
  plan: CachePlan,
  run: { warmup: 'auto' | 'none'; parentWarm: boolean; cache: 'implicit' | 'explicit' | 'off' },
): boolean {
  if (run.parentWarm && plan.readable.fromParent) return false;
  if (run.warmup === 'none' && !plan.readable.required) return false;
  return run.cache !== 'off';
}
