import type OpenAI from 'openai';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { isRecord } from '../input/json.js';
import type { AttemptOutcome } from './attempts.js';
import { malformed } from './errors.js';
import { type Finish, finishOf } from './finish.js';
import { readComparison, withComparison } from './openai-diagnostics.js';
import { loadOpenAI } from './openai-sdk.js';
import { resolveChatEndpoint } from './presets.js';
import { createStreamingProvider } from './streaming-provider.js';
import { createNodeTransport } from '../transport/node-fetch.js';
import type { ModelProvider, OpenAIResponsesRequest, ProviderConfig, ResponsesItemLike, TokenUsage } from './types.js';

/**
 * A ModelProvider over the official openai SDK's Responses API (`client.responses.create`), for
 * OpenAI and the local simulator's `POST /v1/responses`. The request body is the parent's own, sent
 * as it is (its key order, its items) with the run's `prompt_cache_key`, streamed, or as one response
 * with `mode: 'generate'` (as an agent that does not stream sends it: the Responses object echoes the
 * instructions, which a stream carries three times); the SDK does not retry (the shared attempt loop does). The reply is the response's output items, as the
 * API gave them (reasoning with its encrypted content, function calls with their ids), which a
 * later turn sends back unchanged. A call given `previousResponseId` names it for OpenAI's cache
 * diagnostics where the model takes them (openai-diagnostics.ts), and returns the verdict; every
 * call returns its response's id, which a later call may name once the response has completed.
 */
export function createOpenAIResponsesProvider(config: ProviderConfig): ModelProvider {
  const endpoint = resolveChatEndpoint(config);
  const streams = config.mode !== 'generate';
  // The SDK is loaded at the first call, so that a thread running another provider never loads it.
  let client: Promise<OpenAI> | undefined;
  const clientOnce = async (): Promise<OpenAI> =>
    (client ??= loadOpenAI().then(
      (Client) =>
        new Client({
          apiKey: endpoint.apiKey,
          baseURL: endpoint.baseUrl,
          maxRetries: 0,
          // forkpool's node:http fetch: fetch (undici) spends about ten times its client CPU on a large body (DESIGN.md).
          fetch: createNodeTransport().fetch,
          ...(endpoint.preset.sendsOpenAIOrganization ? {} : { organization: null, project: null }),
          ...(process.env.OPENAI_LOG ? {} : { logLevel: 'off' as const }),
        }),
    ));

  return createStreamingProvider(config, {
    format: 'openai-responses',
    api: 'Responses',
    secrets: endpoint.keyIsSecret ? [endpoint.apiKey] : [],
    prepare: async (request) => ({ request, release: () => undefined }),
    call(request, options) {
      const named = options.previousResponseId;
      let started = false;
      let completed: Extract<ResponseStreamEvent, { type: 'response.completed' }>['response'] | undefined;
      let failed: string | undefined;
      let unreadable: string | undefined;
      return {
        open: async (requestOptions) => {
          const client = await clientOnce();
          const body = responsesBody(request, endpoint.preset.takesPromptCacheKey, named, streams);
          if (streams) return client.responses.create(body as ResponseCreateParamsStreaming, requestOptions);
          // The answer is read here: the SDK hands back the text of one that is not JSON (a server that streams
          // anyway), on which the provider failed as if the connection had.
          const whole = await readWhole(
            await client.responses.create(body as ResponseCreateParamsNonStreaming, requestOptions).asResponse(),
          );
          if (!whole.ok) unreadable = whole.problem;
          return asEvents(whole.ok ? whole.response : undefined);
        },
        read(event) {
          // The response object is made before the model begins: its first output is when prefill is done. Its id is
          // not given then: OpenAI compares only with a completed response, so a sibling may name it once it has completed.
          if (!started && event.type !== 'response.created' && event.type !== 'response.in_progress' && event.type !== 'response.queued') {
            started = true;
            options.onResponseStart?.();
          }
          if (event.type === 'response.completed' || event.type === 'response.incomplete') completed = event.response;
          else if (event.type === 'response.failed') failed = event.response.error?.message ?? 'the response failed';
          else if (event.type === 'error') failed = event.message;
          return failed === undefined ? undefined : `the stream carried an error: ${failed}`;
        },
        finish(): AttemptOutcome {
          if (unreadable !== undefined) return { ok: false, error: malformed(unreadable) };
          if (completed === undefined) return { ok: false, error: malformed('the stream ended before response.completed') };
          return {
            ok: true,
            message: { role: 'assistant', output: completed.output as unknown as ResponsesItemLike[] },
            usage: readResponsesUsage(completed.usage),
            finish: responsesFinish(completed),
            ...(typeof completed.model === 'string' && completed.model !== '' ? { responseModel: completed.model } : {}),
            ...(typeof completed.id === 'string' && completed.id !== '' ? { responseId: completed.id } : {}),
            ...(typeof named === 'string' ? readComparison(named, completed) : {}),
          };
        },
      };
    },
  });
}

/** What is sent: the parent's body as it is, then `stream`, the cache key where the API takes one, and the response `named` for comparison. */
function responsesBody(
  request: OpenAIResponsesRequest,
  takesPromptCacheKey: boolean,
  named: string | null | undefined,
  stream: boolean,
): ResponseCreateParamsStreaming | ResponseCreateParamsNonStreaming {
  const body = {
    ...request.body,
    stream,
    ...(takesPromptCacheKey && request.promptCacheKey !== undefined && request.body.prompt_cache_key === undefined
      ? { prompt_cache_key: request.promptCacheKey }
      : {}),
  };
  return withComparison(body, named) as unknown as ResponseCreateParamsStreaming | ResponseCreateParamsNonStreaming;
}

/** A whole answer (stream: false) read as a Responses object, or what arrived instead. */
async function readWhole(answer: globalThis.Response): Promise<{ ok: true; response: Response } | { ok: false; problem: string }> {
  const text = await answer.text();
  const arrived = `the answer to a request with stream: false is ${answer.headers.get('content-type') ?? 'without a content-type'} (${Buffer.byteLength(text)} bytes)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${arrived}, not JSON` };
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.output))
    return { ok: false, problem: `${arrived}: JSON, but not a response (no output list)` };
  return { ok: true, response: parsed as unknown as Response };
}

/**
 * A whole response as the one event a stream of it ends with; a status that no stream ends on
 * (queued, in progress, cancelled: a background response) is an error, as a stream cut short is.
 * An answer that was no response: no event.
 */
async function* asEvents(response: Response | undefined): AsyncGenerator<ResponseStreamEvent> {
  if (response === undefined) return;
  const status = response.status ?? 'completed';
  const type = ({ completed: 'response.completed', incomplete: 'response.incomplete', failed: 'response.failed' } as const)[
    status as 'completed' | 'incomplete' | 'failed'
  ];
  if (type === undefined) {
    yield { type: 'error', code: null, message: `the response came back ${status}, not completed`, param: null, sequence_number: 0 };
    return;
  }
  yield { type, response, sequence_number: 0 } as ResponseStreamEvent;
}

/** The Responses API's usage: cached tokens in input_tokens_details (unknown, null, when a server leaves them out). */
function readResponsesUsage(usage: unknown): TokenUsage {
  if (!isRecord(usage)) return { promptTokens: 0, cachedTokens: null, outputTokens: 0 };
  const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const count = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  const cacheWriteTokens = count(details.cache_write_tokens);
  // Reasoning tokens are inside output_tokens already: their part, not more.
  const output = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const reasoningTokens = count(output.reasoning_tokens);
  return {
    promptTokens: count(usage.input_tokens) ?? 0,
    cachedTokens: count(details.cached_tokens) ?? null,
    outputTokens: count(usage.output_tokens) ?? 0,
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}

/** A response's end: `incomplete_details.reason` when it stopped short, else its status; a refusal part or a function call says more. */
function responsesFinish(response: {
  status?: string | null;
  incomplete_details?: { reason?: string | null } | null;
  output: readonly unknown[];
}): Finish | undefined {
  const raw = response.incomplete_details?.reason ?? response.status ?? undefined;
  if (raw === undefined || raw === null) return undefined;
  const items = response.output.filter(isRecord);
  const calls = items.some((item) => item.type === 'function_call');
  const refused = items.some(
    (item) =>
      item.type === 'message' && Array.isArray(item.content) && item.content.some((part) => isRecord(part) && part.type === 'refusal'),
  );
  return finishOf(raw, { calls, refused });
}
