import { createGenaiProvider } from './genai.js';
import { createOpenAIChatProvider } from './openai-chat.js';
import { dialectOf, type ModelDialect } from './presets.js';
import type { ModelProvider, ProviderConfig } from './types.js';

/**
 * The provider for a descriptor and the session's dialect: @google/genai for `gemini`, the openai
 * SDK for `openai-chat`. `local` speaks both; every other kind speaks one, and asking it for the
 * other is a TypeError. For Chat Completions the key is `config.apiKey`, else the preset's
 * environment variable (OPENAI_API_KEY, DEEPSEEK_API_KEY, DASHSCOPE_API_KEY), else a stand-in
 * for `local` (and for `openai-compatible`, whose servers may want none); the base URL is
 * `config.baseUrl`, else the preset's (`local`: `${baseUrl}/v1`). A missing key or base URL is a
 * TypeError naming the variable to set or `baseUrl`. Keys are handed to the SDK client only: they
 * never go into messages or results (a server that echoes one back has it redacted).
 */
export function createProvider(config: ProviderConfig, format: ModelDialect): ModelProvider {
  const speaks = dialectOf(config.kind);
  if (speaks !== 'either' && speaks !== format) {
    throw new TypeError(`provider '${config.kind}' speaks ${speaks}, not ${format}: the session's format and the provider must match`);
  }
  return format === 'gemini' ? createGenaiProvider(config) : createOpenAIChatProvider(config);
}
