// Internal: the built-in Anthropic provider (src/model/anthropic.ts), its presets (src/model/presets.ts), classifyError (src/model/errors.ts), the provider registry (src/model/providers/index.ts) and the mocked backoff (src/model/retry.ts): ForkEngine's `provider: { kind: 'anthropic' }` is their public face; the provider types come through forkpool/provider, AnthropicMessageLike through forkpool/protocol.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  InternalServerError,
  OverloadedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAnthropicProvider, readAnthropicUsage } from '../src/model/anthropic.js';
import { classifyError } from '../src/model/errors.js';
import { ANTHROPIC_PRESET, CHAT_PRESETS, LOCAL_API_KEY, anthropicMinCacheTokens, resolveAnthropicEndpoint } from '../src/model/presets.js';
import { createProvider, providerModule } from '../src/model/providers/index.js';
import type { AnthropicMessageLike } from '../src/protocol.js';
import type { AnthropicRequest, AttemptGate, GenerateOptions, ModelOutcome, ProviderConfig, RetryPolicy } from '../src/provider.js';
import { padding, serversClosedAfterEach } from './fixtures/local-server/client.js';
import { tinyServersClosedAfterEach } from './support/tiny-server.js';

/*
 * The Anthropic provider through the real @anthropic-ai/sdk, against small node:http servers written
 * here: each speaks `POST /v1/messages` as a test needs it (streamed events, error envelopes,
 * broken streams, a key echoed back), and records every request's headers and raw body.
 */

// The backoff the attempt loop asks for is recorded (the server's retry-after must show in it);
// the wait itself is kept short so the tests do not sleep for seconds.
const slept: number[] = [];
vi.mock('../src/model/retry.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/model/retry.js')>();
  return {
    ...original,
    sleep: (ms: number, signal: AbortSignal) => {
      slept.push(ms);
      return original.sleep(Math.min(ms, 5), signal);
    },
  };
});

const startLocal = serversClosedAfterEach();

// Servers of its own, for what the simulator does not do; their root is the SDK's base URL (it adds /v1/messages).
const tiny = tinyServersClosedAfterEach();
afterEach(() => {
  slept.length = 0;
  vi.unstubAllEnvs();
});

type Event = Record<string, unknown> & { type: string };

/** Server-sent events as Anthropic sends them: `event: <type>` then its JSON (raw strings go out as they are). */
function sse(res: ServerResponse, events: readonly (Event | string)[], end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(typeof e === 'string' ? e : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  if (end) res.end();
}

const USAGE = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
const start = (usage: Record<string, unknown> = USAGE): Event => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});
const blockStart = (index: number, content_block: Record<string, unknown>): Event => ({
  type: 'content_block_start',
  index,
  content_block,
});
const delta = (index: number, d: Record<string, unknown>): Event => ({ type: 'content_block_delta', index, delta: d });
const blockStop = (index: number): Event => ({ type: 'content_block_stop', index });
const messageDelta = (stop_reason: string, usage: Record<string, unknown> = { output_tokens: 5 }): Event => ({
  type: 'message_delta',
  delta: { stop_reason, stop_sequence: null },
  usage,
});
const STOP: Event = { type: 'message_stop' };
const PING: Event = { type: 'ping' };

/** A whole text reply, its text in the given pieces. */
function textReply(pieces: readonly string[], stopReason = 'end_turn'): Event[] {
  return [
    start(),
    blockStart(0, { type: 'text', text: '' }),
    ...pieces.map((text) => delta(0, { type: 'text_delta', text })),
    blockStop(0),
    messageDelta(stopReason),
    STOP,
  ];
}

function anthropicError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' }));
}

const FAST: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 60_000 };
const KEY = 'sk-ant-api03-SECRET-0123456789abcdefABCDEF';

function provider(url: string, more: Partial<ProviderConfig> = {}) {
  return createProvider({ kind: 'anthropic', baseUrl: url, apiKey: KEY, retry: FAST, ...more }, 'anthropic-messages');
}

function messages(body: Record<string, unknown> = {}): AnthropicRequest {
  return {
    format: 'anthropic-messages',
    body: { model: 'claude-sonnet-5', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }], ...body },
  };
}

function options(signal = new AbortController().signal, more: Partial<GenerateOptions> = {}): GenerateOptions {
  return { signal, ...more };
}

function failure(outcome: ModelOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.message)}`);
  return outcome.error;
}

function success(outcome: ModelOutcome) {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome;
}

/** The key the SDK sent, in whichever header it put it (this SDK line sends `Authorization: Bearer`). */
function sentKey(headers: IncomingMessage['headers']): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  return headers.authorization?.replace(/^Bearer /, '');
}

describe('readAnthropicUsage: Anthropic usage in forkpool terms', () => {
  it('the prompt is input + cache reads + cache writes; cached tokens are the reads; the 1-hour share of writes', () => {
    expect(
      readAnthropicUsage({
        input_tokens: 50,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 1800,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 7,
        service_tier: 'standard',
      }),
    ).toEqual({ promptTokens: 2150, cachedTokens: 1800, outputTokens: 7, cacheWriteTokens: 300, cacheWrite1hTokens: 200 });
    // A cold call that wrote the prefix: nothing read, all of it written.
    expect(
      readAnthropicUsage({ input_tokens: 20, cache_creation_input_tokens: 4000, cache_read_input_tokens: 0, output_tokens: 3 }),
    ).toEqual({
      promptTokens: 4020,
      cachedTokens: 0,
      outputTokens: 3,
      cacheWriteTokens: 4000,
    });
  });

  it('cached tokens are never unknown: absent or null reads are 0; not an object is undefined', () => {
    expect(readAnthropicUsage({ input_tokens: 9, output_tokens: 2 })).toEqual({ promptTokens: 9, cachedTokens: 0, outputTokens: 2 });
    expect(
      readAnthropicUsage({
        input_tokens: 9,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        cache_creation: null,
        output_tokens: 2,
      }),
    ).toEqual({
      promptTokens: 9,
      cachedTokens: 0,
      outputTokens: 2,
    });
    expect(readAnthropicUsage(null)).toBeUndefined();
    expect(readAnthropicUsage('12')).toBeUndefined();
  });
});

describe("classifyError: the @anthropic-ai/sdk's errors, by class", () => {
  const live = new AbortController().signal;
  const envelope = (type: string, message: string) => ({ type: 'error', error: { type, message } });

  it('the type and message of the envelope, retry-after(-ms), 429 and 529 retryable, x-should-retry, timeouts and aborts', () => {
    const limited = new RateLimitError(429, envelope('rate_limit_error', 'slow down'), undefined, new Headers({ 'retry-after': '7' }));
    expect(classifyError(limited, live)).toEqual({
      kind: 'http',
      status: 429,
      message: 'rate_limit_error: slow down',
      retryable: true,
      retryAfterMs: 7000,
    });
    const precise = new RateLimitError(
      429,
      envelope('rate_limit_error', 'x'),
      undefined,
      new Headers({ 'retry-after-ms': '250', 'retry-after': '7' }),
    );
    expect(classifyError(precise, live).retryAfterMs).toBe(250);
    const overloaded = new OverloadedError(529, envelope('overloaded_error', 'Overloaded'), undefined, new Headers());
    expect(classifyError(overloaded, live)).toEqual({
      kind: 'http',
      status: 529,
      message: 'overloaded_error: Overloaded',
      retryable: true,
    });
    expect(classifyError(new InternalServerError(500, undefined, 'upstream went away', new Headers()), live)).toMatchObject({
      status: 500,
      message: 'upstream went away',
      retryable: true,
    });
    expect(classifyError(new InternalServerError(500, undefined, undefined, new Headers({ 'x-should-retry': 'false' })), live)).toEqual({
      kind: 'http',
      status: 500,
      message: 'HTTP 500',
      retryable: false,
    });
    const bad = APIError.generate(400, envelope('invalid_request_error', 'max_tokens: Field required'), undefined, new Headers());
    expect(classifyError(bad, live)).toEqual({
      kind: 'http',
      status: 400,
      message: 'invalid_request_error: max_tokens: Field required',
      retryable: false,
    });
    expect(classifyError(new APIConnectionTimeoutError(), live)).toEqual({
      kind: 'timeout',
      message: 'the model call timed out',
      retryable: true,
    });
    expect(classifyError(new APIUserAbortError(), live)).toEqual({ kind: 'aborted', message: 'the call was aborted', retryable: false });
  });

  it('an error event inside a stream: retryable unless the request itself is wrong', () => {
    const inStream = (type: string) => new APIError(undefined, envelope(type, 'm'), undefined, new Headers(), type as never);
    expect(classifyError(inStream('overloaded_error'), live)).toEqual({
      kind: 'http',
      message: 'the stream carried an error: overloaded_error: m',
      retryable: true,
    });
    expect(classifyError(inStream('invalid_request_error'), live).retryable).toBe(false);
  });
});

describe('the Anthropic preset and the provider factory', () => {
  it('the documented numbers: 4 breakpoints, a 20-block lookback, 5m and 1h, reads 0.1x, writes 1.25x and 2x', () => {
    expect(ANTHROPIC_PRESET).toMatchObject({
      defaultBaseUrl: 'https://api.anthropic.com',
      baseUrlEnv: 'ANTHROPIC_BASE_URL',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxBreakpoints: 4,
      lookbackBlocks: 20,
      ttls: ['5m', '1h'],
      costMultipliers: { read: 0.1, write5m: 1.25, write1h: 2 },
      defaultMinCacheTokens: 1024,
    });
    expect(providerModule('anthropic').shapes).toEqual(['anthropic-messages']);
    expect(Object.keys(CHAT_PRESETS)).not.toContain('anthropic');
  });

  it('anthropicMinCacheTokens: by model-id prefix, a dated id is its model, a later version is not; unknown is 1,024', () => {
    const cases: [string, number][] = [
      ['claude-opus-5-5', 512],
      ['claude-opus-5', 512],
      ['claude-sonnet-5-5', 512],
      ['claude-haiku-5-5', 512],
      ['claude-fable-5-1', 512],
      ['claude-mythos-5', 512],
      ['claude-sonnet-5', 1024],
      ['claude-opus-4-8', 1024],
      ['claude-opus-4-7', 2048],
      ['claude-mythos-preview', 2048],
      ['claude-opus-4-6', 4096],
      ['claude-opus-4-5-20251101', 4096],
      ['claude-opus-4-5@20251101', 4096],
      ['claude-haiku-4-5', 4096],
      ['claude-haiku-4-5-20251001', 4096],
      ['claude-sonnet-4-5-20250929', 1024],
      ['claude-opus-4-1', 1024],
      ['claude-opus-4-20250514', 1024],
      ['claude-sonnet-4-20250514', 1024],
      ['claude-3-5-haiku-20241022', 2048],
      ['claude-3-haiku-20240307', 2048],
      ['claude-3-7-sonnet-20250219', 1024],
      ['claude-3-opus-20240229', 1024],
      // Not in the documented table: the default.
      ['claude-fable-5-2', 1024],
      ['claude-opus-4-9', 1024],
      ['some-other-model', 1024],
    ];
    for (const [model, tokens] of cases) expect([model, anthropicMinCacheTokens(model)]).toEqual([model, tokens]);
  });

  it('resolves the base URL and key: config, then ANTHROPIC_BASE_URL / the key variable, then the default', () => {
    expect(resolveAnthropicEndpoint({ kind: 'anthropic' }, { ANTHROPIC_API_KEY: 'k-env' })).toEqual({
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'k-env',
      keyIsSecret: true,
    });
    expect(
      resolveAnthropicEndpoint(
        { kind: 'anthropic', apiKey: 'k-own' },
        { ANTHROPIC_API_KEY: 'k-env', ANTHROPIC_BASE_URL: ' http://proxy:1 ' },
      ),
    ).toEqual({
      baseUrl: 'http://proxy:1',
      apiKey: 'k-own',
      keyIsSecret: true,
    });
    expect(
      resolveAnthropicEndpoint(
        { kind: 'anthropic', apiKeyEnv: 'TEAM_KEY', baseUrl: 'http://b' },
        { ANTHROPIC_API_KEY: 'k-env', TEAM_KEY: 'k-team' },
      ).apiKey,
    ).toBe('k-team');
    expect(() => resolveAnthropicEndpoint({ kind: 'anthropic' }, {})).toThrow(
      new TypeError("provider 'anthropic' needs an API key: set ANTHROPIC_API_KEY (or give apiKey)"),
    );
    expect(() => resolveAnthropicEndpoint({ kind: 'anthropic', apiKeyEnv: 'TEAM_KEY' }, { ANTHROPIC_API_KEY: 'k' })).toThrow(
      /set TEAM_KEY/,
    );
    // local: the server's root and a stand-in key; ANTHROPIC_API_KEY is never sent to the simulator unless named.
    expect(resolveAnthropicEndpoint({ kind: 'local', baseUrl: 'http://127.0.0.1:4000' }, { ANTHROPIC_API_KEY: 'k-env' })).toEqual({
      baseUrl: 'http://127.0.0.1:4000',
      apiKey: LOCAL_API_KEY,
      keyIsSecret: false,
    });
    expect(
      resolveAnthropicEndpoint({ kind: 'local', baseUrl: 'http://l', apiKeyEnv: 'ANTHROPIC_API_KEY' }, { ANTHROPIC_API_KEY: 'k-env' })
        .apiKey,
    ).toBe('k-env');
    expect(() => resolveAnthropicEndpoint({ kind: 'local' }, {})).toThrow(/needs baseUrl/);
  });

  it('createProvider: anthropic and local speak anthropic-messages; another kind is a TypeError naming both', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(() => createProvider({ kind: 'anthropic' }, 'anthropic-messages')).toThrow(/set ANTHROPIC_API_KEY/);
    expect(() => createProvider({ kind: 'anthropic', apiKey: 'k' }, 'openai-chat')).toThrow(
      new TypeError("provider 'anthropic' speaks anthropic-messages, not openai-chat: the session's format and the provider must match"),
    );
    expect(() => createProvider({ kind: 'anthropic', apiKey: 'k' }, 'gemini')).toThrow(/speaks anthropic-messages, not gemini/);
    expect(() => createProvider({ kind: 'openai', apiKey: 'k' }, 'anthropic-messages')).toThrow(
      /'openai' speaks openai-chat or openai-responses, not anthropic-messages/,
    );
    expect(() => createProvider({ kind: 'gemini', apiKey: 'k' }, 'anthropic-messages')).toThrow(
      /'gemini' speaks gemini, not anthropic-messages/,
    );
    expect(() => createProvider({ kind: 'local' }, 'anthropic-messages')).toThrow(TypeError);
    expect(() => createProvider({ kind: 'local', baseUrl: 'http://127.0.0.1:1' }, 'anthropic-messages')).not.toThrow();
  });

  it('a request of another dialect is a programming error; explicit caches are Gemini-only (a client without them has no cache methods)', async () => {
    const anthropic = createAnthropicProvider({ kind: 'anthropic', apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
    await expect(anthropic.generate({ format: 'openai-chat', body: { model: 'm', messages: [] } }, options())).rejects.toThrow(
      new TypeError(
        "the anthropic Anthropic provider was given a request in the openai-chat dialect; it sends only format 'anthropic-messages'",
      ),
    );
    await expect(anthropic.generate({ format: 'gemini', model: 'm', contents: [] }, options())).rejects.toThrow(TypeError);
    expect('createCache' in anthropic).toBe(false);
    expect(providerModule('anthropic').explicitCaches).toBeUndefined();
  });
});

describe('the Anthropic provider through the SDK', () => {
  it('streams a text reply into one assistant message, calling onResponseStart once (pings ignored)', async () => {
    const server = await tiny((_n, _req, res) =>
      sse(res, [PING, ...textReply(['Hel', 'lo, ', 'streamed ', 'world']).flatMap((e) => [e, PING])]),
    );
    let starts = 0;
    const outcome = success(await provider(server.url).generate(messages(), options(undefined, { onResponseStart: () => starts++ })));
    expect(outcome.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello, streamed world' }] });
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'end_turn' });
    expect(outcome.attempts).toBe(1);
    expect(starts).toBe(1);
    expect(outcome.usage).toEqual({ promptTokens: 12, cachedTokens: 0, outputTokens: 5, cacheWriteTokens: 0 });
    const [request] = server.requests;
    expect([request!.method, request!.path]).toEqual(['POST', '/v1/messages']);
    // The API version this SDK line pins (1.15 sends 2026-10-21).
    expect(request!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sentKey(request!.headers)).toBe(KEY);
  });

  it('reassembles tool_use input from its input_json_delta fragments; an empty input is {}', async () => {
    const args = { path: 'a/rather/long/path/to/some/file.txt', lines: [1, 200], note: 'streamed «in» fragments' };
    const json = JSON.stringify(args);
    const server = await tiny((_n, _req, res) =>
      sse(res, [
        start(),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Let me look.' }),
        blockStop(0),
        blockStart(1, { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: {} }),
        delta(1, { type: 'input_json_delta', partial_json: '' }),
        ...[json.slice(0, 7), json.slice(7, 30), json.slice(30)].map((partial_json) =>
          delta(1, { type: 'input_json_delta', partial_json }),
        ),
        blockStop(1),
        blockStart(2, { type: 'tool_use', id: 'toolu_02', name: 'list_tasks', input: {} }),
        delta(2, { type: 'input_json_delta', partial_json: '' }),
        blockStop(2),
        blockStart(3, { type: 'tool_use', id: 'toolu_03', name: 'now', input: {} }),
        blockStop(3),
        messageDelta('tool_use', { output_tokens: 40 }),
        STOP,
      ]),
    );
    const outcome = success(await provider(server.url).generate(messages(), options()));
    expect(outcome.finish).toEqual({ reason: 'tool_calls', raw: 'tool_use' });
    const content = (outcome.message as AnthropicMessageLike).content as Record<string, unknown>[];
    expect(content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: args },
      { type: 'tool_use', id: 'toolu_02', name: 'list_tasks', input: {} },
      { type: 'tool_use', id: 'toolu_03', name: 'now', input: {} },
    ]);
    expect(content.map((b) => Object.keys(b))).toEqual([['type', 'text'], ...Array(3).fill(['type', 'id', 'name', 'input'])]);
    expect(outcome.usage.outputTokens).toBe(40);
  });

  it('keeps thinking with its signature and redacted_thinking verbatim, and they go back unchanged', async () => {
    const server = await tiny((n, _req, res) =>
      n === 1
        ? sse(res, [
            start(),
            blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
            delta(0, { type: 'thinking_delta', thinking: 'The user says hi. ' }),
            delta(0, { type: 'thinking_delta', thinking: 'Answer briefly.' }),
            delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYzh6d0F0eXR3ZXRoIjBJ' }),
            blockStop(0),
            blockStart(1, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' }),
            blockStop(1),
            blockStart(2, { type: 'text', text: '' }),
            delta(2, { type: 'text_delta', text: 'Hello!' }),
            blockStop(2),
            messageDelta('end_turn'),
            STOP,
          ])
        : sse(res, textReply(['ok'])),
    );
    const first = success(await provider(server.url).generate(messages({ thinking: { type: 'enabled', budget_tokens: 1024 } }), options()));
    const expected = {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'The user says hi. Answer briefly.',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYzh6d0F0eXR3ZXRoIjBJ',
        },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
        { type: 'text', text: 'Hello!' },
      ],
    };
    expect(JSON.stringify(first.message)).toBe(JSON.stringify(expected));

    // The next turn sends the assistant message back: the server receives exactly those blocks.
    const next = messages({ messages: [{ role: 'user', content: 'hi' }, first.message, { role: 'user', content: 'and then?' }] });
    success(await provider(server.url).generate(next, options()));
    expect(server.requests[1]!.body).toContain(JSON.stringify(expected));
  });

  it('normalizes usage from the stream: message_start, then message_delta counts (cumulative, the last wins)', async () => {
    const server = await tiny((_n, _req, res) =>
      sse(res, [
        start({
          input_tokens: 40,
          cache_creation_input_tokens: 1200,
          cache_read_input_tokens: 3000,
          cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 1000 },
          output_tokens: 1,
        }),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'x' }),
        messageDelta('max_tokens', { output_tokens: 10, input_tokens: null }),
        messageDelta('max_tokens', {
          output_tokens: 64,
          input_tokens: 40,
          cache_creation_input_tokens: 1200,
          cache_read_input_tokens: 3000,
        }),
        blockStop(0),
        STOP,
      ]),
    );
    const outcome = success(await provider(server.url).generate(messages(), options()));
    expect(outcome.finish).toEqual({ reason: 'length', raw: 'max_tokens' });
    expect(outcome.usage).toEqual({
      promptTokens: 4240,
      cachedTokens: 3000,
      outputTokens: 64,
      cacheWriteTokens: 1200,
      cacheWrite1hTokens: 1000,
    });
  });

  it('sends the caller body byte for byte, its key order kept, with "stream":true added', async () => {
    const server = await tiny((_n, _req, res) => sse(res, textReply(['ok'])));
    const body: AnthropicRequest['body'] = {
      temperature: 0.2,
      system: [
        { type: 'text', text: 'Be brief. ✓ «quotes», \\ backslashes and "double quotes"' },
        { text: 'The shared context.', cache_control: { ttl: '1h', type: 'ephemeral' }, type: 'text' },
      ],
      messages: [
        { content: [{ text: 'first', type: 'text' }], role: 'user' },
        { role: 'assistant', content: [{ type: 'tool_use', input: { b: 1, a: 2 }, name: 'grep', id: 'toolu_1' }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no match', cache_control: { type: 'ephemeral' } }],
        },
      ],
      tools: [{ name: 'grep', input_schema: { properties: { pattern: { type: 'string' } }, type: 'object' }, description: 'Search.' }],
      model: 'claude-opus-5-5',
      max_tokens: 64,
      metadata: { user_id: 'u-1' },
    };
    success(await provider(server.url).generate({ format: 'anthropic-messages', body }, options()));
    expect(server.requests[0]!.body).toBe(JSON.stringify({ ...body, stream: true }));

    // A `stream` the parent had keeps its place, and is true.
    const own: AnthropicRequest['body'] = {
      model: 'claude-opus-5-5',
      stream: false,
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    };
    success(await provider(server.url).generate({ format: 'anthropic-messages', body: own }, options()));
    expect(server.requests[1]!.body).toBe(
      '{"model":"claude-opus-5-5","stream":true,"max_tokens":8,"messages":[{"role":"user","content":"x"}]}',
    );
  });

  it("retries a 429 after the server's retry-after, then succeeds; reports each attempt to the gate", async () => {
    const server = await tiny((n, _req, res) =>
      n === 1
        ? anthropicError(res, 429, 'rate_limit_error', 'Number of requests exceeded', { 'retry-after': '3' })
        : sse(res, textReply(['finally'])),
    );
    const released: [string, boolean][] = [];
    const gate: AttemptGate = {
      acquire: async () => true,
      release: async (status, wantsRetry) => {
        released.push([status, wantsRetry]);
        return wantsRetry;
      },
    };
    const outcome = success(await provider(server.url).generate(messages(), options(undefined, { gate })));
    expect(outcome.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'finally' }] });
    expect(outcome.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
    expect(slept).toEqual([3000]);
    expect(released).toEqual([
      ['rate_limited', true],
      ['ok', false],
    ]);

    const always = await tiny((_n, _req, res) => anthropicError(res, 429, 'rate_limit_error', 'slow down', { 'retry-after': '2' }));
    const error = failure(await provider(always.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(messages(), options()));
    expect(error).toEqual({ kind: 'http', status: 429, message: 'rate_limit_error: slow down', retryable: true, retryAfterMs: 2000 });
  });

  it('retries a 529 overloaded_error, and names it when it stays', async () => {
    const server = await tiny((n, _req, res) =>
      n === 1 ? anthropicError(res, 529, 'overloaded_error', 'Overloaded') : sse(res, textReply(['after the storm'])),
    );
    const outcome = success(await provider(server.url).generate(messages(), options()));
    expect(outcome.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);

    const stormy = await tiny((_n, _req, res) => anthropicError(res, 529, 'overloaded_error', 'Overloaded'));
    const lasting = await provider(stormy.url, { retry: { ...FAST, maxAttempts: 2 } }).generate(messages(), options());
    expect(lasting.attempts).toBe(2);
    expect(failure(lasting)).toEqual({ kind: 'http', status: 529, message: 'overloaded_error: Overloaded', retryable: true });
    expect(stormy.requests).toHaveLength(2);
  });

  it('does not retry a 400, and says what the server said', async () => {
    const server = await tiny((_n, _req, res) =>
      anthropicError(res, 400, 'invalid_request_error', 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`'),
    );
    const outcome = await provider(server.url).generate(messages(), options());
    expect(outcome.attempts).toBe(1);
    expect(failure(outcome)).toEqual({
      kind: 'http',
      status: 400,
      message: 'invalid_request_error: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`',
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('an error event inside the stream (overloaded_error) is retried; a dropped connection and a refused one are network errors', async () => {
    const overloaded = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const mid = await tiny((n, _req, res) =>
      n === 1
        ? sse(res, [start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'par' }), overloaded])
        : sse(res, textReply(['whole'])),
    );
    const recovered = success(await provider(mid.url).generate(messages(), options()));
    expect(recovered.attempts).toBe(2);
    expect(recovered.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'whole' }] });
    const midAlone = await tiny((_n, _req, res) => sse(res, [start(), overloaded]));
    expect(failure(await provider(midAlone.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(messages(), options()))).toEqual({
      kind: 'http',
      message: 'the stream carried an error: overloaded_error: Overloaded',
      retryable: true,
    });

    const dropped = await tiny((_n, _req, res) => {
      sse(res, [start(), blockStart(0, { type: 'text', text: '' })], false);
      setTimeout(() => res.socket?.destroy(), 10);
    });
    expect(failure(await provider(dropped.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(messages(), options()))).toMatchObject({
      kind: 'network',
      retryable: true,
    });

    const gone = await tiny(() => undefined);
    const url = gone.url;
    await gone.close();
    expect(failure(await provider(url, { retry: { ...FAST, maxAttempts: 1 } }).generate(messages(), options()))).toEqual({
      kind: 'network',
      message: 'network error: ECONNREFUSED',
      retryable: true,
    });
  });

  it('a broken stream is malformed and retried: no message_start, a tool_use without a name, unparseable input, a cut frame, no message_stop', async () => {
    const toolStart = (block: Record<string, unknown>, ...fragments: string[]): Event[] => [
      start(),
      blockStart(0, block),
      ...fragments.map((partial_json) => delta(0, { type: 'input_json_delta', partial_json })),
      blockStop(0),
      messageDelta('tool_use'),
      STOP,
    ];
    const broken: [(res: ServerResponse) => void, RegExp][] = [
      [
        (res) => sse(res, textReply(['no start']).slice(1)),
        /^malformed response: the stream began with content_block_start, not message_start$/,
      ],
      [
        (res) => sse(res, toolStart({ type: 'tool_use', id: 'toolu_1', input: {} }, '{}')),
        /^malformed response: a tool_use block without a name$/,
      ],
      [
        (res) => sse(res, toolStart({ type: 'tool_use', id: 'toolu_1', name: 'grep', input: {} }, '{"pattern": "x"', ', "path": ')),
        /^malformed response: the input of tool_use 'grep' is not a JSON object$/,
      ],
      [
        (res) => sse(res, toolStart({ type: 'tool_use', id: 'toolu_1', name: 'grep', input: {} }, '["not", "an object"]')),
        /is not a JSON object$/,
      ],
      [
        (res) =>
          sse(res, [
            start(),
            `event: content_block_start\ndata: ${JSON.stringify(blockStart(0, { type: 'text', text: '' })).slice(0, 30)}\n\n`,
          ]),
        /^malformed response: /,
      ],
      [(res) => sse(res, textReply(['cut short']).slice(0, -2)), /^malformed response: the stream ended before message_stop$/],
      [(res) => sse(res, [start(), delta(0, { type: 'text_delta', text: 'orphan' }), STOP]), /no content_block_start opened$/],
    ];
    for (const [send, message] of broken) {
      const server = await tiny((n, _req, res) => (n === 1 ? send(res) : sse(res, textReply(['fine']))));
      const outcome = success(await provider(server.url).generate(messages(), options()));
      expect(outcome.attempts).toBe(2);
      expect(outcome.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'fine' }] });
      const alone = await tiny((_n, _req, res) => send(res));
      const error = failure(await provider(alone.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(messages(), options()));
      expect(error.kind).toBe('malformed');
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(message);
    }
  });

  it('an abort ends the call at once, mid-stream and before the server answers', async () => {
    const server = await tiny((_n, _req, res) =>
      sse(res, [start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'the beginning' })], false),
    );
    const controller = new AbortController();
    const outcome = await provider(server.url).generate(
      messages(),
      options(controller.signal, { onResponseStart: () => controller.abort() }),
    );
    expect(outcome).toEqual({ ok: false, error: { kind: 'aborted', message: 'the call was aborted', retryable: false }, attempts: 1 });
    await server.closed(1);
    expect(server.requests).toHaveLength(1);

    const silent = await tiny(() => undefined);
    const late = new AbortController();
    const pending = provider(silent.url).generate(messages(), options(late.signal));
    await vi.waitFor(() => expect(silent.requests).toHaveLength(1));
    late.abort();
    expect(failure(await pending)).toMatchObject({ kind: 'aborted', retryable: false });
    await silent.closed(1);
    expect(silent.requests).toHaveLength(1);
  });

  it('callTimeoutMs bounds the whole attempt, the stream included', async () => {
    const server = await tiny((_n, _req, res) => sse(res, [start(), blockStart(0, { type: 'text', text: '' })], false));
    const outcome = await provider(server.url, { callTimeoutMs: 100, retry: { ...FAST, maxAttempts: 2 } }).generate(messages(), options());
    expect(failure(outcome)).toEqual({ kind: 'timeout', message: 'the model call timed out', retryable: true });
    expect(outcome.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('never puts the API key into a message, even when the server echoes it back', async () => {
    const shapes = [
      (key: string) => ({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${key}` } }),
      (_key: string, auth: string) => ({
        type: 'error',
        error: { type: 'authentication_error', message: `bad header Authorization: ${auth}` },
      }),
      (key: string) => `{"x-api-key": "${key.slice(0, 20)}"} rejected`,
      (key: string) => ({ message: `flat proxy body with ${key}` }),
      // A key cut in two by the 300-character truncation must not survive it either.
      (key: string) => ({ type: 'error', error: { type: 'authentication_error', message: `${'x'.repeat(265)} ${key}` } }),
    ];
    for (const shape of shapes) {
      const server = await tiny((_n, req, res) => {
        const echoed = shape(sentKey(req.headers) ?? '', req.headers.authorization ?? String(req.headers['x-api-key']));
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(typeof echoed === 'string' ? echoed : JSON.stringify(echoed));
      });
      const error = failure(await provider(server.url).generate(messages(), options()));
      expect(sentKey(server.requests[0]!.headers)).toBe(KEY);
      expect(error).toMatchObject({ kind: 'http', status: 401, retryable: false });
      expect(error.message).toMatch(/\[redacted/);
      expect(error.message).not.toContain('SECRET');
      expect(error.message).not.toContain(KEY.slice(0, 14));
    }
  });

  it('reads the key and the base URL from the environment as the SDK does', async () => {
    const server = await tiny((_n, _req, res) => sse(res, textReply(['from the environment'])));
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-from-env');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url);
    const outcome = success(await createProvider({ kind: 'anthropic', retry: FAST }, 'anthropic-messages').generate(messages(), options()));
    expect(outcome.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'from the environment' }] });
    expect(sentKey(server.requests[0]!.headers)).toBe('sk-ant-from-env');

    // local: the config's root URL, and the stand-in key (never ANTHROPIC_API_KEY).
    const local = await tiny((_n, _req, res) => sse(res, textReply(['simulated'])));
    success(await createProvider({ kind: 'local', baseUrl: local.url, retry: FAST }, 'anthropic-messages').generate(messages(), options()));
    expect(local.requests[0]!.path).toBe('/v1/messages');
    expect(sentKey(local.requests[0]!.headers)).toBe(LOCAL_API_KEY);
  });
});

describe('the Anthropic provider against the local server', () => {
  async function local(more: Parameters<typeof startLocal>[0] = {}) {
    const server = await startLocal({ captureRequests: true, ...more });
    return { server, provider: createProvider({ kind: 'local', baseUrl: server.url, retry: FAST }, 'anthropic-messages') };
  }
  const ask = (content: string, body: Record<string, unknown> = {}) =>
    messages({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content }], ...body });

  it('a streamed text reply and a streamed tool_use, as the simulator sends them', async () => {
    const { server, provider: p } = await local();
    let starts = 0;
    const text = success(
      await p.generate(ask('REPLY hello from the simulator, in pieces'), options(undefined, { onResponseStart: () => starts++ })),
    );
    expect(text.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello from the simulator, in pieces' }] });
    expect([text.finish, text.attempts, starts]).toEqual([{ reason: 'stop', raw: 'end_turn' }, 1, 1]);
    expect(text.usage.cachedTokens).toBe(0);
    expect(text.usage.promptTokens).toBeGreaterThan(0);

    const args = { path: 'a/rather/long/path/to/some/file.txt', lines: [1, 200] };
    const call = success(await p.generate(ask(`CALL read_file ${JSON.stringify(args)}`), options()));
    expect(call.finish).toEqual({ reason: 'tool_calls', raw: 'tool_use' });
    const [block] = (call.message as AnthropicMessageLike).content as Record<string, unknown>[];
    expect(block).toMatchObject({ type: 'tool_use', name: 'read_file', input: args });
    expect(block!.id).toMatch(/^toolu_/);
    expect(server.requests).toHaveLength(2);
  });

  it('usage through a breakpoint: the first call writes the prefix (1 hour), the next reads all of it', async () => {
    const { provider: p } = await local();
    const system = [{ type: 'text', text: `You are careful. ${padding(1500, 'sys')}`, cache_control: { type: 'ephemeral', ttl: '1h' } }];
    const cold = success(await p.generate(ask('REPLY a', { system }), options())).usage;
    expect(cold.cachedTokens).toBe(0);
    expect(cold.cacheWriteTokens).toBeGreaterThanOrEqual(1500);
    expect(cold.cacheWrite1hTokens).toBe(cold.cacheWriteTokens);
    expect(cold.promptTokens).toBeGreaterThan(cold.cacheWriteTokens!);
    const warm = success(await p.generate(ask('REPLY b', { system }), options())).usage;
    expect(warm.cachedTokens).toBe(cold.cacheWriteTokens);
    expect(warm.cacheWriteTokens).toBe(0);
    expect(warm.promptTokens).toBe(cold.promptTokens);
  });

  it("retries the simulator's 529 and 429 (its retry-after honoured), and not its 400", async () => {
    const { server, provider: p } = await local();
    const overloaded = success(await p.generate(ask('FAIL 529 x1\nREPLY after the storm'), options()));
    expect([overloaded.attempts, overloaded.message]).toEqual([
      2,
      { role: 'assistant', content: [{ type: 'text', text: 'after the storm' }] },
    ]);
    const limited = success(await p.generate(ask('FAIL 429 x1\nREPLY finally'), options()));
    expect(limited.attempts).toBe(2);
    expect(slept.at(-1)).toBe(1000);
    expect(server.requests).toHaveLength(4);

    const bad = await p.generate(messages({ messages: [{ role: 'wizard', content: 'x' }] as never }), options());
    expect(bad.attempts).toBe(1);
    expect(failure(bad)).toMatchObject({
      kind: 'http',
      status: 400,
      retryable: false,
      message: expect.stringMatching(/^invalid_request_error: /),
    });
  });

  it('a key the simulator requires is sent, and a wrong one is a 401 whose message carries no key', async () => {
    const server = await startLocal({ requireApiKey: 'sk-ant-local-required' });
    const right = createProvider(
      { kind: 'local', baseUrl: server.url, apiKey: 'sk-ant-local-required', retry: FAST },
      'anthropic-messages',
    );
    success(await right.generate(ask('REPLY in'), options()));
    const wrong = createProvider({ kind: 'local', baseUrl: server.url, apiKey: KEY, retry: FAST }, 'anthropic-messages');
    const error = failure(await wrong.generate(ask('REPLY out'), options()));
    expect(error).toMatchObject({ kind: 'http', status: 401, retryable: false, message: expect.stringMatching(/^authentication_error: /) });
    expect(error.message).not.toContain('SECRET');
  });
});
