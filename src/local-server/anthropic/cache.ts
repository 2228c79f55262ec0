import type { Breakpoint } from './breakpoints.js';
import { ANTHROPIC_CACHE_RULES, minCacheTokens } from './cache-rules.js';
import type { AnthropicRendering } from './render.js';
import { boundaries, type Boundary } from '../core/boundaries.js';

/**
 * Anthropic's prompt cache as its documentation describes it
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching, "How automatic prefix checking
 * works", "Mixing different TTLs", "Tracking cache performance"):
 * - "Cache writes happen only at your breakpoint": one entry per breakpoint, keyed by the whole
 *   prefix up to and including that block, written only when the prefix reaches the model's
 *   minimum, and only "after the first response begins" (a request sent while it is being
 *   written misses it);
 * - "Cache reads look backward for entries that prior requests wrote", from each breakpoint, over
 *   at most 20 positions counting the breakpoint itself; the highest hit is what is read;
 * - nothing is written below the model's "minimum cacheable prompt length" ("Cache limitations":
 *   the simulator's own copy of the documented table, with its sources, is in cache-rules.ts);
 * - an entry lives 5 minutes (or 1 hour), "refreshed … each time the cached content is used";
 * - usage: read = A, the highest hit; 1-hour writes = B − A, B the highest 1-hour breakpoint
 *   after A; 5-minute writes = C − B, C the last breakpoint; input_tokens = the rest
 *   ("total_input_tokens = cache_read_input_tokens + cache_creation_input_tokens + input_tokens").
 */

export interface AnthropicCacheOptions {
  /** Overrides the per-model minimum cacheable prompt length (tests). */
  minTokens?: number;
}

export interface AnthropicCacheUse {
  /** Prompt tokens read from the cache (A). */
  read: number;
  /** Tokens written with a 5-minute TTL (C − B). */
  created5m: number;
  /** Tokens written with a 1-hour TTL (B − A). */
  created1h: number;
  /** Entries to write once the response begins. */
  writes: { key: string; tokens: number; ttlMs: number }[];
}

export interface AnthropicCache {
  /** At arrival: what the request reads (touching what it hits) and what it will write. */
  lookup(rendering: AnthropicRendering, breakpoints: readonly Breakpoint[]): AnthropicCacheUse;
  /** The response has begun: the entries become readable. */
  responseBegun(use: AnthropicCacheUse): void;
  entries(): number;
}

/** "The system checks at most 20 positions per breakpoint, counting the breakpoint itself as the first." */
const LOOKBACK_POSITIONS = ANTHROPIC_CACHE_RULES.lookbackPositions;

/** "By default, the cache has a 5-minute lifetime", or `ttl: '1h'`. */
const TTL_MS = ANTHROPIC_CACHE_RULES.ttlMs;

/** A simulator's bound on stored entries (oldest first out), not a documented number. */
const MAX_ENTRIES = 100_000;

interface Entry {
  tokens: number;
  ttlMs: number;
  expires: number;
}

/** Every block a breakpoint's lookback checks: the breakpoint's block and earlier ones within 20 positions. */
function lookbackBlocks(rendering: AnthropicRendering, breakpoint: number): number[] {
  const { blocks } = rendering;
  const first = (blocks[breakpoint]?.position ?? 0) - LOOKBACK_POSITIONS + 1;
  const out: number[] = [];
  for (let i = breakpoint; i >= 0 && (blocks[i]?.position ?? 0) >= first; i--) out.push(i);
  return out;
}

export function createAnthropicCache(options: AnthropicCacheOptions = {}, now: () => number = Date.now): AnthropicCache {
  /** Prefix key → entry; Map order is LRU order. */
  const entries = new Map<string, Entry>();

  function live(key: string, at: number): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expires <= at) entries.delete(key);
    return entry && entry.expires > at ? entry : undefined;
  }

  function refresh(key: string, entry: Entry, at: number): void {
    entries.delete(key);
    entries.set(key, { ...entry, expires: at + entry.ttlMs });
  }

  return {
    lookup(rendering, breakpoints) {
      const none: AnthropicCacheUse = { read: 0, created5m: 0, created1h: 0, writes: [] };
      if (breakpoints.length === 0) return none;
      const at = now();
      const walks = breakpoints.map((point) => lookbackBlocks(rendering, point.block));
      const checked = [...new Set(walks.flat())].sort((a, b) => a - b);
      const byBlock = new Map<number, Boundary>(boundaries(rendering, checked).map((b) => [b.message, b]));
      // Each breakpoint's walk stops at its first hit (the longest prefix it can find); the highest hit is read.
      let read = 0;
      for (const walk of walks) {
        for (const block of walk) {
          const boundary = byBlock.get(block) as Boundary;
          const entry = live(boundary.key, at);
          if (!entry) continue;
          refresh(boundary.key, entry, at);
          read = Math.max(read, boundary.tokens);
          break;
        }
      }
      const min = options.minTokens ?? minCacheTokens(rendering.model);
      const writes: AnthropicCacheUse['writes'] = [];
      let highest1h = read;
      let last = read;
      for (const point of breakpoints) {
        const boundary = byBlock.get(point.block) as Boundary;
        if (boundary.tokens < min) continue;
        if (!live(boundary.key, at)) writes.push({ key: boundary.key, tokens: boundary.tokens, ttlMs: TTL_MS[point.ttl] });
        if (point.ttl === '1h') highest1h = Math.max(highest1h, boundary.tokens);
        last = Math.max(last, boundary.tokens);
      }
      return { read, created1h: highest1h - read, created5m: last - highest1h, writes };
    },
    responseBegun(use) {
      const at = now();
      for (const write of use.writes) {
        entries.delete(write.key);
        entries.set(write.key, { tokens: write.tokens, ttlMs: write.ttlMs, expires: at + write.ttlMs });
      }
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    },
    entries: () => entries.size,
  };
}
