/**
 * DeepSeek's disk cache is made of "cache prefix units" (https://api-docs.deepseek.com/guides/kv_cache):
 * "Due to the Sliding Window Attention mechanism, the storage and matching of cached prefixes differs
 * from before. Each cached prefix is an independent, complete unit. A subsequent request can only hit
 * the cache if it fully matches a cache prefix unit." Units are persisted at "the end position of the
 * user input and the end position of the model output", where "the system detects a common prefix
 * across multiple requests", and "at fixed token intervals". The numbers below are what the page does
 * not give: the client's assumption. The simulator (`forkpool serve --usage deepseek`) keeps its own
 * copy, as a provider would (test/simulator-oracle.test.ts checks that they agree).
 */

/**
 * "For long inputs or long outputs, the system will carve out cache prefix units at fixed token
 * intervals, to avoid long prefixes from being completely uncacheable due to never reaching an end
 * position." No interval is documented: 4,096 tokens is our choice.
 */
export const DEEPSEEK_UNIT_INTERVAL_TOKENS = 4096;

/**
 * The smallest unit, and the step at which the simulator finds common prefixes across requests (a
 * common prefix is rounded down to it). The earlier page (api-docs.deepseek.com/news/news0802):
 * "The cache system uses 64 tokens as a storage unit; content less than 64 tokens will not be
 * cached." The current page states no minimum: we keep 64.
 */
export const DEEPSEEK_UNIT_GRANULARITY_TOKENS = 64;
