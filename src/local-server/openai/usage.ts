import type { UsagePreset } from './cache-presets.js';
import type { ChatCacheUse } from './cache.js';
import type { ChatUsage } from './wire.js';

/**
 * `usage` in the field names of the provider being simulated (sources: the project's notes,
 * openai-compatible-cache-rules.md, "Usage fields"):
 * - openai: `prompt_tokens_details.cached_tokens`, present even when 0;
 * - deepseek: `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens` (and `prompt_tokens_details.cached_tokens`,
 *   which DeepSeek's responses may carry too);
 * - dashscope: `prompt_tokens_details.cached_tokens`; with explicit markers also `cache_creation_input_tokens`,
 *   `cache_creation.ephemeral_5m_input_tokens` and `cache_type: 'ephemeral'` in prompt_tokens_details;
 * - none: no cached-token field at all (vLLM without --enable-prompt-tokens-details).
 */

export function chatUsage(preset: UsagePreset, prompt: number, completion: number, cache: ChatCacheUse): ChatUsage {
  const base: ChatUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  switch (preset) {
    case 'openai':
      return {
        ...base,
        // GPT-5.6 and later also report writes: "cache_write_tokens: The unadjusted number of prompt tokens written to cache" (openai SDK 6.46+, CompletionUsage).
        prompt_tokens_details: {
          cached_tokens: cache.cached,
          ...(cache.breakpoints ? { cache_write_tokens: cache.created } : {}),
          audio_tokens: 0,
        },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      };
    case 'deepseek':
      return {
        ...base,
        prompt_tokens_details: { cached_tokens: cache.cached },
        prompt_cache_hit_tokens: cache.cached,
        prompt_cache_miss_tokens: prompt - cache.cached,
      };
    case 'dashscope':
      if (!cache.explicit) return { ...base, prompt_tokens_details: { cached_tokens: cache.cached } };
      return {
        ...base,
        prompt_tokens_details: {
          cached_tokens: cache.cached,
          cache_type: 'ephemeral',
          cache_creation_input_tokens: cache.created,
          cache_creation: { ephemeral_5m_input_tokens: cache.created },
        },
      };
    case 'none':
      return base;
  }
}
