import { CHAT_CACHE_PRESETS, takesCacheBreakpoints, type MarkerCacheRules, type UsagePreset } from './cache-presets.js';
import { boundaries, type Boundary } from '../core/boundaries.js';
import type { ChatRendering } from './render.js';
import type { ChatRequest } from './wire.js';
import { createPrefixCache, type PrefixCache, type PrefixCacheConfig } from '../core/prefix-cache.js';
import { createBreakpointCache, type BreakpointUse } from './breakpoint-cache.js';
import type { AssistantReply } from './translate.js';
import { createUnitCache } from './unit-cache.js';

/**
 * The Chat Completions routes' prompt cache: the preset's implicit prefix cache (core/prefix-cache.ts
 * over the chat rendering), and for DashScope the explicit entries written at `cache_control`
 * markers. A request with markers uses only the explicit cache ("mutually exclusive"). OpenAI's
 * models from GPT-5.6 on use only entries written at breakpoints (breakpoint-cache.ts). DeepSeek's
 * cache is made of cache prefix units instead of blocks (unit-cache.ts).
 */

export interface ChatCacheUse {
  /** Prompt tokens served from cache. */
  cached: number;
  /** Tokens this request writes to explicit entries beyond what it read (DashScope's cache_creation_input_tokens). */
  created: number;
  /** The request carried markers: usage reports the explicit cache's fields. */
  explicit: boolean;
  /** Explicit entries to write once the response has ended. */
  writes: Boundary[];
  /** OpenAI's breakpoint cache served the request (GPT-5.6 and later): `created` is cache_write_tokens. */
  breakpoints?: BreakpointUse;
}

export interface ChatCache {
  readonly preset: UsagePreset;
  /** The block cache; with DeepSeek's units, the record of recent prompts' blocks where common prefixes are found. */
  readonly implicit: PrefixCache;
  /** The model caches at breakpoints (OpenAI's from GPT-5.6 on): render its requests at parts. */
  atBreakpoints(model: string): boolean;
  /** Before prefill: what the cache serves this request. Touches what it hits. */
  lookup(request: ChatRequest, rendering: ChatRendering): ChatCacheUse;
  /** Prefill ended: the implicit cache admits the prompt's blocks. */
  prefillDone(rendering: ChatRendering, use: ChatCacheUse): void;
  /** The response has ended: explicit entries are created, and DeepSeek's unit at the end of the reply. */
  responseDone(rendering: ChatRendering, use: ChatCacheUse, reply: AssistantReply): void;
  explicitEntries(): number;
  /** DeepSeek's cache prefix units held (0 for the other presets). */
  unitEntries(): number;
}

const MAX_MARKER_ENTRIES = 100_000;

function markedMessages(request: ChatRequest, rules: MarkerCacheRules): number[] {
  const marked: number[] = [];
  request.messages.forEach((message, i) => {
    const content = message.content;
    if (Array.isArray(content) && content.some((part) => part.cache_control?.type === 'ephemeral')) marked.push(i);
  });
  return marked.slice(-rules.maxMarkers);
}

/** Every message index an entry may end at and still be hit from one of the markers, ascending. */
function candidates(marked: readonly number[], lookback: number): number[] {
  const set = new Set<number>();
  for (const k of marked) for (let j = Math.max(0, k - lookback); j <= k; j++) set.add(j);
  return [...set].sort((a, b) => a - b);
}

export function createChatCache(preset: UsagePreset, overrides: Partial<PrefixCacheConfig> = {}, now: () => number = Date.now): ChatCache {
  const rules = CHAT_CACHE_PRESETS[preset];
  const config: PrefixCacheConfig = { ...rules.implicit, ...overrides };
  const units = rules.units ? createUnitCache(config, rules.units, now) : undefined;
  const implicit = units?.seen ?? createPrefixCache(config, now);
  const { blockTokens } = implicit.config;
  /** Explicit entries: boundary key → tokens and expiry; Map order is LRU order. */
  const entries = new Map<string, { tokens: number; expires: number }>();
  const atBreakpoints = (model: string): boolean => preset === 'openai' && takesCacheBreakpoints(model);
  const breakpointCache = createBreakpointCache(now);

  function live(key: string, at: number): { tokens: number; expires: number } | undefined {
    const entry = entries.get(key);
    if (entry && entry.expires <= at) entries.delete(key);
    return entry && entry.expires > at ? entry : undefined;
  }

  function lookupMarkers(request: ChatRequest, rendering: ChatRendering, markers: MarkerCacheRules): ChatCacheUse | undefined {
    const marked = markedMessages(request, markers);
    if (marked.length === 0) return undefined;
    const at = now();
    const found = boundaries(rendering, candidates(marked, markers.lookbackMessages));
    let hit: Boundary | undefined;
    for (const boundary of found) if (live(boundary.key, at)) hit = boundary;
    if (hit) {
      const entry = entries.get(hit.key) as { tokens: number; expires: number };
      entries.delete(hit.key);
      entries.set(hit.key, { tokens: entry.tokens, expires: at + markers.ttlMs });
    }
    const cached = hit?.tokens ?? 0;
    const writes = found.filter((b) => marked.includes(b.message) && b.tokens >= markers.minTokens && !live(b.key, at));
    const created = Math.max(0, ...writes.map((b) => b.tokens - cached));
    return { cached, created, explicit: true, writes };
  }

  return {
    preset,
    implicit,
    atBreakpoints,
    lookup(request, rendering) {
      if (atBreakpoints(request.model)) {
        const use = breakpointCache.lookup(request, rendering);
        return { cached: use.cached, created: use.written, explicit: false, writes: [], breakpoints: use };
      }
      const explicit = rules.markers ? lookupMarkers(request, rendering, rules.markers) : undefined;
      if (explicit) return explicit;
      if (units) return { cached: units.lookup(rendering), created: 0, explicit: false, writes: [] };
      const { keys, tokens } = rendering.prompt;
      let cached = implicit.lookup(keys, tokens);
      if (rules.recomputeLastToken) cached = Math.min(cached, Math.floor((tokens - 1) / blockTokens) * blockTokens);
      return { cached, created: 0, explicit: false, writes: [] };
    },
    prefillDone(rendering, use) {
      if (use.breakpoints) breakpointCache.write(use.breakpoints);
      else if (units) units.prefillDone(rendering);
      else if (!use.explicit) implicit.admit(rendering.prompt.keys, rendering.prompt.tokens);
    },
    responseDone(rendering, use, reply) {
      units?.responseDone(rendering, reply);
      const markers = rules.markers;
      if (!markers) return;
      const expires = now() + markers.ttlMs;
      for (const write of use.writes) {
        entries.delete(write.key);
        entries.set(write.key, { tokens: write.tokens, expires });
      }
      while (entries.size > MAX_MARKER_ENTRIES) entries.delete(entries.keys().next().value as string);
    },
    explicitEntries: () => entries.size + breakpointCache.entries(),
    unitEntries: () => units?.units.entries() ?? 0,
  };
}
