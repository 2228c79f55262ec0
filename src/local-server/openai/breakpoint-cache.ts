import { boundaries, type Boundary } from '../core/boundaries.js';
import type { ChatRendering } from './render.js';
import type { ChatRequest } from './wire.js';

/*
 * OpenAI's prompt cache from GPT-5.6 on, as the openai SDK documents it (6.46.0 and later,
 * resources/chat/completions, PromptCacheOptions and PromptCacheBreakpoint): entries end exactly at
 * breakpoints ("the boundary is not rounded to a token block"); "With `implicit`, OpenAI creates one
 * implicit breakpoint and writes up to the latest three explicit breakpoints in the request. With
 * `explicit`, OpenAI does not create an implicit breakpoint and writes up to the latest four
 * explicit breakpoints. If there are no explicit breakpoints, the request does not use prompt
 * caching."; "For cache matching, OpenAI considers up to the latest 80 breakpoints". The implicit
 * breakpoint sits "near the latest user or tool message" (OpenAI's GPT-5.6 upgrade guide, quoted in
 * openai/codex#35300): here, at that message's end. A prefix is read only where a breakpoint of
 * the request ends it: no fallback to a shorter unmarked prefix.
 */

/** "caching is enabled automatically for prompts that are 1,024 tokens or longer" (the prompt caching guide). */
const MIN_TOKENS = 1024;
/** `ttl` "defaults to `30m`, which is currently the only supported value". */
const TTL_MS = 30 * 60_000;
const WRITTEN_IMPLICIT_MODE = 3;
const WRITTEN_EXPLICIT_MODE = 4;
const CONSIDERED = 80;
const MAX_ENTRIES = 100_000;

export interface BreakpointUse {
  cached: number;
  /** Tokens written to new entries beyond what was read (usage's cache_write_tokens). */
  written: number;
  /** Entries to write once the prompt is processed. */
  writes: Boundary[];
}

export interface BreakpointCache {
  lookup(request: ChatRequest, rendering: ChatRendering): BreakpointUse;
  /** The prompt is processed: its entries can be read from now on. */
  write(use: BreakpointUse): void;
  entries(): number;
}

/** Part indexes (into the rendering's pieces) of the request's breakpoints: explicit markers, and the implicit one in implicit mode. */
function breakpointsOf(request: ChatRequest, rendering: ChatRendering): { explicit: number[]; implicit: number | undefined } {
  const parts = rendering.parts ?? [];
  const explicit: number[] = [];
  let implicit: number | undefined;
  parts.forEach((part, i) => {
    if (part.breakpoint) explicit.push(i);
    const role = request.messages[part.message]?.role;
    if (role === 'user' || role === 'tool') implicit = i;
  });
  return { explicit, implicit: request.cacheMode === 'implicit' ? implicit : undefined };
}

export function createBreakpointCache(now: () => number = Date.now): BreakpointCache {
  /** Boundary key → tokens and expiry; Map order is LRU order. */
  const entries = new Map<string, { tokens: number; expires: number }>();

  const live = (key: string, at: number): boolean => {
    const entry = entries.get(key);
    if (entry && entry.expires <= at) entries.delete(key);
    return entry !== undefined && entry.expires > at;
  };

  return {
    lookup(request, rendering) {
      const { explicit, implicit } = breakpointsOf(request, rendering);
      const at = now();
      const withImplicit = implicit === undefined ? explicit : [...new Set([...explicit, implicit])].sort((a, b) => a - b);
      const considered = boundaries(rendering, withImplicit.slice(-CONSIDERED)).filter((b) => b.tokens >= MIN_TOKENS);
      let hit: Boundary | undefined;
      for (const b of considered) if (live(b.key, at) && (hit === undefined || b.tokens > hit.tokens)) hit = b;
      if (hit) {
        entries.delete(hit.key);
        entries.set(hit.key, { tokens: hit.tokens, expires: at + TTL_MS });
      }
      const cached = hit?.tokens ?? 0;
      const marked = explicit.slice(-(implicit === undefined ? WRITTEN_EXPLICIT_MODE : WRITTEN_IMPLICIT_MODE));
      const toWrite = implicit === undefined ? marked : [...new Set([...marked, implicit])].sort((a, b) => a - b);
      const writes = boundaries(rendering, toWrite).filter((b) => b.tokens >= MIN_TOKENS && !live(b.key, at));
      const written = Math.max(0, ...writes.map((b) => b.tokens - cached));
      return { cached, written, writes };
    },
    write(use) {
      const expires = now() + TTL_MS;
      for (const b of use.writes) {
        entries.delete(b.key);
        entries.set(b.key, { tokens: b.tokens, expires });
      }
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    },
    entries: () => entries.size,
  };
}
