/**
 * Anthropic's prompt cache rules as the simulator enforces them: its own copy, taken from
 * Anthropic's documentation and not from the client's table (src/model/presets.ts), so that a
 * wrong number on the client's side shows up as a test failure instead of being agreed on by the
 * code under test and its oracle. The page cited is "Prompt caching",
 * https://platform.claude.com/docs/en/build-with-claude/prompt-caching (below: "the page"); the
 * same sentences are on its earlier address, https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching.
 */

export const ANTHROPIC_CACHE_RULES = {
  /**
   * The page: "You can define up to 4 cache breakpoints (using `cache_control` parameters) in your
   * prompt"; a fifth is a 400 ("A maximum of 4 blocks with cache_control may be provided. Found 5.").
   */
  maxBreakpoints: 4,
  /**
   * The page, "How automatic prefix checking works": "The system checks at most 20 positions per
   * breakpoint, counting the breakpoint itself as the first."
   */
  lookbackPositions: 20,
  /**
   * The page: "By default, the cache has a 5-minute lifetime. The cache is refreshed for no
   * additional cost each time the cached content is used"; `cache_control.ttl` is "5m" or "1h",
   * "Defaults to `5m`" (https://platform.claude.com/docs/en/api/messages/create).
   */
  ttlMs: { '5m': 300_000, '1h': 3_600_000 },
  /**
   * Not documented: a model the table below does not name (a newer one) is taken at 1,024 tokens,
   * the minimum most models have had. The simulator's assumption, and says so.
   */
  defaultMinTokens: 1024,
  /**
   * The minimum cacheable prompt per model, the page's "Cache limitations": "the minimum cacheable
   * prompt length is: 512 tokens for Claude Fable 5.1, Claude Mythos 5.1, Claude Opus 5.5, Claude
   * Opus 5, Claude Sonnet 5.5, Claude Fable 5, Claude Mythos 5, and Claude Haiku 5.5; 2,048 tokens
   * for Claude Mythos Preview and Claude Opus 4.7; 4,096 tokens for Claude Opus 4.6 and Claude Opus
   * 4.5; 1,024 tokens for Claude Opus 4.8, Claude Sonnet 5, Claude Sonnet 4.6, Claude Sonnet 4.5,
   * Claude Opus 4.1, Claude Opus 4, and Claude Sonnet 4; 4,096 tokens for Claude Haiku 4.5; 2,048
   * tokens for Claude Haiku 3.5" — "Shorter prompts cannot be cached, even if marked with
   * `cache_control`. Any requests to cache fewer than this number of tokens will be processed
   * without caching, and no error is returned." Retired models keep what the page's earlier
   * version said: "1024 tokens for Claude Opus 4, Claude Sonnet 4, Claude Sonnet 3.7, Claude
   * Sonnet 3.5 and Claude Opus 3" and "2048 tokens for Claude Haiku 3.5 and Claude Haiku 3".
   * Keys are model ids as the Messages API takes them (Claude 3.x ids put the version first).
   */
  minTokens: {
    'claude-fable-5-1': 512,
    'claude-mythos-5-1': 512,
    'claude-opus-5-5': 512,
    'claude-opus-5': 512,
    'claude-sonnet-5-5': 512,
    'claude-fable-5': 512,
    'claude-mythos-5': 512,
    'claude-haiku-5-5': 512,
    'claude-mythos-preview': 2048,
    'claude-opus-4-7': 2048,
    'claude-opus-4-6': 4096,
    'claude-opus-4-5': 4096,
    'claude-opus-4-8': 1024,
    'claude-sonnet-5': 1024,
    'claude-sonnet-4-6': 1024,
    'claude-sonnet-4-5': 1024,
    'claude-opus-4-1': 1024,
    'claude-opus-4': 1024,
    'claude-sonnet-4': 1024,
    'claude-haiku-4-5': 4096,
    'claude-3-5-haiku': 2048,
    'claude-3-7-sonnet': 1024,
    'claude-3-5-sonnet': 1024,
    'claude-3-opus': 1024,
    'claude-3-haiku': 2048,
  } as Readonly<Record<string, number>>,
} as const;

/**
 * The minimum cacheable prompt of the model a request names: the longest key of the table that
 * the id starts with, where what follows is not a further version number (`claude-opus-4-5-20251101`
 * and `claude-opus-4-5@20251101` are Claude Opus 4.5; `claude-opus-4-8` is not Claude Opus 4).
 */
export function minCacheTokens(model: string): number {
  let best: string | undefined;
  for (const key of Object.keys(ANTHROPIC_CACHE_RULES.minTokens)) {
    if (!model.startsWith(key) || (best !== undefined && best.length >= key.length)) continue;
    // `-5`, `-12`: another version of the model; `-20251101` (a date), `@…`, `-v1:0`: this one.
    if (/^-\d{1,2}(?!\d)/.test(model.slice(key.length))) continue;
    best = key;
  }
  return (best === undefined ? undefined : ANTHROPIC_CACHE_RULES.minTokens[best]) ?? ANTHROPIC_CACHE_RULES.defaultMinTokens;
}
