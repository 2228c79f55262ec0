import { createAnthropicProvider } from './anthropic.js';
import { createGenaiProvider } from './genai.js';
import { createOpenAIChatProvider } from './openai-chat.js';
import { dialectOf, type ModelDialect } from './presets.js';
import type { ModelProvider, ProviderConfig } from './types.js';

/**
 * The provider for a descriptor and the session's dialect: @google/genai for `gemini`, the openai
 * SDK for `openai-chat`, the @anthropic-ai/sdk for `anthropic-messages`. `local` speaks all three;
 * every other kind speaks one, and asking it for another is a TypeError naming both. For Chat
 * Completions the key is `config.apiKey`, else the preset's environment variable (OPENAI_API_KEY,
 * DEEPSEEK_API_KEY, DASHSCOPE_API_KEY), else a stand-in for `local` (and for `openai-compatible`,
 * whose servers may want none); the base URL is `config.baseUrl`, else the preset's (`local`:
 * `${baseUrl}/v1`). For Anthropic the key is `config.apiKey`, else `config.apiKeyEnv`'s variable
 * (ANTHROPIC_API_KEY by default; `local` reads one only when apiKeyEnv names it, and sends a
 * stand-in otherwise), and the base URL `config.baseUrl`, else ANTHROPIC_BASE_URL, else
 * https://api.anthropic.com (`local`: the server's root, the SDK adds /v1/messages). A missing key
 * or base URL is a TypeError naming the variable to set or `baseUrl`. Keys are handed to the SDK
 * client only: they never go into messages or results (a server that echoes one back has it redacted).
 */
export function createProvider(config: ProviderConfig, format: ModelDialect): ModelProvider {
  const speaks = dialectOf(config.kind);
  if (speaks !== 'either' && speaks !== format) {
    throw new TypeError(`provider '${config.kind}' speaks ${speaks}, not ${format}: the session's format and the provider must match`);
  }
  if (format === 'gemini') return createGenaiProvider(config);
  return format === 'anthropic-messages' ? createAnthropicProvider(config) : createOpenAIChatProvider(config);
}
