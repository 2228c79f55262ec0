import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ChatAssistantMessage } from '../shapes/openai-chat/schema.js';
import { createNodeTransport } from '../transport/node-fetch.js';
import { BODY_SPLICE, createSplicer, renderThrough, type SpliceShape } from '../transport/splice.js';
import type { AttemptOutcome } from './attempts.js';
import { malformed } from './errors.js';
import { finishOf } from './finish.js';
import { loadOpenAI } from './openai-sdk.js';
import { resolveChatEndpoint } from './presets.js';
import { createStreamingProvider } from './streaming-provider.js';
import type { ModelProvider, OpenAIChatRequest, ProviderConfig, TokenUsage } from './types.js';
import { isRecord } from '../input/json.js';

/**
 * A ModelProvider over the official openai SDK, for every API that speaks Chat Completions
 * (OpenAI, DeepSeek, DashScope, vLLM, SGLang, the local simulator). The request body is the
 * parent's own, sent as it is (its key order, its messages) with streaming and usage turned on;
 * the SDK does not retry (the shared attempt loop does). Throws a TypeError when the key or the
 * base URL cannot be resolved (see resolveChatEndpoint); the key never enters a message or result.
 */
export function createOpenAIChatProvider(config: ProviderConfig): ModelProvider {
  const endpoint = resolveChatEndpoint(config);
  const { preset } = endpoint;

  // The SDK keeps `error.message` of OpenAI's envelope only; a flat body (DashScope's `{code, message}`)
  // would be lost. Failed responses' bodies are kept here, found again by the error's headers object.
  const errorBodies = new WeakMap<Headers, string>();
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await splicer.fetch(input, init);
    if (!response.ok) {
      try {
        errorBodies.set(response.headers, await response.clone().text());
      } catch {
        // The body could not be read (the connection went): the SDK reports that itself.
      }
    }
    return response;
  };

  // The SDK is loaded at the first call, so that a thread running another provider never loads it.
  const clientWith = async (fetchFn: typeof fetch): Promise<OpenAI> =>
    new (await loadOpenAI())({
      apiKey: endpoint.apiKey,
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
      fetch: fetchFn,
      // OPENAI_ORG_ID and OPENAI_PROJECT_ID belong to OpenAI: never sent to another provider.
      ...(preset.sendsOpenAIOrganization ? {} : { organization: null, project: null }),
      // Failures are classified and reported by forkpool; the SDK's console logging stays off unless asked for.
      ...(process.env.OPENAI_LOG ? {} : { logLevel: 'off' as const }),
    });
  // A rendering (once per shared layout) has a client of its own, whose fetch keeps the body and sends nothing.
  const render = (request: OpenAIChatRequest): Promise<string> =>
    renderThrough(async (capture) => (await clientWith(capture)).chat.completions.create(chatBody(request, preset.takesPromptCacheKey)));
  const splicer = createSplicer(BODY_SPLICE as SpliceShape<OpenAIChatRequest>, render, createNodeTransport());
  let client: Promise<OpenAI> | undefined;
  const clientOnce = (): Promise<OpenAI> => (client ??= clientWith(recordingFetch));

  return createStreamingProvider(config, {
    format: 'openai-chat',
    api: 'Chat Completions',
    secrets: endpoint.keyIsSecret ? [endpoint.apiKey] : [],
    prepare: (request) => splicer.prepare(request),
    call(request, options) {
      const reply = new ReplyAccumulator(config.reportsCachedTokens === true);
      let started = false;
      return {
        open: async (requestOptions) =>
          (await clientOnce()).chat.completions.create(chatBody(request, preset.takesPromptCacheKey), requestOptions),
        read(chunk) {
          if (!started) {
            started = true;
            options.onResponseStart?.();
          }
          reply.add(chunk);
          return undefined;
        },
        finish: () => reply.finish(),
        errorContext(err) {
          const headers = (err as { headers?: unknown }).headers;
          const body = headers instanceof Headers ? errorBodies.get(headers) : undefined;
          return body !== undefined ? { body } : {};
        },
      };
    },
  });
}

/**
 * What is sent: the parent's body as it is, keys in its order, then streaming with usage on
 * (options the parent gave for the stream are kept), and the cache key where the API takes one.
 */
function chatBody(request: OpenAIChatRequest, takesPromptCacheKey: boolean): ChatCompletionCreateParamsStreaming {
  const own = request.body.stream_options;
  const streamOptions =
    own !== null && typeof own === 'object' && !Array.isArray(own) ? { ...own, include_usage: true } : { include_usage: true };
  return {
    ...request.body,
    stream: true,
    stream_options: streamOptions,
    ...(takesPromptCacheKey && request.promptCacheKey !== undefined ? { prompt_cache_key: request.promptCacheKey } : {}),
  } as unknown as ChatCompletionCreateParamsStreaming;
}

interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

/** One assistant message out of streamed deltas (choice 0): text, refusal, tool calls by index. */
class ReplyAccumulator {
  private content: string | undefined;
  private refusal: string | undefined;
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | undefined;
  private responseModel: string | undefined;
  private usage: TokenUsage | undefined;
  private sawChoice = false;

  /** `reportsCachedTokens`: the server always reports them, so an absent field is 0 (ProviderConfig). */
  constructor(private readonly reportsCachedTokens: boolean) {}

  add(chunk: ChatCompletionChunk): void {
    const usage = readChatUsage(chunk.usage);
    if (usage !== undefined) this.usage = this.reportsCachedTokens && usage.cachedTokens === null ? { ...usage, cachedTokens: 0 } : usage;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.responseModel = chunk.model;
    const choice = (chunk.choices ?? []).find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    this.sawChoice = true;
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    // DeepSeek's `reasoning_content` is left out on purpose: its docs say not to send it back.
    if (typeof delta.content === 'string') this.content = (this.content ?? '') + delta.content;
    if (typeof delta.refusal === 'string') this.refusal = (this.refusal ?? '') + delta.refusal;
    (delta.tool_calls ?? []).forEach((fragment, position) => {
      const index = typeof fragment.index === 'number' ? fragment.index : position;
      const call = this.calls.get(index) ?? { arguments: '' };
      this.calls.set(index, call);
      // id and name come whole on a call's first fragment; servers that repeat them are not doubled.
      if (call.id === undefined && typeof fragment.id === 'string' && fragment.id !== '') call.id = fragment.id;
      const fn = fragment.function;
      if (call.name === undefined && typeof fn?.name === 'string' && fn.name !== '') call.name = fn.name;
      if (typeof fn?.arguments === 'string') call.arguments += fn.arguments;
    });
  }

  finish(): AttemptOutcome {
    if (!this.sawChoice) return { ok: false, error: malformed('the stream held no choice') };
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    if (toolCalls.some((call) => call.name === undefined)) return { ok: false, error: malformed('a tool call without a name') };
    const message: ChatAssistantMessage = {
      role: 'assistant',
      // null only beside calls or a refusal; an empty answer is an empty string (a message the API takes back).
      content: this.content ?? (toolCalls.length > 0 || this.refusal !== undefined ? null : ''),
      ...(this.refusal !== undefined ? { refusal: this.refusal } : {}),
      ...(toolCalls.length > 0
        ? {
            tool_calls: toolCalls.map((call) => ({
              // A server that sent no id still gets its calls answered: the id is ours, unique in the conversation.
              id: call.id ?? `call_${randomUUID().replace(/-/g, '')}`,
              type: 'function' as const,
              function: { name: call.name as string, arguments: call.arguments },
            })),
          }
        : {}),
    };
    return {
      ok: true,
      message,
      usage: this.usage ?? { promptTokens: 0, cachedTokens: null, outputTokens: 0 },
      finish:
        this.finishReason !== undefined
          ? finishOf(this.finishReason, { calls: toolCalls.length > 0, refused: this.refusal !== undefined })
          : undefined,
      ...(this.responseModel !== undefined ? { responseModel: this.responseModel } : {}),
    };
  }
}

/**
 * A Chat Completions `usage` object in forkpool's terms, by the fields present:
 * cached tokens from DeepSeek's `prompt_cache_hit_tokens`, else `prompt_tokens_details.cached_tokens`
 * when it is a number (OpenAI, DashScope, vLLM with --enable-prompt-tokens-details, SGLang with
 * --enable-cache-report), else null: unknown, never 0. Cache writes from DashScope's
 * `prompt_tokens_details.cache_creation_input_tokens` or OpenAI's `prompt_tokens_details.cache_write_tokens`.
 * Undefined when `usage` is not an object (the chunks before the last carry `usage: null`).
 */
export function readChatUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cacheWriteTokens = count(details.cache_creation_input_tokens) ?? count(details.cache_write_tokens);
  // Reasoning tokens are inside completion_tokens already (OpenAI, DeepSeek): their part, not more.
  const completion = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const reasoningTokens = count(completion.reasoning_tokens);
  return {
    promptTokens: count(usage.prompt_tokens) ?? 0,
    cachedTokens: count(usage.prompt_cache_hit_tokens) ?? count(details.cached_tokens) ?? null,
    outputTokens: count(usage.completion_tokens) ?? 0,
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
