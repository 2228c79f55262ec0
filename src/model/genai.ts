import type { GoogleGenAI, GenerateContentConfig, GenerateContentResponse, Part as GenaiPart } from '@google/genai/web';
import type { Part } from '../shapes/gemini/schema.js';
import { createNodeTransport } from '../transport/node-fetch.js';
import { createSplicer, renderThrough, type SpliceShape } from '../transport/splice.js';
import { type AttemptOutcome, runAttempts } from './attempts.js';
import { classifyError, malformed } from './errors.js';
import { finishOf } from './finish.js';
import type { ExplicitCacheClient } from './module.js';
import { LOCAL_API_KEY } from './presets.js';
import {
  DEFAULT_RETRY,
  type CacheOutcome,
  type GeminiRequest,
  type GenerateOptions,
  type ModelError,
  type ModelProvider,
  type ProviderConfig,
  type TokenUsage,
} from './types.js';

/** A ModelProvider over the real @google/genai SDK, with its explicit caches: Gemini API, or any endpoint speaking it. */
export function createGenaiProvider(config: ProviderConfig): ModelProvider & ExplicitCacheClient {
  const apiKey = config.apiKey ?? (config.kind === 'local' ? LOCAL_API_KEY : undefined);
  // The SDK is loaded at the first call, so that a thread running another provider never loads it.
  let client: Promise<GoogleGenAI> | undefined;
  const clientOnce = (): Promise<GoogleGenAI> =>
    (client ??= loadGenai().then(
      (Client) =>
        new Client({
          vertexai: false,
          ...(apiKey !== undefined ? { apiKey } : {}),
          ...(config.baseUrl !== undefined ? { httpOptions: { baseUrl: config.baseUrl } } : {}),
        }),
    ));
  const policy = config.retry ?? DEFAULT_RETRY;
  // A key the config gave is kept out of every message, as with the other providers.
  const secrets = config.apiKey ? [config.apiKey] : [];
  const render = (request: GeminiRequest): Promise<string> =>
    renderThrough(async (capture) =>
      (await clientOnce()).models.generateContentStream({
        model: request.model,
        contents: request.contents as never,
        config: requestConfig(request, NEVER, capture, undefined),
      }),
    );
  // The SDK reads a streamed answer through its body's getReader() alone.
  const splicer = createSplicer(GEMINI_SPLICE, render, createNodeTransport({ readerBodies: true }));

  async function attempt(request: GeminiRequest, options: GenerateOptions): Promise<AttemptOutcome> {
    let retryAfter: string | null = null;
    // Per call, so the Retry-After header of this call's failure can be read back.
    // Without a call timeout the transport is given the fork's signal itself: the SDK would make an
    // AbortController per attempt, listening on the fork's signal until the fork ends.
    const direct = config.callTimeoutMs === undefined;
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await splicer.fetch(input, direct ? { ...init, signal: options.signal } : init);
      if (!response.ok) retryAfter = response.headers.get('retry-after');
      return response;
    };
    try {
      const stream = await (await clientOnce()).models.generateContentStream({
        model: request.model,
        contents: request.contents as never,
        config: requestConfig(request, direct ? undefined : options.signal, recordingFetch, config.callTimeoutMs),
      });
      let started = false;
      const parts: Part[] = [];
      let usage: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
      let finishReason: string | undefined;
      let responseModel: string | undefined;
      let sawCandidate = false;
      for await (const chunk of stream) {
        if (!started) {
          started = true;
          options.onResponseStart?.();
        }
        usage = readUsage(chunk) ?? usage;
        if (typeof chunk.modelVersion === 'string' && chunk.modelVersion !== '') responseModel = chunk.modelVersion;
        const candidate = chunk.candidates?.[0];
        if (!candidate) continue;
        sawCandidate = true;
        finishReason = candidate.finishReason ?? finishReason;
        for (const part of candidate.content?.parts ?? []) appendPart(parts, part);
      }
      const malformed = checkParts(parts, sawCandidate);
      if (malformed) return { ok: false, error: malformed };
      const calls = parts.some((part) => (part as { functionCall?: unknown }).functionCall !== undefined);
      const finish = finishReason !== undefined ? finishOf(finishReason, { calls }) : undefined;
      return { ok: true, message: { role: 'model', parts }, usage, finish, ...(responseModel !== undefined ? { responseModel } : {}) };
    } catch (err) {
      // The call's own timeout, wherever it fired, reaches here as an AbortError (the transport fails a body's reads
      // with the abort's reason) while the fork's signal is not aborted: classifyError calls that a timeout.
      return { ok: false, error: classifyError(err, options.signal, retryAfter, { secrets }) };
    }
  }

  return {
    async generate(request, options) {
      if (request.format !== 'gemini') {
        throw new TypeError(
          `the Gemini provider was given a request in the ${String(request.format)} dialect; it sends only format 'gemini'`,
        );
      }
      const prepared = await splicer.prepare(request);
      try {
        return await runAttempts(policy, options, () => attempt(prepared.request, options));
      } finally {
        prepared.release();
      }
    },

    held(request) {
      if (request.format !== 'gemini') return request;
      // A cachedContent holds no sampling settings: each request that names it sends its own.
      const { generationConfig: _sentWithEachCall, ...held } = request;
      return held;
    },

    async createCache(request, ttlSeconds, signal): Promise<CacheOutcome> {
      if (request.format !== 'gemini') {
        return {
          ok: false,
          error: {
            kind: 'http',
            message: `explicit caches (cachedContents) are Gemini's; this session is in the ${request.format} shape`,
            retryable: false,
          },
        };
      }
      try {
        const cache = await (await clientOnce()).caches.create({
          model: request.model,
          config: {
            contents: request.contents as never,
            ...(request.systemInstruction !== undefined ? { systemInstruction: request.systemInstruction as never } : {}),
            ...(request.tools !== undefined ? { tools: request.tools as never } : {}),
            ...(request.toolConfig !== undefined ? { toolConfig: request.toolConfig as never } : {}),
            ttl: `${Math.ceil(ttlSeconds)}s`,
            abortSignal: signal,
          },
        });
        if (!cache.name) return { ok: false, error: malformed('cachedContents.create returned no name') };
        return { ok: true, cache: { name: cache.name, tokens: cache.usageMetadata?.totalTokenCount ?? 0 } };
      } catch (err) {
        return { ok: false, error: classifyError(err, signal, null, { secrets }) };
      }
    },

    async deleteCache(name) {
      try {
        await (await clientOnce()).caches.delete({ name });
      } catch {
        // Best effort: an expired cache is already gone, and the TTL bounds a leaked one.
      }
    },
  };
}

let sdk: Promise<typeof GoogleGenAI> | undefined;
/**
 * The @google/genai client class, imported once, at the first call that needs it (or a thread's
 * start ahead). Its fetch build (`@google/genai/web`): forkpool speaks to the Gemini API with a key
 * and its own fetch, never Vertex AI's Google auth, and that build sends the same bytes while it
 * loads in a quarter of the node build's CPU (it leaves out google-auth-library and ws).
 */
export function loadGenai(): Promise<typeof GoogleGenAI> {
  sdk ??= import('@google/genai/web').then((m) => m.GoogleGenAI);
  return sdk;
}

/** A signal that never aborts: a rendering sends nothing. */
const NEVER = new AbortController().signal;

/**
 * Where @google/genai writes a request's shared parts: the body's own fields of the same names. A
 * sentinel is a value the SDK passes through (it rebuilds Contents and tools key by key).
 */
const GEMINI_SPLICE: SpliceShape<GeminiRequest> = {
  root: (request) => request as unknown as Readonly<Record<string, unknown>>,
  withRoot: (_request, root) => root as unknown as GeminiRequest,
  fields: [{ key: 'systemInstruction' }, { key: 'tools' }, { key: 'contents', run: true }],
  sentinel(key, marker) {
    if (key === 'tools') return [{ functionDeclarations: [{ name: marker }] }];
    if (key === 'contents') return { role: 'user', parts: [{ text: marker }] };
    return { parts: [{ text: marker }] };
  },
};

function requestConfig(
  request: GeminiRequest,
  signal: AbortSignal | undefined,
  fetchFn: typeof fetch,
  timeoutMs: number | undefined,
): GenerateContentConfig {
  const config: GenerateContentConfig = {
    ...(request.generationConfig as GenerateContentConfig | undefined),
    ...(signal !== undefined ? { abortSignal: signal } : {}),
    httpOptions: { fetch: fetchFn, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) },
  };
  if (request.cachedContent !== undefined) config.cachedContent = request.cachedContent;
  if (request.systemInstruction !== undefined) config.systemInstruction = request.systemInstruction as never;
  if (request.tools !== undefined) config.tools = request.tools as never;
  if (request.toolConfig !== undefined) config.toolConfig = request.toolConfig as never;
  return config;
}

function readUsage(chunk: GenerateContentResponse): TokenUsage | undefined {
  const u = chunk.usageMetadata;
  if (!u) return undefined;
  // Gemini bills thoughts as output, beside the candidates, and tool-use prompt tokens as input on
  // top of the prompt: its totalTokenCount is prompt + toolUsePrompt + candidates + thoughts.
  const thoughts = u.thoughtsTokenCount ?? 0;
  return {
    promptTokens: u.promptTokenCount ?? 0,
    cachedTokens: u.cachedContentTokenCount ?? 0,
    outputTokens: (u.candidatesTokenCount ?? 0) + thoughts,
    ...(u.thoughtsTokenCount !== undefined ? { reasoningTokens: thoughts } : {}),
    ...(u.toolUsePromptTokenCount !== undefined ? { toolUsePromptTokens: u.toolUsePromptTokenCount } : {}),
  };
}

/** Streamed text arrives in pieces: join adjacent text parts of the same kind. */
function appendPart(parts: Part[], part: GenaiPart): void {
  const last = parts[parts.length - 1] as (Part & { text?: string; thought?: boolean }) | undefined;
  if (
    typeof part.text === 'string' &&
    last !== undefined &&
    typeof last.text === 'string' &&
    Boolean(last.thought) === Boolean(part.thought)
  ) {
    parts[parts.length - 1] = { ...last, ...part, text: last.text + part.text } as Part;
    return;
  }
  parts.push({ ...part } as Part);
}

function checkParts(parts: readonly Part[], sawCandidate: boolean): ModelError | undefined {
  if (!sawCandidate) return malformed('the response held no candidate');
  for (const part of parts) {
    const call = (part as { functionCall?: { name?: unknown } }).functionCall;
    if (call !== undefined && (typeof call.name !== 'string' || call.name === '')) {
      return malformed('a functionCall without a name');
    }
  }
  return undefined;
}
