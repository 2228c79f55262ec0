import { DEEPSEEK_UNIT_INTERVAL_TOKENS } from './deepseek-units.js';
import type { ProviderKind } from './types.js';

/**
 * The OpenAI-compatible providers in one table: where each is reached, which key it reads, which
 * request knobs it takes, what its prompt cache documents and which usage fields it reports.
 * Sources: the project's notes (openai-compatible-cache-rules.md), each number with its page.
 * Anthropic's Messages API has a table of its own (ANTHROPIC_PRESET, at the end).
 */

/** Where a usage object says how many prompt tokens were read from (or written to) the cache. */
type UsageField =
  | 'prompt_tokens_details.cached_tokens'
  | 'prompt_tokens_details.cache_write_tokens'
  | 'prompt_tokens_details.cache_creation_input_tokens'
  | 'prompt_cache_hit_tokens'
  | 'prompt_cache_miss_tokens';

export interface ChatPreset {
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
  /** How long an unused entry is documented to last, ms; undefined: no bound is documented (the report then never blames the TTL). */
  cacheTtlMs: number | undefined;
  /** The cache is made of whole prefix units (DeepSeek), cut at this interval among other places (src/model/deepseek-units.ts). */
  prefixUnitTokens?: number;
  /** The usage fields it documents about the cache (none: it reports cached tokens only when configured to). */
  usageFields: readonly UsageField[];
}

export type ChatProviderKind = Exclude<ProviderKind, 'gemini' | 'anthropic' | 'ai-sdk'>;

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
    // developers.openai.com/api/docs/guides/prompt-caching: "cached prefixes generally remain active for 5 to 10
    // minutes of inactivity" (the lower bound; GPT-5.6 and later: prompt_cache_options' ttl, 30 minutes, chatPlan).
    cacheTtlMs: 300_000,
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
    // https://api-docs.deepseek.com/guides/kv_cache: "usually within a few hours to a few days": no bound to blame.
    cacheTtlMs: undefined,
    // same page: "A subsequent request can only hit the cache if it fully matches a cache prefix unit."
    prefixUnitTokens: DEEPSEEK_UNIT_INTERVAL_TOKENS,
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
    // Implicit: "Not guaranteed. The system periodically clears unused cached data." (explicit markers: 5 minutes, chatPlan).
    cacheTtlMs: undefined,
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
    // vLLM and SGLang evict by capacity (LRU), not by age.
    cacheTtlMs: undefined,
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
    // The simulator's openai preset keeps an unused entry 5 minutes.
    cacheTtlMs: 300_000,
    usageFields: ['prompt_tokens_details.cached_tokens', 'prompt_cache_hit_tokens', 'prompt_tokens_details.cache_creation_input_tokens'],
  },
};

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
  config: { kind: string; baseUrl?: string; apiKey?: string; apiKeyEnv?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ChatEndpoint {
  const kind = config.kind as ChatProviderKind;
  if ((config.kind as ProviderKind) === 'gemini' || config.kind === 'anthropic') {
    throw new TypeError(`provider '${kind}' does not speak Chat Completions (format 'openai-chat')`);
  }
  const preset = Object.hasOwn(CHAT_PRESETS, kind) ? CHAT_PRESETS[kind] : undefined;
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

/**
 * Anthropic's Messages API (the @anthropic-ai/sdk client), kept apart from CHAT_PRESETS: it speaks
 * another dialect, and its prompt cache works only at `cache_control` breakpoints. The cache page
 * cited below is https://platform.claude.com/docs/en/build-with-claude/prompt-caching (Anthropic's
 * "Prompt caching"). The stored copies of that page that were searchable for this work carried its
 * opening sections only; the sentences quoted here are the page's own, as several public notes that
 * fetched it quote it word for word (the newest, accessed 2026-10-08).
 */
interface AnthropicPreset {
  /** The SDK's own default (client.ts: `baseURL || 'https://api.anthropic.com'`). */
  defaultBaseUrl: string;
  /** Read for a base URL before the default, as the SDK reads it (trimmed; empty means unset). */
  baseUrlEnv: string;
  /** Read for the key when the config has none (the SDK's own variable); `apiKeyEnv` overrides it. */
  apiKeyEnv: string;
  /** "You can define up to 4 cache breakpoints (using `cache_control` parameters) in your prompt." */
  maxBreakpoints: number;
  /**
   * "The lookback window is 20 blocks." A breakpoint finds an earlier cache entry only within the
   * 20 content blocks before it; a longer stretch needs another breakpoint.
   */
  lookbackBlocks: number;
  /**
   * `cache_control.ttl`: "5m" or "1h", "Defaults to `5m`" (https://platform.claude.com/docs/en/api/messages/create).
   * "By default, the cache has a 5-minute lifetime. The cache is refreshed for no additional cost each time the cached content is used."
   */
  ttls: readonly ['5m', '1h'];
  /**
   * Prices relative to the model's base input price: "5-minute cache write tokens are 1.25 times the
   * base input tokens price", "1-hour cache write tokens are 2 times the base input tokens price",
   * "Cache read tokens are 0.1 times the base input tokens price (see the table footnote for
   * per-model exceptions)" — the footnote's exceptions are lower reads: 0.05× on Claude Opus 5.5
   * and Sonnet 5.5, 0.025× on Claude Fable 5.1 and Mythos 5.1.
   */
  costMultipliers: { read: number; write5m: number; write1h: number };
  /**
   * "For concurrent requests, note that a cache entry only becomes available after the first
   * response begins": a warm-up waits for the first response to begin, and nothing more.
   */
  cacheBuildMs: number;
  /** The minimum cacheable prompt for a model this table does not know (see anthropicMinCacheTokens). */
  defaultMinCacheTokens: number;
  /**
   * The minimum cacheable prompt per model, the page's "Cache limitations" (#cache-limitations):
   *   "On the Claude API, Claude Platform on AWS, Google Cloud, and Microsoft Foundry, the minimum
   *   cacheable prompt length is:
   *   * 512 tokens for Claude Fable 5.1, Claude Mythos 5.1, Claude Opus 5.5, Claude Opus 5, Claude
   *     Sonnet 5.5, Claude Fable 5, Claude Mythos 5, and Claude Haiku 5.5
   *   * 2,048 tokens for Claude Mythos Preview and Claude Opus 4.7
   *   * 4,096 tokens for Claude Opus 4.6 and Claude Opus 4.5
   *   * 1,024 tokens for Claude Opus 4.8, Claude Sonnet 5, Claude Sonnet 4.6, Claude Sonnet 4.5,
   *     Claude Opus 4.1 (…), Claude Opus 4 (…), and Claude Sonnet 4 (…)
   *   * 4,096 tokens for Claude Haiku 4.5
   *   * 2,048 tokens for Claude Haiku 3.5 (…)"
   *   "Shorter prompts cannot be cached, even if marked with `cache_control`. Any requests to cache
   *   fewer than this number of tokens will be processed without caching, and no error is returned."
   * (The 512 line as quoted on 2026-10-08; earlier copies list fewer models in it, the other lines
   * are the same in every copy since 2026-07-28. The parentheses are deprecation notes.) Retired
   * models the page no longer lists keep what its earlier version said
   * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching): "1024 tokens for Claude Opus 4, Claude Sonnet 4, Claude Sonnet 3.7, Claude Sonnet 3.5
   * and Claude Opus 3" and "2048 tokens for Claude Haiku 3.5 and Claude Haiku 3". Keys are model
   * ids as the SDK's `Model` type names them (Claude 3.x ids put the version first: `claude-3-5-haiku`).
   */
  minCacheTokens: Readonly<Record<string, number>>;
}

export const ANTHROPIC_PRESET: Readonly<AnthropicPreset> = {
  defaultBaseUrl: 'https://api.anthropic.com',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  maxBreakpoints: 4,
  lookbackBlocks: 20,
  ttls: ['5m', '1h'],
  costMultipliers: { read: 0.1, write5m: 1.25, write1h: 2 },
  cacheBuildMs: 0,
  // Not documented: an unknown model (a newer one, e.g. claude-fable-5-2, which the SDK 1.15 names
  // but the page quoted above does not) is taken at 1,024, the minimum most models have had.
  defaultMinCacheTokens: 1024,
  minCacheTokens: {
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
  },
};

/**
 * The documented minimum cacheable prompt of an Anthropic model, by model-id prefix: the longest
 * key of ANTHROPIC_PRESET.minCacheTokens that the id starts with, where what follows the key is not
 * a further version number (`claude-opus-4-5-20251101` and `claude-opus-4-5@20251101` are Claude
 * Opus 4.5, 4,096; `claude-opus-4-8` is not Claude Opus 4, and `claude-fable-5-2` is not Claude
 * Fable 5). A model the table does not know gets the default, 1,024 tokens: an assumption, not a
 * documented number.
 */
export function anthropicMinCacheTokens(model: string): number {
  let best: string | undefined;
  for (const key of Object.keys(ANTHROPIC_PRESET.minCacheTokens)) {
    if (!model.startsWith(key) || (best !== undefined && best.length >= key.length)) continue;
    // `-5`, `-12`: another version of the model, not this one; `-20251101` (a date), `@…`, `-v1:0` are this one.
    if (/^-\d{1,2}(?!\d)/.test(model.slice(key.length))) continue;
    best = key;
  }
  return best === undefined
    ? ANTHROPIC_PRESET.defaultMinCacheTokens
    : (ANTHROPIC_PRESET.minCacheTokens[best] ?? ANTHROPIC_PRESET.defaultMinCacheTokens);
}

/** Where an Anthropic provider is reached and with which key. */
export interface AnthropicEndpoint {
  baseUrl: string;
  apiKey: string;
  /** False for the local simulator's stand-in key: nothing to keep secret. */
  keyIsSecret: boolean;
}

/**
 * Resolves an Anthropic provider's base URL and key. `anthropic`: the config's baseUrl, else
 * ANTHROPIC_BASE_URL (as the SDK reads it), else https://api.anthropic.com; the key is `apiKey`,
 * else the variable `apiKeyEnv` names (ANTHROPIC_API_KEY by default), else a TypeError naming that
 * variable. `local`: the started simulator's root URL (`baseUrl`, required; the SDK adds
 * /v1/messages) and the stand-in key unless the config gives one (apiKey, or apiKeyEnv named
 * explicitly: ANTHROPIC_API_KEY is never sent to the simulator by default). The key is returned
 * for the client only: it never goes into a message or a result.
 */
export function resolveAnthropicEndpoint(
  config: { kind: string; baseUrl?: string; apiKey?: string; apiKeyEnv?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): AnthropicEndpoint {
  const { kind } = config;
  const fromEnv = (name: string): string | undefined => nonEmpty(env[name]?.trim());
  if (kind === 'local') {
    const baseUrl = nonEmpty(config.baseUrl);
    if (baseUrl === undefined) {
      throw new TypeError(
        "provider 'local' with format 'anthropic-messages' needs baseUrl: the URL of the started local server (the SDK adds /v1/messages)",
      );
    }
    const own = nonEmpty(config.apiKey) ?? (config.apiKeyEnv !== undefined ? fromEnv(config.apiKeyEnv) : undefined);
    return own !== undefined ? { baseUrl, apiKey: own, keyIsSecret: true } : { baseUrl, apiKey: LOCAL_API_KEY, keyIsSecret: false };
  }
  if (kind !== 'anthropic') {
    throw new TypeError(`provider '${kind}' does not speak Anthropic's Messages API (format 'anthropic-messages')`);
  }
  const baseUrl = nonEmpty(config.baseUrl) ?? fromEnv(ANTHROPIC_PRESET.baseUrlEnv) ?? ANTHROPIC_PRESET.defaultBaseUrl;
  const keyEnv = config.apiKeyEnv ?? ANTHROPIC_PRESET.apiKeyEnv;
  const apiKey = nonEmpty(config.apiKey) ?? fromEnv(keyEnv);
  if (apiKey === undefined) throw new TypeError(`provider 'anthropic' needs an API key: set ${keyEnv} (or give apiKey)`);
  return { baseUrl, apiKey, keyIsSecret: true };
}
