import type { ProviderKind } from './types.js';

/**
 * The OpenAI-compatible providers in one table: where each is reached, which key it reads, which
 * request knobs it takes, what its prompt cache documents and which usage fields it reports.
 * Sources: the project's notes (openai-compatible-cache-rules.md), each number with its page.
 */

/** The request dialects a provider speaks. */
export type ModelDialect = 'gemini' | 'openai-chat' | 'anthropic-messages';

/** Where a usage object says how many prompt tokens were read from (or written to) the cache. */
type UsageField =
  | 'prompt_tokens_details.cached_tokens'
  | 'prompt_tokens_details.cache_write_tokens'
  | 'prompt_tokens_details.cache_creation_input_tokens'
  | 'prompt_cache_hit_tokens'
  | 'prompt_cache_miss_tokens';

interface ChatPreset {
  /** Used when the config names none; undefined: the config must name one (`baseUrl`). */
  defaultBaseUrl: string | undefined;
  /** The environment variable read for a base URL before the default (the openai SDK's own). */
  baseUrlEnv?: string;
  /** The environment variable read for the API key when the config has none; undefined: no key is needed. */
  apiKeyEnv: string | undefined;
  /** Whether requests carry `prompt_cache_key` (cache routing). */
  takesPromptCacheKey: boolean;
  /** Whether the OpenAI organization and project (OPENAI_ORG_ID, OPENAI_PROJECT_ID) belong in its headers. */
  sendsOpenAIOrganization: boolean;
  /** Documented smallest cacheable prompt, tokens; undefined: not documented. */
  cacheMinTokens: number | undefined;
  /** Documented granularity of cache hits, tokens; undefined: not documented. */
  cacheBlockTokens: number | undefined;
  /**
   * How long after a request's response has begun its prefix can be read, ms: what a warm-up waits
   * on top of the first response (and a parent-warm fan-out from its start). 0: at once.
   */
  cacheBuildMs: number;
  /** The usage fields it documents about the cache (none: it reports cached tokens only when configured to). */
  usageFields: readonly UsageField[];
}

type ChatProviderKind = Exclude<ProviderKind, 'gemini' | 'anthropic'>;

export const CHAT_PRESETS: Readonly<Record<ChatProviderKind, ChatPreset>> = {
  openai: {
    // The SDK's default (client.ts: `baseURL || 'https://api.openai.com/v1'`), after OPENAI_BASE_URL as the SDK reads it.
    defaultBaseUrl: 'https://api.openai.com/v1',
    baseUrlEnv: 'OPENAI_BASE_URL',
    apiKeyEnv: 'OPENAI_API_KEY',
    takesPromptCacheKey: true,
    sendsOpenAIOrganization: true,
    // https://developers.openai.com/api/docs/guides/prompt-caching: "caching is enabled automatically
    // for prompts that are 1,024 tokens or longer" (earlier models: "from 1,024 to 2,048 tokens").
    cacheMinTokens: 1024,
    // same page: "Cache hits occur in increments of 128 tokens." (GPT-5.6 and later: exact at breakpoints.)
    cacheBlockTokens: 128,
    // No delay is documented: a prefix is readable once the response that wrote it has begun.
    cacheBuildMs: 0,
    // same page: "For the Chat Completions API, they appear in `usage.prompt_tokens_details`";
    // GPT-5.6 and later also report `cache_write_tokens` there.
    usageFields: ['prompt_tokens_details.cached_tokens', 'prompt_tokens_details.cache_write_tokens'],
  },
  deepseek: {
    // https://api-docs.deepseek.com (base_url https://api.deepseek.com, `/v1` also accepted).
    defaultBaseUrl: 'https://api.deepseek.com',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    takesPromptCacheKey: false,
    sendsOpenAIOrganization: false,
    // https://api-docs.deepseek.com/news/news0802 (the earlier kv_cache page): "The cache system uses
    // 64 tokens as a storage unit; content less than 64 tokens will not be cached." The current
    // https://api-docs.deepseek.com/guides/kv_cache no longer states a number ("cache prefix units").
    cacheMinTokens: 64,
    cacheBlockTokens: 64,
    // https://api-docs.deepseek.com/guides/kv_cache: "Cache construction takes seconds." No number is
    // given: 3 s is our pick (the simulator builds in 2 s); a run that needs more sets cacheBuildMs.
    cacheBuildMs: 3000,
    // https://api-docs.deepseek.com/guides/kv_cache: prompt_cache_hit_tokens / prompt_cache_miss_tokens.
    usageFields: ['prompt_cache_hit_tokens', 'prompt_cache_miss_tokens'],
  },
  dashscope: {
    // https://www.alibabacloud.com/help/en/model-studio/base-url: Singapore (international) endpoint.
    defaultBaseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    takesPromptCacheKey: false,
    sendsOpenAIOrganization: false,
    // https://www.alibabacloud.com/help/en/model-studio/context-cache, implicit: "Content with fewer
    // than 256 tokens will not be cached." (explicit cache_control markers: "at least 1024 tokens").
    cacheMinTokens: 256,
    // Not documented for the implicit cache.
    cacheBlockTokens: undefined,
    // Implicit cache: no delay documented (explicit markers are written "after model response").
    cacheBuildMs: 0,
    // same page: prompt_tokens_details.cached_tokens; explicit markers add cache_creation_input_tokens.
    usageFields: ['prompt_tokens_details.cached_tokens', 'prompt_tokens_details.cache_creation_input_tokens'],
  },
  'openai-compatible': {
    // vLLM (http://localhost:8000/v1), SGLang (http://localhost:30000/v1), …: no default.
    defaultBaseUrl: undefined,
    // Optional: vLLM's --api-key / VLLM_API_KEY is the server's; the key comes from the config.
    apiKeyEnv: undefined,
    takesPromptCacheKey: false,
    sendsOpenAIOrganization: false,
    // https://docs.vllm.ai/en/latest/design/prefix_caching/: "We only cache full blocks."; block_size
    // 16 on CUDA (vllm/platforms/cuda.py). SGLang: page size 1, no minimum found. The server decides.
    cacheMinTokens: undefined,
    cacheBlockTokens: undefined,
    // vLLM and SGLang share a prefix as soon as it is computed.
    cacheBuildMs: 0,
    // Only when started so: vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report.
    usageFields: [],
  },
  local: {
    // The simulator: `${baseUrl}/v1`, the base URL of the server that was started (no default here).
    defaultBaseUrl: undefined,
    apiKeyEnv: undefined,
    takesPromptCacheKey: false,
    sendsOpenAIOrganization: false,
    // Its rules follow the `usage` preset it was started with (CHAT_CACHE_PRESETS in src/local-server).
    cacheMinTokens: undefined,
    cacheBlockTokens: undefined,
    // The simulator's openai preset, the one the built-in server starts with.
    cacheBuildMs: 0,
    usageFields: ['prompt_tokens_details.cached_tokens', 'prompt_cache_hit_tokens', 'prompt_tokens_details.cache_creation_input_tokens'],
  },
};

/**
 * The dialect a provider kind speaks: Gemini's API speaks `gemini`, the OpenAI-compatible ones
 * `openai-chat`; the local simulator speaks both (`either`: the session's format decides).
 */
export function dialectOf(kind: ProviderKind): ModelDialect | 'either' {
  if (kind === 'gemini') return 'gemini';
  if (kind === 'anthropic') return 'anthropic-messages';
  if (kind === 'local') return 'either';
  return 'openai-chat';
}

/**
 * DashScope's explicit cache (cache_control markers): https://www.alibabacloud.com/help/en/model-studio/context-cache
 * "A cache block must contain at least 1024 tokens"; the entry exists only "after model response".
 */
export const DASHSCOPE_MARKER_MIN_TOKENS = 1024;

/** The key sent to servers that want none: the local simulator accepts any unless told otherwise. */
export const LOCAL_API_KEY = 'forkpool-local';
/** vLLM's documented stand-in when the server was started without --api-key. */
const NO_KEY = 'EMPTY';

/** Where a Chat Completions provider is reached and with which key. */
export interface ChatEndpoint {
  kind: ChatProviderKind;
  preset: ChatPreset;
  baseUrl: string;
  apiKey: string;
  /** False for a stand-in key (local, or a server that needs none): nothing to keep secret. */
  keyIsSecret: boolean;
}

/**
 * Resolves a Chat Completions provider's base URL and key: the config's own, else the preset's
 * environment variable, else its default; `local` is reached at `${baseUrl}/v1`. Throws a TypeError
 * naming what is missing (the variable to set, or `baseUrl`). The key is returned for the client
 * only: it never goes into a message or a result.
 */
export function resolveChatEndpoint(
  config: { kind: ProviderKind; baseUrl?: string; apiKey?: string; apiKeyEnv?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ChatEndpoint {
  const { kind } = config;
  if (kind === 'gemini' || kind === 'anthropic') {
    throw new TypeError(`provider '${kind}' does not speak Chat Completions (format 'openai-chat')`);
  }
  const preset = CHAT_PRESETS[kind];
  if (preset === undefined) throw new TypeError(`unknown provider kind ${JSON.stringify(kind)}`);
  const fromEnv = (name: string | undefined): string | undefined => (name === undefined || !env[name] ? undefined : env[name]);

  let baseUrl = nonEmpty(config.baseUrl) ?? fromEnv(preset.baseUrlEnv) ?? preset.defaultBaseUrl;
  if (baseUrl === undefined) {
    throw new TypeError(
      kind === 'local'
        ? "provider 'local' with format 'openai-chat' needs baseUrl: the URL of the started local server (its routes are under /v1)"
        : `provider '${kind}' needs baseUrl: the server's Chat Completions base URL (e.g. http://localhost:8000/v1)`,
    );
  }
  if (kind === 'local') baseUrl = `${baseUrl.replace(/\/+$/, '')}/v1`;

  const keyEnv = config.apiKeyEnv ?? preset.apiKeyEnv;
  const own = nonEmpty(config.apiKey) ?? fromEnv(keyEnv);
  if (own !== undefined) return { kind, preset, baseUrl, apiKey: own, keyIsSecret: true };
  if (keyEnv !== undefined) {
    throw new TypeError(`provider '${kind}' needs an API key: set ${keyEnv} (or give apiKey)`);
  }
  return { kind, preset, baseUrl, apiKey: kind === 'local' ? LOCAL_API_KEY : NO_KEY, keyIsSecret: false };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
