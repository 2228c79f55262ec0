import type { Failure } from '../input/failure.js';
import type { Finish } from './finish.js';
import type { ModelMessage, ModelRequest } from '../shapes/registry.js';

/** A factory setting: a value, or `{ env }`, the name of the variable that holds it (a key is only ever given so). */
export type AiSdkSetting = string | number | boolean | { env: string };

/** What a descriptor names of an AI SDK model; it crosses threads and machines, so it holds no key. */
export interface AiSdkModelSpec {
  /** The provider package, as the user's project resolves it: `@ai-sdk/openai`. */
  package: string;
  /** Its factory: `createOpenAI`; absent: the package's one `create…` function. */
  factory?: string;
  /** The method of the factory's provider that makes the model (`chat`: Chat Completions); absent: the provider called as a function. */
  method?: string;
  settings: Readonly<Record<string, AiSdkSetting>>;
  /** The model id: `gpt-4.1-mini`. */
  model: string;
  /**
   * How each call is made: `stream` (streamText, the default) or `generate` (generateText). Use the
   * one the parent's agent uses: a package may render the two differently (@ai-sdk/anthropic marks a
   * streamed request's tools `eager_input_streaming`), and the forks' bytes must be the parent's.
   */
  mode?: 'stream' | 'generate';
}

// The shapes' request and message types live in their folders (src/shapes/<shape>/request.ts); the registry builds the unions.
export type {
  AiSdkMessageLike,
  AiSdkRequest,
  AnthropicMessageLike,
  AnthropicRequest,
  GeminiRequest,
  ModelMessage,
  ModelRequest,
  OpenAIChatRequest,
  OpenAIResponsesRequest,
  ResponsesItemLike,
} from '../shapes/registry.js';
export interface TokenUsage {
  promptTokens: number;
  /** null: the provider does not report cached tokens (vLLM without --enable-prompt-tokens-details, SGLang without --enable-cache-report). */
  cachedTokens: number | null;
  /**
   * Output as billed: the answer and any thinking (Gemini's candidates + thoughts; OpenAI's
   * completion/output tokens and Anthropic's output tokens, which hold the reasoning already).
   */
  outputTokens: number;
  /** Of outputTokens, those spent thinking, where the provider says (Gemini's thoughts, OpenAI's reasoning tokens). */
  reasoningTokens?: number;
  /**
   * Input billed beyond the prompt (Gemini's `toolUsePromptTokenCount`: its `totalTokenCount` counts
   * it on top of `promptTokenCount`), priced as input and counted by every budget.
   */
  toolUsePromptTokens?: number;
  /** Tokens written into a cache by this call, when the provider reports it (Anthropic, DashScope explicit, OpenAI's newer models). */
  cacheWriteTokens?: number;
  /** Of cacheWriteTokens, those written with a 1-hour TTL (Anthropic bills them 2×, 5-minute writes 1.25×). */
  cacheWrite1hTokens?: number;
}

/** Every token a call is billed for: its prompt, input billed beyond it, and its output (thinking included). */
export function billedTokens(usage: Pick<TokenUsage, 'promptTokens' | 'outputTokens' | 'toolUsePromptTokens'>): number {
  return usage.promptTokens + (usage.toolUsePromptTokens ?? 0) + usage.outputTokens;
}

/** A sum of a figure some providers report (reasoning, cache writes, tool-use input): undefined until one does. */
export function addKnown(sum: number | undefined, more: number | undefined): number | undefined {
  return more === undefined ? sum : (sum ?? 0) + more;
}

/** Cached tokens summed: unknown (null) as soon as one call's count is unknown. */
export function addCached(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

type ModelErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'malformed';

/** A failed model call: the shared failure shape, plus what retries need. */
export interface ModelError extends Failure<ModelErrorKind> {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The server's own hint (Retry-After header or RetryInfo), in ms. */
  retryAfterMs?: number;
  /** Whether the same call may succeed when sent again. */
  retryable: boolean;
}

/**
 * Why Anthropic's prompt cache could not reuse the prefix of the request a call named: the `type`
 * of the response's `diagnostics.cache_miss_reason`, as
 * https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics ("Cache miss reason
 * types") lists them. The four `*_changed` types name the earliest divergence; the last two mean
 * "no comparison was produced".
 */
export const ANTHROPIC_MISS_REASONS = [
  'model_changed',
  'system_changed',
  'tools_changed',
  'messages_changed',
  'previous_message_not_found',
  'unavailable',
] as const;
export type AnthropicMissReason = (typeof ANTHROPIC_MISS_REASONS)[number];

/**
 * Why OpenAI's prompt cache did not reuse the prefix of the response a Responses call named: a
 * `cache_miss`'s `reason` (the API reference's CacheMissReasonTypeEnum, as the openai SDK's later
 * releases type Response.prompt_cache_diagnostics), then the two answers that give no reason
 * (`comparison_response_not_found`, `unavailable`: their `type`).
 */
export const OPENAI_MISS_REASONS = [
  'model_changed',
  'prompt_cache_key_changed',
  'tools_changed',
  'text_format_changed',
  'reasoning_effort_changed',
  'verbosity_changed',
  'context_compacted',
  'input_changed',
  'service_tier_changed',
  'comparison_response_not_found',
  'unavailable',
] as const;
type OpenAIMissReason = (typeof OPENAI_MISS_REASONS)[number];

/** A miss as a provider's cache diagnostics reports it (Anthropic's `diagnostics.cache_miss_reason`, OpenAI's `prompt_cache_diagnostics`). */
interface ProviderCacheMiss {
  reason: AnthropicMissReason | OpenAIMissReason;
  /**
   * Anthropic's `cache_missed_input_tokens` (the `*_changed` types: "a magnitude indicator rather
   * than a billing number"); OpenAI's `cache_missed_tokens` ("the estimated number of input tokens
   * affected after the first detected divergence").
   */
  missedTokens?: number;
}

/** What a call's response said for a provider's cache diagnostics (Anthropic's; OpenAI's on Responses); every field absent for other providers. */
export interface ResponseDiagnostics {
  /** The response's own id (Anthropic's `msg_…`, the Responses API's `resp_…`), which a later call may name. */
  responseId?: string;
  /**
   * The response this call's prompt was compared with (it named it: GenerateOptions.previousResponseId),
   * set when the verdict is conclusive: with `cacheMiss`, a miss; without, "a comparison ran and
   * found no divergence". Absent while "the comparison was still running" (inconclusive), or when
   * the server said nothing about it.
   */
  diagnosedAgainst?: string;
  cacheMiss?: ProviderCacheMiss;
}

export type ModelOutcome =
  /** `responseModel`: the model that answered, as the response names it (a dated version of the one asked for). */
  | ({
      ok: true;
      message: ModelMessage;
      usage: TokenUsage;
      finish: Finish | undefined;
      responseModel?: string;
      attempts: number;
    } & ResponseDiagnostics)
  | { ok: false; error: ModelError; attempts: number };

/** What an attempt came to, for the run-wide call gate. */
export type AttemptStatus = 'ok' | 'rate_limited' | 'failed';

/**
 * Admission for each attempt of a model call: rate limits, adaptive concurrency, retry budgets.
 * acquire resolves false when the wait was aborted; release says whether a retry may follow.
 */
export interface AttemptGate {
  acquire(tokens: number): Promise<boolean>;
  release(status: AttemptStatus, wantsRetry: boolean): Promise<boolean>;
}

export interface GenerateOptions {
  /**
   * The fork's: aborted when it is cancelled or runs out of time, with an AbortError that says which
   * ("the fork was cancelled", "the fork timed out"), as the model SDKs know a caller's abort.
   */
  signal: AbortSignal;
  gate?: AttemptGate;
  /** About how many tokens the request holds (for tokens-per-minute limits). */
  tokenEstimate?: number;
  /** Called once, when the first bytes of the response arrive (prefill done), with its id where they carry one (Anthropic's message_start). */
  onResponseStart?: (responseId?: string) => void;
  /**
   * Cache diagnostics: the id of an earlier response whose request this one's prompt is compared
   * with. Anthropic: `diagnostics.previous_message_id`, null to opt in with nothing to compare, so
   * that a later call can name this one (the API "stores a fingerprint only for requests that
   * include it"); undefined: no `diagnostics` is sent. OpenAI's Responses API (GPT-5.6 and later):
   * `prompt_cache_options.comparison_response_id`, a completed response; null or undefined: none is
   * sent (no opt-in is needed). Other providers and models ignore it.
   */
  previousResponseId?: string | null;
}

interface CacheHandle {
  name: string;
  /** Tokens the provider counted into the cache. */
  tokens: number;
}

export type CacheOutcome = { ok: true; cache: CacheHandle } | { ok: false; error: ModelError };

/** The narrow interface the engine needs from a model backend: one call. Explicit caches are a provider module's own (module.ts). */
export interface ModelProvider {
  generate(request: ModelRequest, options: GenerateOptions): Promise<ModelOutcome>;
}

/**
 * Who serves the model (the built-in providers). `local`: the built-in simulator; `gemini`:
 * Google's API; `anthropic`: Anthropic's; `ai-sdk`: an AI SDK provider package of the project; the
 * rest speak Chat Completions (`openai-compatible`: vLLM, SGLang or anything at a base URL). The
 * shapes each speaks are its provider module's (`ProviderModule.shapes`).
 */
export type ProviderKind = 'local' | 'gemini' | 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible' | 'anthropic' | 'ai-sdk';

/** Serializable: crosses into worker threads. */
export interface ProviderConfig {
  /** A built-in provider's kind, or one a provider module registered (`module`). */
  kind: string;
  /**
   * A provider of one's own: the URL of the module that exports it (`export const provider`), which
   * every thread and process that calls the model imports once (providers/index.ts, loadProvider).
   */
  module?: string;
  baseUrl?: string;
  apiKey?: string;
  /** The environment variable holding the key, read where the model is called (so the descriptor carries none). */
  apiKeyEnv?: string;
  /**
   * openai-compatible: the server reports cached tokens (vLLM started with
   * --enable-prompt-tokens-details, SGLang with --enable-cache-report), so a usage without
   * `prompt_tokens_details.cached_tokens` means 0 (vLLM up to mid-2026 leaves out a 0). Without it,
   * an absent field reads as unknown.
   */
  reportsCachedTokens?: boolean;
  /** openai: how each Responses API call is made: streamed (the default), or one response (`generate`). */
  mode?: 'stream' | 'generate';
  /** ai-sdk: the AI SDK model it names (package, factory, method, settings by variable name, model id). */
  aiSdk?: AiSdkModelSpec;
  /** Per-attempt bound on one HTTP call, ms. */
  callTimeoutMs?: number;
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  /** Attempts per model call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Retries one fork may spend over all its calls; undefined = only maxAttempts bounds them. */
  forkBudget?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };
