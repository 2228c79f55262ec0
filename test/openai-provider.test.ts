// Internal: the built-in Chat Completions provider (src/model/openai-chat.ts), its presets (src/model/presets.ts), classifyError (src/model/errors.ts), the provider registry (src/model/providers/index.ts) and the mocked backoff (src/model/retry.ts): ForkEngine's `provider: { kind: 'openai' | 'deepseek' | … }` is their public face; the provider types come through forkpool/provider, ChatMessage through forkpool.
import type { ServerResponse } from 'node:http';
import { APIConnectionTimeoutError, APIUserAbortError, ConflictError, InternalServerError, RateLimitError } from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyError } from '../src/model/errors.js';
import { CHAT_PRESETS, LOCAL_API_KEY, resolveChatEndpoint } from '../src/model/presets.js';
import { createOpenAIChatProvider, readChatUsage } from '../src/model/openai-chat.js';
import { createProvider, providerModule } from '../src/model/providers/index.js';
import type { ChatMessage } from '../src/index.js';
import type { AttemptGate, GenerateOptions, ModelOutcome, OpenAIChatRequest, ProviderConfig, RetryPolicy } from '../src/provider.js';
import { padding, serversClosedAfterEach } from './fixtures/local-server/client.js';
import { tinyServersClosedAfterEach } from './support/tiny-server.js';

/*
 * The Chat Completions provider through the real openai SDK, against real HTTP servers: the local
 * simulator's OpenAI routes (startLocalServer), and small node:http servers written here for what the
 * simulator does not do (echoing a key, flat error bodies, broken streams).
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

// Servers of its own, for what the simulator does not do; their URL is the SDK's base URL (…/v1).
const tiny = tinyServersClosedAfterEach('/v1');
afterEach(() => {
  slept.length = 0;
  vi.unstubAllEnvs();
});

/** Server-sent events: each chunk a `data:` frame, then `[DONE]` (unless told not to end). */
function sse(res: ServerResponse, frames: readonly (object | string)[], end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const frame of frames) res.write(`data: ${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n\n`);
  if (end) {
    res.write('data: [DONE]\n\n');
    res.end();
  }
}

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const textChunk = (content: string, finish: string | null = null) => ({
  ...head,
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});
const usageChunk = (usage: object) => ({ ...head, choices: [], usage });

function jsonError(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

const FAST: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 60_000 };

function chat(messages: ChatMessage[], extra: Record<string, unknown> = {}): OpenAIChatRequest {
  return { format: 'openai-chat', body: { model: 'gpt-4.1', messages, ...extra } };
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

describe('readChatUsage: usage in forkpool terms, by the fields present', () => {
  it("reads OpenAI's prompt_tokens_details.cached_tokens (0 is a number, not unknown) and its cache_write_tokens", () => {
    // developers.openai.com prompt-caching guide's sample.
    expect(
      readChatUsage({ prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: { cached_tokens: 1920 } }),
    ).toEqual({
      promptTokens: 2006,
      cachedTokens: 1920,
      outputTokens: 300,
    });
    expect(
      readChatUsage({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 } })
        ?.cachedTokens,
    ).toBe(0);
    expect(
      readChatUsage({ prompt_tokens: 2600, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 400 } }),
    ).toEqual({
      promptTokens: 2600,
      cachedTokens: 2000,
      outputTokens: 5,
      cacheWriteTokens: 400,
    });
  });

  it("reads DeepSeek's prompt_cache_hit_tokens first", () => {
    expect(
      readChatUsage({
        prompt_tokens: 900,
        completion_tokens: 7,
        prompt_cache_hit_tokens: 832,
        prompt_cache_miss_tokens: 68,
        prompt_tokens_details: { cached_tokens: 0 },
      }),
    ).toEqual({ promptTokens: 900, cachedTokens: 832, outputTokens: 7 });
  });

  it("reads DashScope's cached tokens and explicit-cache writes", () => {
    expect(
      readChatUsage({
        prompt_tokens: 1600,
        completion_tokens: 3,
        prompt_tokens_details: {
          cached_tokens: 0,
          cache_type: 'ephemeral',
          cache_creation_input_tokens: 1540,
          cache_creation: { ephemeral_5m_input_tokens: 1540 },
        },
      }),
    ).toEqual({ promptTokens: 1600, cachedTokens: 0, outputTokens: 3, cacheWriteTokens: 1540 });
  });

  it('says unknown (null), never 0, when no cached-token field is there: vLLM without the flag, or details: null', () => {
    expect(readChatUsage({ prompt_tokens: 50, completion_tokens: 2, total_tokens: 52 })).toEqual({
      promptTokens: 50,
      cachedTokens: null,
      outputTokens: 2,
    });
    expect(readChatUsage({ prompt_tokens: 50, completion_tokens: 2, prompt_tokens_details: null })?.cachedTokens).toBeNull();
    expect(
      readChatUsage({ prompt_tokens: 50, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 'many' } })?.cachedTokens,
    ).toBeNull();
    expect(readChatUsage(null)).toBeUndefined();
    expect(readChatUsage(undefined)).toBeUndefined();
  });
});

describe("classifyError: the openai SDK's errors, by class", () => {
  const live = new AbortController().signal;
  it('status, retry-after-ms before retry-after, x-should-retry, timeouts and aborts', () => {
    const limited = new RateLimitError(
      429,
      { message: 'slow down' },
      undefined,
      new Headers({ 'retry-after-ms': '1.5', 'retry-after': '9' }),
    );
    expect(classifyError(limited, live)).toEqual({ kind: 'http', status: 429, message: 'slow down', retryable: true, retryAfterMs: 1.5 });
    const dated = new RateLimitError(
      429,
      undefined,
      undefined,
      new Headers({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }),
    );
    expect(classifyError(dated, live).retryAfterMs).toBeGreaterThan(50_000);
    expect(classifyError(dated, live).message).toBe('HTTP 429');
    // The server's own word on retrying wins over the status.
    expect(classifyError(new ConflictError(409, undefined, undefined, new Headers({ 'x-should-retry': 'true' })), live).retryable).toBe(
      true,
    );
    expect(
      classifyError(new InternalServerError(500, undefined, undefined, new Headers({ 'x-should-retry': 'false' })), live).retryable,
    ).toBe(false);
    expect(classifyError(new APIConnectionTimeoutError(), live)).toEqual({
      kind: 'timeout',
      message: 'the model call timed out',
      retryable: true,
    });
    expect(classifyError(new APIUserAbortError(), live)).toEqual({ kind: 'aborted', message: 'the call was aborted', retryable: false });
  });
});

describe('presets and the provider factory', () => {
  it("the shapes each provider speaks: gemini speaks gemini, the OpenAI-compatible kinds openai-chat (OpenAI its Responses API too), local every shape but the AI SDK's", () => {
    expect(providerModule('gemini').shapes).toEqual(['gemini']);
    expect(providerModule('openai').shapes).toEqual(['openai-chat', 'openai-responses']);
    for (const kind of ['deepseek', 'dashscope', 'openai-compatible'] as const)
      expect(providerModule(kind).shapes).toEqual(['openai-chat']);
    expect(providerModule('local').shapes).toEqual(['gemini', 'openai-chat', 'openai-responses', 'anthropic-messages']);
    expect(providerModule('ai-sdk').shapes).toEqual(['ai-sdk']);
  });

  it('the preset table: only OpenAI takes prompt_cache_key; the documented cache minimums and blocks', () => {
    const takes = Object.entries(CHAT_PRESETS)
      .filter(([, p]) => p.takesPromptCacheKey)
      .map(([kind]) => kind);
    expect(takes).toEqual(['openai']);
    expect([CHAT_PRESETS.openai.cacheMinTokens, CHAT_PRESETS.openai.cacheBlockTokens]).toEqual([1024, 128]);
    expect([CHAT_PRESETS.deepseek.cacheMinTokens, CHAT_PRESETS.deepseek.cacheBlockTokens]).toEqual([64, 64]);
    expect(CHAT_PRESETS.dashscope.cacheMinTokens).toBe(256);
    expect(CHAT_PRESETS.deepseek.usageFields).toContain('prompt_cache_hit_tokens');
    expect(CHAT_PRESETS['openai-compatible'].usageFields).toEqual([]);
  });

  it('resolves base URLs and keys: config first, then the preset variable, then the default', () => {
    const env = { DEEPSEEK_API_KEY: 'sk-ds', DASHSCOPE_API_KEY: 'sk-dash', OPENAI_API_KEY: 'sk-oai' };
    expect(resolveChatEndpoint({ kind: 'deepseek' }, env)).toMatchObject({
      baseUrl: 'https://api.deepseek.com',
      apiKey: 'sk-ds',
      keyIsSecret: true,
    });
    expect(resolveChatEndpoint({ kind: 'dashscope' }, env)).toMatchObject({
      baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
      apiKey: 'sk-dash',
    });
    expect(resolveChatEndpoint({ kind: 'openai', apiKey: 'sk-own' }, env)).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-own',
    });
    expect(resolveChatEndpoint({ kind: 'openai' }, { ...env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }).baseUrl).toBe(
      'http://127.0.0.1:9/v1',
    );
    expect(resolveChatEndpoint({ kind: 'openai-compatible', baseUrl: 'http://gpu:8000/v1' }, env)).toMatchObject({
      baseUrl: 'http://gpu:8000/v1',
      keyIsSecret: false,
    });
    expect(resolveChatEndpoint({ kind: 'local', baseUrl: 'http://127.0.0.1:4000/' }, {})).toMatchObject({
      baseUrl: 'http://127.0.0.1:4000/v1',
      apiKey: LOCAL_API_KEY,
      keyIsSecret: false,
    });
  });

  it('a missing key or base URL is a TypeError naming the variable or baseUrl; a dialect the kind does not speak too', () => {
    vi.stubEnv('DEEPSEEK_API_KEY', '');
    vi.stubEnv('DASHSCOPE_API_KEY', '');
    vi.stubEnv('OPENAI_API_KEY', '');
    expect(() => createProvider({ kind: 'deepseek' }, 'openai-chat')).toThrow(
      new TypeError("provider 'deepseek' needs an API key: set DEEPSEEK_API_KEY (or give apiKey)"),
    );
    expect(() => createProvider({ kind: 'dashscope' }, 'openai-chat')).toThrow(/DASHSCOPE_API_KEY/);
    expect(() => createProvider({ kind: 'openai' }, 'openai-chat')).toThrow(/OPENAI_API_KEY/);
    expect(() => createProvider({ kind: 'openai-compatible' }, 'openai-chat')).toThrow(TypeError);
    expect(() => createProvider({ kind: 'openai-compatible' }, 'openai-chat')).toThrow(/needs baseUrl/);
    expect(() => createProvider({ kind: 'local' }, 'openai-chat')).toThrow(/needs baseUrl/);
    expect(() => createProvider({ kind: 'gemini', apiKey: 'k' }, 'openai-chat')).toThrow(
      new TypeError("provider 'gemini' speaks gemini, not openai-chat: the session's format and the provider must match"),
    );
    expect(() => createProvider({ kind: 'openai', apiKey: 'k' }, 'gemini')).toThrow(TypeError);
    // Chat Completions kinds get the Chat provider, local any of them.
    expect(() => createProvider({ kind: 'local', baseUrl: 'http://127.0.0.1:1' }, 'gemini')).not.toThrow();
  });

  it('a request of the other dialect is a programming error; explicit caches are Gemini-only (a client without them has no cache methods)', async () => {
    const provider = createOpenAIChatProvider({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' });
    await expect(provider.generate({ format: 'gemini', model: 'm', contents: [] }, options())).rejects.toThrow(
      new TypeError(
        "the openai-compatible Chat Completions provider was given a request in the gemini dialect; it sends only format 'openai-chat'",
      ),
    );
    const gemini = createProvider({ kind: 'local', baseUrl: 'http://127.0.0.1:1' }, 'gemini');
    await expect(gemini.generate(chat([{ role: 'user', content: 'x' }]), options())).rejects.toThrow(
      /Gemini provider was given a request in the openai-chat dialect/,
    );
    expect('createCache' in provider).toBe(false);
    for (const kind of ['openai', 'deepseek', 'dashscope', 'openai-compatible'] as const)
      expect(providerModule(kind).explicitCaches).toBeUndefined();
    expect(typeof providerModule('gemini').explicitCaches).toBe('function');
  });
});

describe('the OpenAI chat provider against the local server', () => {
  async function local(usage: 'openai' | 'deepseek' | 'dashscope' | 'none' = 'openai', kind: ProviderConfig['kind'] = 'local') {
    const server = await startLocal({ usage, captureRequests: true, openaiCache: { buildDelayMs: 0 } });
    const baseUrl = kind === 'local' ? server.url : `${server.url}/v1`;
    const provider = createProvider({ kind, baseUrl, apiKey: kind === 'local' ? undefined : 'sk-test', retry: FAST }, 'openai-chat');
    return { server, provider };
  }

  it('streams a text reply into one assistant message, calling onResponseStart once', async () => {
    const { provider } = await local();
    let starts = 0;
    const outcome = success(
      await provider.generate(
        chat([{ role: 'user', content: 'REPLY hello from the stream, in several pieces' }]),
        options(undefined, { onResponseStart: () => starts++ }),
      ),
    );
    expect(outcome.message).toEqual({ role: 'assistant', content: 'hello from the stream, in several pieces' });
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'stop' });
    expect(outcome.attempts).toBe(1);
    expect(starts).toBe(1);
    expect(outcome.usage.promptTokens).toBeGreaterThan(0);
    expect(outcome.usage.outputTokens).toBeGreaterThan(0);
  });

  it('reassembles streamed tool calls from their fragments, by index', async () => {
    const { provider } = await local();
    const args = { path: 'a/rather/long/path/to/some/file.txt', lines: [1, 200], note: 'streamed in fragments' };
    const outcome = success(
      await provider.generate(
        chat([{ role: 'user', content: `CALL read_file ${JSON.stringify(args)}\nCALL grep {"pattern":"x"}` }]),
        options(),
      ),
    );
    expect(outcome.finish).toEqual({ reason: 'tool_calls', raw: 'tool_calls' });
    const message = outcome.message as {
      role: string;
      content: unknown;
      tool_calls: { id: string; type: string; function: { name: string; arguments: string } }[];
    };
    expect(message.role).toBe('assistant');
    expect(message.content).toBeNull();
    expect(message.tool_calls.map((c) => [c.type, c.function.name])).toEqual([
      ['function', 'read_file'],
      ['function', 'grep'],
    ]);
    expect(JSON.parse(message.tool_calls[0]!.function.arguments)).toEqual(args);
    expect(message.tool_calls[1]!.function.arguments).toBe('{"pattern":"x"}');
    expect(message.tool_calls.every((c) => /^call_/.test(c.id))).toBe(true);
    expect(Object.keys(message).sort()).toEqual(['content', 'role', 'tool_calls']);
  });

  it('normalizes usage per preset: openai and deepseek count hits, dashscope counts writes, none is unknown', async () => {
    const conversation = (directive: string): ChatMessage[] => [
      { role: 'system', content: `You are careful. ${padding(1500, 'sys')}` },
      { role: 'user', content: directive },
    ];
    const twice = async (usage: 'openai' | 'deepseek' | 'dashscope' | 'none') => {
      const { provider } = await local(usage);
      const first = success(await provider.generate(chat(conversation('REPLY a')), options())).usage;
      const second = success(await provider.generate(chat(conversation('REPLY b')), options())).usage;
      return [first, second] as const;
    };

    const [openaiCold, openaiWarm] = await twice('openai');
    expect(openaiCold.cachedTokens).toBe(0);
    expect(openaiWarm.cachedTokens).toBeGreaterThanOrEqual(1024);
    expect(openaiWarm.cachedTokens! % 128).toBe(0);

    // DeepSeek's prefix units: a sibling finds only the first request's units (its own end), so nothing; the
    // second request made a unit where the two agree, which a third reads (in 64-token steps).
    const deepseek = await local('deepseek');
    const units = [];
    for (const directive of ['REPLY a', 'REPLY b', 'REPLY c'])
      units.push(success(await deepseek.provider.generate(chat(conversation(directive)), options())).usage);
    expect(units.map((u) => u.cachedTokens === 0)).toEqual([true, true, false]);
    expect(units[2]?.cachedTokens).toBeGreaterThan(1024);
    expect(units[2]!.cachedTokens! % 64).toBe(0);

    const [dashCold, dashWarm] = await twice('dashscope');
    expect(dashCold.cachedTokens).toBe(0);
    expect(dashWarm.cachedTokens).toBeGreaterThan(0);

    const [noneCold, noneWarm] = await twice('none');
    expect(noneCold.cachedTokens).toBeNull();
    expect(noneWarm.cachedTokens).toBeNull();
    expect(noneWarm.promptTokens).toBeGreaterThan(1500);

    // DashScope's explicit markers: the write is reported as cacheWriteTokens, then read exactly.
    const { provider } = await local('dashscope');
    const marked = (directive: string): ChatMessage[] => [
      { role: 'system', content: [{ type: 'text', text: padding(1500, 'sys'), cache_control: { type: 'ephemeral' } }] } as ChatMessage,
      { role: 'user', content: directive },
    ];
    const written = success(await provider.generate(chat(marked('REPLY a')), options())).usage;
    expect(written.cacheWriteTokens).toBeGreaterThanOrEqual(1500);
    const read = success(await provider.generate(chat(marked('REPLY b')), options())).usage;
    expect(read.cachedTokens).toBe(written.cacheWriteTokens);
  });

  it('sends the caller body byte for byte: its key order and messages, then the stream fields', async () => {
    const { server, provider } = await local('openai', 'local');
    const messages: ChatMessage[] = [
      { content: 'Be brief. ✓ «quotes» and \\ backslashes', role: 'system' } as ChatMessage,
      { role: 'user', content: [{ text: 'first part', type: 'text' }] } as ChatMessage,
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', id: 'call_1', function: { arguments: '{"b":1,"a":2}', name: 'grep' } }],
      } as ChatMessage,
      { tool_call_id: 'call_1', role: 'tool', content: 'no match' } as ChatMessage,
      { role: 'user', content: 'REPLY done' },
    ];
    const body = {
      temperature: 0.2,
      messages,
      tools: [
        { function: { parameters: { properties: { pattern: { type: 'string' } }, type: 'object' }, name: 'grep' }, type: 'function' },
      ],
      model: 'gpt-4.1',
      max_tokens: 64,
    };
    success(await provider.generate({ format: 'openai-chat', body, promptCacheKey: 'run-1' }, options()));
    expect(server.requests).toHaveLength(1);
    // local takes no prompt_cache_key: the body is the caller's plus the two stream fields.
    expect(server.requests[0]!.body).toBe(JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }));

    // openai takes prompt_cache_key; deepseek does not.
    const openai = await local('openai', 'openai');
    success(await openai.provider.generate({ format: 'openai-chat', body, promptCacheKey: 'run-1' }, options()));
    expect(openai.server.requests[0]!.body).toBe(
      JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true }, prompt_cache_key: 'run-1' }),
    );
    const deepseek = await local('deepseek', 'deepseek');
    success(await deepseek.provider.generate({ format: 'openai-chat', body, promptCacheKey: 'run-1' }, options()));
    expect(deepseek.server.requests[0]!.body).toBe(JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }));
  });

  it("retries a 429 after the server's retry-after, then succeeds; reports each attempt to the gate", async () => {
    const { server, provider } = await local();
    const released: [string, boolean][] = [];
    const gate: AttemptGate = {
      acquire: async () => true,
      release: async (status, wantsRetry) => {
        released.push([status, wantsRetry]);
        return wantsRetry;
      },
    };
    const outcome = success(
      await provider.generate(chat([{ role: 'user', content: 'FAIL 429 x1\nREPLY finally' }]), options(undefined, { gate })),
    );
    expect(outcome.message).toEqual({ role: 'assistant', content: 'finally' });
    expect(outcome.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
    // The local server sends retry-after: 1 and retry-after-ms: 1000; the backoff asked for is the server's.
    expect(slept).toEqual([1000]);
    expect(released).toEqual([
      ['rate_limited', true],
      ['ok', false],
    ]);
  });

  it('does not retry a 400, and says what the server said', async () => {
    const { server, provider } = await local();
    const error = failure(await provider.generate(chat([{ role: 'wizard', content: 'hi' } as unknown as ChatMessage]), options()));
    expect(error).toMatchObject({ kind: 'http', status: 400, retryable: false });
    expect(error.message).toMatch(/Invalid value: "wizard"/);
    expect(server.requests).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('gives up after maxAttempts, naming the last failure', async () => {
    const server = await startLocal({ captureRequests: true, faults: { retryAfterSeconds: 0 } });
    const provider = createProvider({ kind: 'local', baseUrl: server.url, retry: { ...FAST, maxAttempts: 2 } }, 'openai-chat');
    const outcome = await provider.generate(chat([{ role: 'user', content: 'FAIL 503 x5\nREPLY never' }]), options());
    expect(outcome.attempts).toBe(2);
    expect(failure(outcome)).toMatchObject({
      kind: 'http',
      status: 503,
      retryable: true,
      message: 'Scripted failure 2 of 5 for this request.',
    });
    expect(server.requests).toHaveLength(2);
  });
});

describe('the OpenAI chat provider against a misbehaving server', () => {
  const provider = (url: string, more: Partial<ProviderConfig> = {}) =>
    createProvider({ kind: 'openai-compatible', baseUrl: url, apiKey: 'sk-test', retry: FAST, ...more }, 'openai-chat');
  const ask = chat([{ role: 'user', content: 'hi' }]);

  it('honours retry-after-ms before retry-after, and reads the server message of the final failure', async () => {
    const server = await tiny((n, _req, res) => {
      if (n === 1)
        return jsonError(
          res,
          429,
          { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } },
          { 'retry-after-ms': '250', 'retry-after': '7' },
        );
      sse(res, [textChunk('ok', 'stop'), usageChunk({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 })]);
    });
    const outcome = success(await provider(server.url).generate(ask, options()));
    expect(outcome.attempts).toBe(2);
    expect(outcome.usage).toEqual({ promptTokens: 3, cachedTokens: null, outputTokens: 1 });
    expect(slept).toEqual([250]);

    const always = await tiny((_n, _req, res) => jsonError(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '2' }));
    const error = failure(await provider(always.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()));
    expect(error).toEqual({ kind: 'http', status: 429, message: 'slow down', retryable: true, retryAfterMs: 2000 });
  });

  it("reads DashScope's flat {code, message} body, which the SDK itself drops", async () => {
    const server = await tiny((_n, _req, res) =>
      jsonError(res, 429, { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded', request_id: 'r-1' }),
    );
    const error = failure(await provider(server.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()));
    expect(error).toEqual({ kind: 'http', status: 429, message: 'Throttling.RateQuota: Requests rate limit exceeded', retryable: true });
    const text = await tiny((_n, _req, res) => jsonError(res, 502, 'upstream unavailable'));
    expect(failure(await provider(text.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options())).message).toBe(
      'upstream unavailable',
    );
  });

  it('never puts the API key into a message, even when the server echoes the Authorization header', async () => {
    const key = 'sk-live-SECRET-0123456789abcdefABCDEF';
    const shapes = [
      (auth: string) => ({
        error: { message: `Incorrect API key provided: ${auth}`, type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
      (auth: string) => ({ code: 'InvalidApiKey', message: `invalid key ${auth.slice(7)} (${auth})` }),
      (auth: string) => `bad credentials: ${auth}`,
      // A key cut in two by a long message must not survive the truncation either.
      (auth: string) => ({ error: { message: `${'x'.repeat(290)} ${auth.slice(7)}` } }),
    ];
    for (const shape of shapes) {
      const server = await tiny((_n, req, res) => jsonError(res, 401, shape(req.headers.authorization ?? '')));
      const error = failure(await provider(server.url, { apiKey: key }).generate(ask, options()));
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
      expect(error).toMatchObject({ kind: 'http', status: 401, retryable: false });
      expect(error.message).toMatch(/\[redacted/);
      expect(error.message).not.toContain('SECRET');
      expect(error.message).not.toContain(key.slice(0, 12));
    }
  });

  it('takes the key from the preset variable, and does not send the OpenAI organization elsewhere', async () => {
    vi.stubEnv('DASHSCOPE_API_KEY', 'sk-from-env-dashscope');
    vi.stubEnv('OPENAI_ORG_ID', 'org-not-for-alibaba');
    const server = await tiny((_n, _req, res) => sse(res, [textChunk('ok', 'stop')]));
    const outcome = success(await createProvider({ kind: 'dashscope', baseUrl: server.url }, 'openai-chat').generate(ask, options()));
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env-dashscope');
    expect(server.requests[0]!.headers['openai-organization']).toBeUndefined();
    // Without a usage chunk, nothing is known about the cache.
    expect(outcome.usage).toEqual({ promptTokens: 0, cachedTokens: null, outputTokens: 0 });
  });

  it('a malformed stream is retryable: a cut JSON frame, no choice at all, a tool call without a name', async () => {
    const broken = [
      // The last frame cut in half.
      (res: ServerResponse) => sse(res, [textChunk('par'), JSON.stringify(textChunk('tial', 'stop')).slice(0, 30)], false) ?? res.end(),
      (res: ServerResponse) => sse(res, [usageChunk({ prompt_tokens: 3, completion_tokens: 0 })]),
      (res: ServerResponse) =>
        sse(res, [
          {
            ...head,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { arguments: '{}' } }] },
                finish_reason: 'tool_calls',
              },
            ],
          },
        ]),
    ];
    const expected = [
      /^malformed response: /,
      /^malformed response: the stream held no choice$/,
      /^malformed response: a tool call without a name$/,
    ];
    for (const [i, send] of broken.entries()) {
      const server = await tiny((n, _req, res) => (n === 1 ? send(res) : sse(res, [textChunk('fine', 'stop')])));
      const outcome = success(await provider(server.url).generate(ask, options()));
      expect(outcome.attempts).toBe(2);
      expect(outcome.message).toEqual({ role: 'assistant', content: 'fine' });
      const alone = await tiny((_n, _req, res) => send(res));
      const error = failure(await provider(alone.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()));
      expect(error.kind).toBe('malformed');
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(expected[i]!);
    }
  });

  it('an error event inside the stream, a dropped connection and a refused one', async () => {
    const midError = await tiny((_n, _req, res) =>
      sse(res, [textChunk('par'), { error: { message: 'The server is overloaded', type: 'server_error' } }]),
    );
    expect(failure(await provider(midError.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()))).toEqual({
      kind: 'http',
      message: 'the stream carried an error: The server is overloaded',
      retryable: true,
    });

    const dropped = await tiny((_n, _req, res) => {
      sse(res, [textChunk('par')], false);
      setTimeout(() => res.socket?.destroy(), 10);
    });
    expect(failure(await provider(dropped.url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()))).toMatchObject({
      kind: 'network',
      retryable: true,
    });

    const gone = await tiny(() => undefined);
    const url = gone.url;
    await gone.close();
    const refused = failure(await provider(url, { retry: { ...FAST, maxAttempts: 1 } }).generate(ask, options()));
    expect(refused).toEqual({ kind: 'network', message: 'network error: ECONNREFUSED', retryable: true });
  });

  it('an abort ends the call at once, also mid-stream (the SDK ends that stream quietly: it is not an answer)', async () => {
    const server = await tiny((_n, _req, res) => sse(res, [textChunk('the beginning of a long answer')], false));
    const controller = new AbortController();
    const outcome = await provider(server.url).generate(ask, options(controller.signal, { onResponseStart: () => controller.abort() }));
    expect(outcome).toEqual({ ok: false, error: { kind: 'aborted', message: 'the call was aborted', retryable: false }, attempts: 1 });
    await server.closed(1);
    expect(server.requests).toHaveLength(1);

    // Aborted while the server has not answered yet.
    const silent = await tiny(() => undefined);
    const late = new AbortController();
    const pending = provider(silent.url).generate(ask, options(late.signal));
    await vi.waitFor(() => expect(silent.requests).toHaveLength(1));
    late.abort();
    expect(failure(await pending)).toMatchObject({ kind: 'aborted', retryable: false });
    await silent.closed(1);
  });

  it('callTimeoutMs bounds the whole attempt, the stream included', async () => {
    const server = await tiny((_n, _req, res) => sse(res, [textChunk('and then nothing more')], false));
    const outcome = await provider(server.url, { callTimeoutMs: 100, retry: { ...FAST, maxAttempts: 2 } }).generate(ask, options());
    expect(failure(outcome)).toEqual({ kind: 'timeout', message: 'the model call timed out', retryable: true });
    expect(outcome.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps a refusal, and leaves reasoning_content out of the message', async () => {
    const server = await tiny((_n, _req, res) =>
      sse(res, [
        { ...head, choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'thinking…' }, finish_reason: null }] },
        { ...head, choices: [{ index: 0, delta: { content: 'four' }, finish_reason: null }] },
        { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        usageChunk({ prompt_tokens: 12, completion_tokens: 9, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 12 }),
      ]),
    );
    const outcome = success(await provider(server.url).generate(ask, options()));
    expect(outcome.message).toEqual({ role: 'assistant', content: 'four' });
    expect(outcome.usage).toEqual({ promptTokens: 12, cachedTokens: 0, outputTokens: 9 });

    const refusing = await tiny((_n, _req, res) =>
      sse(res, [{ ...head, choices: [{ index: 0, delta: { refusal: "I can't help" }, finish_reason: 'stop' }] }]),
    );
    expect(success(await provider(refusing.url).generate(ask, options())).message).toEqual({
      role: 'assistant',
      content: null,
      refusal: "I can't help",
    });
  });
});
