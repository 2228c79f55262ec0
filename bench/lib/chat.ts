/**
 * The OpenAI-compatible providers the cache section measures, each against the local server
 * started with the matching `usage` preset, through the openai SDK: the engine applies the
 * provider's own rules (cache minimum, block, DeepSeek's build wait: src/model/presets.ts) and the
 * server simulates the provider's cache and usage fields (src/local-server/openai/cache-presets.ts).
 * 'none' is a vLLM-like server that caches without saying so: the engine's `openai-compatible`.
 */
import type { UsagePreset } from '../../dist/src/local-server/index.js';

type ChatKind = 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible';

const KIND: Readonly<Record<UsagePreset, ChatKind>> = {
  openai: 'openai',
  deepseek: 'deepseek',
  dashscope: 'dashscope',
  none: 'openai-compatible',
};

/** A key the simulator accepts; it is no secret. */
const BENCH_KEY = 'sk-bench';

/** The provider descriptor for a server started with `usage: preset` at `url` (an engine option and a ProviderConfig alike). */
export function chatProvider(url: string, preset: UsagePreset): { kind: ChatKind; apiKey: string; baseUrl: string } {
  return { kind: KIND[preset], apiKey: BENCH_KEY, baseUrl: `${url.replace(/\/+$/, '')}/v1` };
}
