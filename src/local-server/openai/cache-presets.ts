import type { PrefixCacheConfig } from '../core/prefix-cache.js';

/**
 * The simulated prompt cache of each OpenAI-compatible provider, in one table. Numbers come from
 * the providers' documentation as collected in the project's notes (openai-compatible-cache-rules.md,
 * "Simulation parameters"); where the documentation gives no number the value is ours and says so.
 */

/*
 * The simulator is an oracle: it keeps its own copy of what a provider does, and imports nothing of
 * the client it judges. Where the client must assume the same numbers (src/model/deepseek-units.ts),
 * test/simulator-oracle.test.ts checks that the two agree.
 */

/** DeepSeek's cache prefix units are carved every this many tokens of a long prompt (no number is documented: ours). */
export const DEEPSEEK_UNIT_INTERVAL_TOKENS = 4096;
/** DeepSeek's smallest unit and common-prefix step (news0802: "The cache system uses 64 tokens as a storage unit"). */
export const DEEPSEEK_UNIT_GRANULARITY_TOKENS = 64;

/**
 * Whether an OpenAI model takes prompt_cache_options and breakpoints: gpt-5.6 and later
 * (gpt-5.6-sol, gpt-6-luna, …), an optional provider prefix before the name.
 */
export function takesCacheBreakpoints(model: string): boolean {
  const version = /^(?:[\w.-]+\/)?gpt-(\d+)(?:\.(\d+))?(?![\d.])/.exec(model);
  if (!version) return false;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major > 5 || (major === 5 && minor >= 6);
}

/** Which provider the Chat Completions routes simulate: usage field names and cache rules. */
export type UsagePreset = 'openai' | 'deepseek' | 'dashscope' | 'none';

export const USAGE_PRESETS: readonly UsagePreset[] = ['openai', 'deepseek', 'dashscope', 'none'];

/** DashScope's explicit cache: entries written at `cache_control` markers, exact to the marked message. */
export interface MarkerCacheRules {
  minTokens: number;
  /** Validity of an entry, reset on every hit. */
  ttlMs: number;
  /** How many messages before a marker an entry may end and still be hit. */
  lookbackMessages: number;
  /** Only the last this many markers of a request take effect. */
  maxMarkers: number;
}

/**
 * DeepSeek's cache prefix units (prefix-units.ts, unit-cache.ts): a hit needs a whole unit; units end
 * where a prompt or a reply ends, at common prefixes across requests, and every `intervalTokens`.
 */
export interface UnitRules {
  intervalTokens: number;
}

export interface ChatCachePreset {
  /**
   * The automatic prefix cache (chained blocks, LRU, TTL refreshed on use). With `units`, its numbers
   * are the units' instead: block = the granularity, minimum, TTL, build delay, capacity.
   */
  implicit: PrefixCacheConfig;
  /** A fully cached prompt still recomputes its last token: at most prompt − 1 tokens hit (vLLM). */
  recomputeLastToken: boolean;
  /** Explicit `cache_control` markers (DashScope): when present they replace the implicit cache for that request. */
  markers?: MarkerCacheRules;
  /** Cache prefix units (DeepSeek) instead of chained blocks. */
  units?: UnitRules;
}

/** Capacity of every simulated cache, as the Gemini side's default (a simulator's bound, not a provider's). */
const CAPACITY_TOKENS = 8_000_000;

export const CHAT_CACHE_PRESETS: Readonly<Record<UsagePreset, ChatCachePreset>> = {
  openai: {
    implicit: {
      // developers.openai.com/api/docs/guides/prompt-caching: "caching is enabled automatically for prompts that are 1,024 tokens or longer"
      minTokens: 1024,
      // same page: "Cache hits occur in increments of 128 tokens" (1024, 1152, 1280, …)
      blockTokens: 128,
      // same page: "cached prefixes generally remain active for 5 to 10 minutes of inactivity, up to a maximum of one hour" (the lower bound; the one-hour cap is not simulated)
      ttlMs: 300_000,
      // no build delay is documented: "After processing, the prefix of your prompt is cached for future requests" (older page)
      buildDelayMs: 0,
      capacityTokens: CAPACITY_TOKENS,
    },
    recomputeLastToken: false,
  },
  deepseek: {
    // api-docs.deepseek.com/guides/kv_cache: "Each cached prefix is an independent, complete unit. A subsequent
    // request can only hit the cache if it fully matches a cache prefix unit." (src/model/deepseek-units.ts)
    implicit: {
      // The current page gives no minimum; the earlier one (news0802): "The cache system uses 64 tokens as a storage
      // unit; content less than 64 tokens will not be cached." 64 is the smallest unit and the common-prefix step.
      minTokens: DEEPSEEK_UNIT_GRANULARITY_TOKENS,
      blockTokens: DEEPSEEK_UNIT_GRANULARITY_TOKENS,
      // api-docs.deepseek.com/guides/kv_cache: "usually within a few hours to a few days" — 4 hours is our choice within that
      ttlMs: 14_400_000,
      // same page: "Cache construction takes seconds." — 2 s is our choice: a unit is usable 2 s after it is created
      buildDelayMs: 2_000,
      // a bound on units and on the record of recent prompts (unit-cache.ts), as many entries as 64-token blocks
      capacityTokens: CAPACITY_TOKENS,
    },
    recomputeLastToken: false,
    // same page: "the system will carve out cache prefix units at fixed token intervals" — no number: 4,096 is ours
    units: { intervalTokens: DEEPSEEK_UNIT_INTERVAL_TOKENS },
  },
  dashscope: {
    implicit: {
      // alibabacloud.com/help/en/model-studio/context-cache, implicit: "Content with fewer than 256 tokens will not be cached."
      minTokens: 256,
      // not documented: 128 is our choice (the page's two samples, 2048 and 1152 cached tokens, are multiples of 128)
      blockTokens: 128,
      // not documented ("Not guaranteed. The system periodically clears unused cached data."): 5 minutes is our choice
      ttlMs: 300_000,
      // not documented: 0
      buildDelayMs: 0,
      capacityTokens: CAPACITY_TOKENS,
    },
    recomputeLastToken: false,
    markers: {
      // same page, explicit: "A cache block must contain at least 1024 tokens."
      minTokens: 1024,
      // same page: "Cache validity period: 5 minutes (resets on hit)"
      ttlMs: 300_000,
      // same page: "System searches backward up to 20 `content` blocks from each `cache_control` marker"
      lookbackMessages: 20,
      // same page: "If the number of cache markers is greater than four, only the last four cache markers take effect."
      maxMarkers: 4,
      // and "Cache creation occurs after model response": entries are written when the response has ended.
    },
  },
  // vLLM without --enable-prompt-tokens-details: it caches, it does not say so.
  none: {
    implicit: {
      // docs.vllm.ai/en/latest/design/prefix_caching: "We only cache full blocks."; vllm/platforms/cuda.py: block_size = 16
      minTokens: 16,
      blockTokens: 16,
      // vLLM evicts by capacity (LRU) only: no TTL
      ttlMs: Number.POSITIVE_INFINITY,
      buildDelayMs: 0,
      capacityTokens: CAPACITY_TOKENS,
    },
    // vllm/v1/core/kv_cache_manager.py: "When all tokens hit the cache, we must recompute the last token to obtain logits."
    recomputeLastToken: true,
  },
};

export function isUsagePreset(name: string): name is UsagePreset {
  return (USAGE_PRESETS as readonly string[]).includes(name);
}
