import { GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse, type Part as GenaiPart } from '@google/genai';
import type { Part } from '../session/schema.js';
import { classifyError } from './errors.js';
import { backoffDelay, sleep } from './retry.js';
import {
  DEFAULT_RETRY,
  type CacheOutcome,
  type GenerateOptions,
  type ModelError,
  type ModelOutcome,
  type ModelProvider,
  type ModelRequest,
  type ProviderConfig,
  type TokenUsage,
} from './types.js';

/** Placeholder key for the local server, which accepts any key unless told otherwise. */
const LOCAL_API_KEY = 'forkpool-local';

/** A ModelProvider over the real @google/genai SDK: Gemini API, or any endpoint speaking it. */
export function createGenaiProvider(config: ProviderConfig): ModelProvider {
  const apiKey = config.apiKey ?? (config.kind === 'local' ? LOCAL_API_KEY : undefined);
  const client = new GoogleGenAI({
    vertexai: false,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(config.baseUrl !== undefined ? { httpOptions: { baseUrl: config.baseUrl } } : {}),
  });
  const policy = config.retry ?? DEFAULT_RETRY;

  async function attempt(request: ModelRequest, options: GenerateOptions): Promise<ModelOutcome> {
    let retryAfter: string | null = null;
    // Per call, so the Retry-After header of this call's failure can be read back.
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!response.ok) retryAfter = response.headers.get('retry-after');
      return response;
    };
    try {
      const stream = await client.models.generateContentStream({
        model: request.model,
        contents: request.contents as never,
        config: requestConfig(request, options.signal, recordingFetch, config.callTimeoutMs),
      });
      let started = false;
      const parts: Part[] = [];
      let usage: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
      let finishReason: string | undefined;
      let sawCandidate = false;
      for await (const chunk of stream) {
        if (!started) {
          started = true;
          options.onResponseStart?.();
        }
        usage = readUsage(chunk) ?? usage;
        const candidate = chunk.candidates?.[0];
        if (!candidate) continue;
        sawCandidate = true;
        finishReason = candidate.finishReason ?? finishReason;
        for (const part of candidate.content?.parts ?? []) appendPart(parts, part);
      }
      const malformed = checkParts(parts, sawCandidate);
      if (malformed) return { ok: false, error: malformed, attempts: 1 };
      return { ok: true, content: { role: 'model', parts }, usage, finishReason, attempts: 1 };
    } catch (err) {
      return { ok: false, error: classifyError(err, options.signal, retryAfter), attempts: 1 };
    }
  }

  return {
    async generate(request, options) {
      const aborted = (n: number): ModelOutcome => ({
        ok: false,
        error: { kind: 'aborted', message: 'the call was aborted', retryable: false },
        attempts: n,
      });
      for (let n = 1; ; n++) {
        if (options.gate && !(await options.gate.acquire(options.tokenEstimate ?? 0))) return aborted(n - 1);
        const outcome = await attempt(request, options);
        const wantsRetry =
          !outcome.ok && outcome.error.retryable && n < policy.maxAttempts && !options.signal.aborted;
        const status = outcome.ok ? 'ok' : outcome.error.status === 429 ? 'rate_limited' : 'failed';
        const mayRetry = options.gate ? await options.gate.release(status, wantsRetry) : wantsRetry;
        if (outcome.ok) return { ...outcome, attempts: n };
        const { error } = outcome;
        if (!mayRetry) {
          const exhausted = wantsRetry ? ' (retry budget exhausted)' : '';
          return { ok: false, error: { ...error, message: `${error.message}${exhausted}` }, attempts: n };
        }
        if (!(await sleep(backoffDelay(policy, n, error), options.signal))) return aborted(n);
      }
    },

    async createCache(request, ttlSeconds, signal): Promise<CacheOutcome> {
      try {
        const cache = await client.caches.create({
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
        return { ok: false, error: classifyError(err, signal) };
      }
    },

    async deleteCache(name) {
      try {
        await client.caches.delete({ name });
      } catch {
        // Best effort: an expired cache is already gone, and the TTL bounds a leaked one.
      }
    },
  };
}

function requestConfig(
  request: ModelRequest,
  signal: AbortSignal,
  fetchFn: typeof fetch,
  timeoutMs: number | undefined,
): GenerateContentConfig {
  const config: GenerateContentConfig = {
    ...(request.generationConfig as GenerateContentConfig | undefined),
    abortSignal: signal,
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
  return {
    promptTokens: u.promptTokenCount ?? 0,
    cachedTokens: u.cachedContentTokenCount ?? 0,
    outputTokens: u.candidatesTokenCount ?? 0,
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

function malformed(message: string): ModelError {
  return { kind: 'malformed', message: `malformed response: ${message}`, retryable: true };
}

