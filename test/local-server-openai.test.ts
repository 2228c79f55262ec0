// Internal: serveCommand (src/cli/serve.ts), `forkpool serve` run in-process: the CLI is its public face, and no entry point exports a command; everything else comes through forkpool/local-server.
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../src/cli/serve.js';
import type { LocalServer, LocalServerOptions } from '../src/local-server/index.js';
import { client as geminiClient, MODEL as GEMINI_MODEL, padding, serversClosedAfterEach } from './fixtures/local-server/client.js';

/** The local server's OpenAI Chat Completions dialect, through the real openai SDK. */

const start = serversClosedAfterEach();
const MODEL = 'gpt-4.1';
/** DeepSeek's usage fields, which the openai SDK's types do not have. */
type DeepSeekUsage = { prompt_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number };

function openai(server: LocalServer, apiKey = 'sk-test'): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

async function serve(options: LocalServerOptions = {}): Promise<{ server: LocalServer; ai: OpenAI }> {
  const server = await start(options);
  return { server, ai: openai(server) };
}

/** The rejection of a call, as the SDK's APIError. */
async function apiError(promise: Promise<unknown>): Promise<APIError> {
  const outcome: unknown = await promise.then(
    () => 'resolved',
    (err: unknown) => err,
  );
  if (!(outcome instanceof APIError)) throw new Error(`expected an APIError, got ${String(outcome)}`);
  return outcome;
}

/** A conversation with a long shared system prompt (about `tokens` tokens) and its own last user turn. */
function conversation(tokens: number, directive: string): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: `You are a careful agent. ${padding(tokens, 'sys')}` },
    { role: 'user', content: directive },
  ];
}

describe('local server: OpenAI chat completions', () => {
  it('answers a scripted REPLY, and captures the exact bytes the SDK sent', async () => {
    const { server, ai } = await serve({ captureRequests: true });
    const res = await ai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'REPLY hello from the simulator' }] });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe(MODEL);
    expect(res.choices[0]?.message.content).toBe('hello from the simulator');
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage?.completion_tokens).toBeGreaterThan(0);
    expect(res.usage?.total_tokens).toBe((res.usage?.prompt_tokens ?? 0) + (res.usage?.completion_tokens ?? 0));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.route).toBe('chat.completions');
    expect(server.requests[0]?.model).toBe(MODEL);
    expect(server.requests[0]?.body).toBe(
      JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'REPLY hello from the simulator' }] }),
    );
  });

  it('streams the same answer in several chunks, with usage only when include_usage is set', async () => {
    const { ai } = await serve();
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'TOKENS 120' }];
    const whole = await ai.chat.completions.create({ model: MODEL, messages });

    const stream = await ai.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual(whole.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks[chunks.length - 2]?.choices[0]?.finish_reason).toBe('stop');

    const plain = await ai.chat.completions.create({ model: MODEL, messages, stream: true });
    const plainChunks = [];
    for await (const chunk of plain) plainChunks.push(chunk);
    expect(plainChunks.every((c) => !('usage' in c))).toBe(true);
    expect(plainChunks[plainChunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
  });

  it('calls tools with call ids and JSON arguments, and reads the answers matched by call id', async () => {
    const { ai } = await serve();
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      },
      {
        type: 'function' as const,
        function: { name: 'grep', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } },
      },
    ];
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'CALL read_file {"path":"notes/a.txt"}\nCALL grep {"pattern":"TODO"}' },
    ];
    const first = await ai.chat.completions.create({ model: MODEL, messages, tools });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const calls = (choice?.message.tool_calls ?? []).map((c) => (c.type === 'function' ? c : undefined));
    expect(calls.map((c) => c?.function.name)).toEqual(['read_file', 'grep']);
    expect(JSON.parse(calls[0]?.function.arguments ?? '')).toEqual({ path: 'notes/a.txt' });
    expect(calls.every((c) => /^call_[0-9a-f]+/.test(c?.id ?? ''))).toBe(true);
    expect(new Set(calls.map((c) => c?.id)).size).toBe(2);

    // The answers, in the other order: the model names each result by the call it answers.
    messages.push(choice?.message as ChatCompletionMessageParam);
    messages.push({ role: 'tool', tool_call_id: calls[1]?.id ?? '', content: '3 matches' });
    messages.push({ role: 'tool', tool_call_id: calls[0]?.id ?? '', content: 'file body' });
    const second = await ai.chat.completions.create({ model: MODEL, messages, tools });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toMatch(/Result: 2 tool result\(s\) from grep, read_file/);

    // A REPLY after the round trip ends the fork with that text.
    const replied: ChatCompletionMessageParam[] = [{ role: 'user', content: 'CALL read_file {"path":"x"}\nREPLY read it' }];
    const call = await ai.chat.completions.create({ model: MODEL, messages: replied, tools });
    replied.push(call.choices[0]?.message as ChatCompletionMessageParam);
    replied.push({ role: 'tool', tool_call_id: call.choices[0]?.message.tool_calls?.[0]?.id ?? '', content: 'x body' });
    const done = await ai.chat.completions.create({ model: MODEL, messages: replied, tools });
    expect(done.choices[0]?.message.content).toBe('read it');
  });

  it('streams a tool call as a first fragment with id and name, then argument fragments joined by index', async () => {
    const { ai } = await serve();
    const args = { path: 'a/rather/long/path/to/some/file.txt', lines: [1, 200], note: 'streamed in fragments' };
    const stream = await ai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: `CALL read_file ${JSON.stringify(args)}\nCALL grep {"pattern":"x"}` }],
      stream: true,
    });
    const byIndex = new Map<number, { id?: string; name?: string; args: string; fragments: number }>();
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      finish ??= chunk.choices[0]?.finish_reason;
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const call = byIndex.get(delta.index) ?? { args: '', fragments: 0 };
        if (delta.id !== undefined) {
          expect(call.id).toBeUndefined();
          call.id = delta.id;
          call.name = delta.function?.name;
        }
        call.args += delta.function?.arguments ?? '';
        call.fragments++;
        byIndex.set(delta.index, call);
      }
    }
    expect(finish).toBe('tool_calls');
    expect([...byIndex.keys()]).toEqual([0, 1]);
    expect(byIndex.get(0)?.name).toBe('read_file');
    expect(byIndex.get(0)?.id).toMatch(/^call_/);
    expect(JSON.parse(byIndex.get(0)?.args ?? '')).toEqual(args);
    expect(byIndex.get(0)?.fragments).toBeGreaterThan(2);
    expect(byIndex.get(1)?.name).toBe('grep');
    expect(JSON.parse(byIndex.get(1)?.args ?? '')).toEqual({ pattern: 'x' });
  });

  it('RECALL finds a marker anywhere in the history it was sent, and only there', async () => {
    const { ai } = await serve();
    const history: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'The deploy code is MARK-4821.' },
      { role: 'user', content: 'Remember the ticket MARK-77.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'RECALL MARK-\\d+' },
    ];
    const res = await ai.chat.completions.create({ model: MODEL, messages: history });
    expect(res.choices[0]?.message.content).toBe('RECALL MARK-\\d+: MARK-4821, MARK-77');
    const without = await ai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'RECALL MARK-\\d+' }] });
    expect(without.choices[0]?.message.content).toBe('RECALL MARK-\\d+: no match');
  });
});

describe('local server: OpenAI usage and the simulated cache, per preset', () => {
  it('openai: cached_tokens in prompt_tokens_details, from 1,024 tokens in 128-token steps', async () => {
    const { ai } = await serve();
    const cold = await ai.chat.completions.create({ model: MODEL, messages: conversation(3000, 'REPLY one') });
    expect(cold.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const warm = await ai.chat.completions.create({ model: MODEL, messages: conversation(3000, 'REPLY two') });
    const cached = warm.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(2944);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThan(warm.usage?.prompt_tokens ?? 0);
    // A change at the start invalidates everything after it.
    const changed = conversation(3000, 'REPLY two');
    changed[0] = { role: 'system', content: `You are a reckless agent. ${padding(3000, 'sys')}` };
    expect((await ai.chat.completions.create({ model: MODEL, messages: changed })).usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    // Below the minimum, nothing is cached however often it is sent.
    await ai.chat.completions.create({ model: MODEL, messages: conversation(600, 'REPLY a') });
    expect(
      (await ai.chat.completions.create({ model: MODEL, messages: conversation(600, 'REPLY b') })).usage?.prompt_tokens_details
        ?.cached_tokens,
    ).toBe(0);
  });

  it('a change to the tools invalidates the whole prompt', async () => {
    const { ai } = await serve();
    const tool = (description: string) => [
      { type: 'function' as const, function: { name: 'read_file', description, parameters: { type: 'object' } } },
    ];
    await ai.chat.completions.create({ model: MODEL, messages: conversation(2000, 'REPLY a'), tools: tool('Reads a file.') });
    const same = await ai.chat.completions.create({ model: MODEL, messages: conversation(2000, 'REPLY b'), tools: tool('Reads a file.') });
    expect(same.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(1024);
    const other = await ai.chat.completions.create({
      model: MODEL,
      messages: conversation(2000, 'REPLY b'),
      tools: tool('Reads one file.'),
    });
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('deepseek: prompt_cache_hit_tokens and prompt_cache_miss_tokens, usable only once built', async () => {
    const building = await serve({ usage: 'deepseek', openaiCache: { buildDelayMs: 600_000 } });
    await building.ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY a') });
    // The very same prompt: its unit is still being built.
    const early = (await building.ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY a') }))
      .usage as unknown as DeepSeekUsage;
    expect(early.prompt_cache_hit_tokens).toBe(0);
    expect(early.prompt_cache_miss_tokens).toBe(early.prompt_tokens);

    const { ai } = await serve({ usage: 'deepseek', openaiCache: { buildDelayMs: 0 } });
    await ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY a') });
    // Cache prefix units (local-server-deepseek-units.test.ts): b matches no whole unit of a's, and makes
    // the prefix they share one; c hits it.
    const second = (await ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY b') }))
      .usage as unknown as DeepSeekUsage;
    expect(second.prompt_cache_hit_tokens).toBe(0);
    const usage = (await ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY c') }))
      .usage as unknown as DeepSeekUsage;
    expect(usage.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(448);
    expect(usage.prompt_cache_hit_tokens % 64).toBe(0);
    expect(usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
  });

  it('deepseek with a short build delay: a bounded wait sees the entry become usable', async () => {
    const { ai } = await serve({ usage: 'deepseek', openaiCache: { buildDelayMs: 150 } });
    await ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, 'REPLY a') });
    let hit = 0;
    for (let i = 0; i < 100 && hit === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const usage = (await ai.chat.completions.create({ model: 'deepseek-chat', messages: conversation(500, `REPLY ${i}`) }))
        .usage as unknown as DeepSeekUsage;
      hit = usage.prompt_cache_hit_tokens ?? 0;
    }
    expect(hit).toBeGreaterThanOrEqual(448);
  });

  it('dashscope implicit: cached_tokens from 256 tokens', async () => {
    const { ai } = await serve({ usage: 'dashscope' });
    await ai.chat.completions.create({ model: 'qwen-plus', messages: conversation(400, 'REPLY a') });
    const usage = (await ai.chat.completions.create({ model: 'qwen-plus', messages: conversation(400, 'REPLY b') })).usage;
    expect(usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(384);
    expect((usage?.prompt_tokens_details?.cached_tokens ?? 0) % 128).toBe(0);
    expect(usage?.prompt_tokens_details).not.toHaveProperty('cache_creation_input_tokens');
  });

  it('dashscope explicit: cache_control writes at the marked message, reported as cache_creation_input_tokens, then hits exactly', async () => {
    const { ai, server } = await serve({ usage: 'dashscope' });
    const marked = (directive: string): ChatCompletionMessageParam[] => [
      { role: 'system', content: [{ type: 'text', text: padding(1500, 'sys'), cache_control: { type: 'ephemeral' } } as never] },
      { role: 'user', content: directive },
    ];
    const first = (await ai.chat.completions.create({ model: 'qwen-plus', messages: marked('REPLY a') })).usage
      ?.prompt_tokens_details as Record<string, unknown>;
    expect(first.cached_tokens).toBe(0);
    expect(first.cache_type).toBe('ephemeral');
    const created = first.cache_creation_input_tokens as number;
    expect(created).toBeGreaterThanOrEqual(1500);
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: created });
    expect(server.metrics().explicitCaches).toBe(1);

    const second = (await ai.chat.completions.create({ model: 'qwen-plus', messages: marked('REPLY b') })).usage
      ?.prompt_tokens_details as Record<string, unknown>;
    // Exact to the marked message, not rounded to blocks.
    expect(second.cached_tokens).toBe(created);
    expect(second.cache_creation_input_tokens).toBe(0);

    // The marked request wrote nothing to the implicit cache: the same prompt without the marker misses.
    const unmarked: ChatCompletionMessageParam[] = [
      { role: 'system', content: padding(1500, 'sys') },
      { role: 'user', content: 'REPLY c' },
    ];
    expect((await ai.chat.completions.create({ model: 'qwen-plus', messages: unmarked })).usage?.prompt_tokens_details?.cached_tokens).toBe(
      0,
    );
    // Below 1,024 tokens a marker creates nothing.
    const small: ChatCompletionMessageParam[] = [
      { role: 'system', content: [{ type: 'text', text: padding(300, 'small'), cache_control: { type: 'ephemeral' } } as never] },
      { role: 'user', content: 'REPLY d' },
    ];
    const smallUsage = (await ai.chat.completions.create({ model: 'qwen-plus', messages: small })).usage;
    expect(smallUsage?.prompt_tokens_details).toHaveProperty('cache_creation_input_tokens', 0);
  });

  it('none: no cached-token field at all, though the simulated cache still serves (metrics)', async () => {
    const { ai, server } = await serve({ usage: 'none' });
    await ai.chat.completions.create({ model: 'forkpool-local', messages: conversation(500, 'REPLY a') });
    const usage = (await ai.chat.completions.create({ model: 'forkpool-local', messages: conversation(500, 'REPLY b') })).usage;
    expect(Object.keys(usage ?? {}).sort()).toEqual(['completion_tokens', 'prompt_tokens', 'total_tokens']);
    expect(server.metrics().cachedTokens).toBeGreaterThan(0);
    expect(server.metrics().cachedTokens % 16).toBe(0);
  });

  it('counts chat requests and tokens in the metrics, beside the Gemini routes (each with its own cache)', async () => {
    const { ai, server } = await serve();
    await ai.chat.completions.create({ model: MODEL, messages: conversation(2000, 'REPLY a') });
    const gemini = await geminiClient(server.url).models.generateContent({ model: GEMINI_MODEL, contents: 'REPLY from gemini' });
    expect(gemini.text).toBe('from gemini');
    await ai.models.list();
    const metrics = server.metrics();
    expect(metrics.requests.find((r) => r.route === 'chat.completions' && r.status === 200)?.count).toBe(1);
    expect(metrics.requests.find((r) => r.route === 'models.list' && r.status === 200)?.count).toBe(1);
    expect(metrics.requests.find((r) => r.route === 'generateContent' && r.status === 200)?.count).toBe(1);
    expect(metrics.promptTokens).toBeGreaterThan(2000);
    expect(metrics.cacheTokens).toBeGreaterThanOrEqual(1920);
  });
});

describe('local server: OpenAI errors and models', () => {
  it('400 names the field at fault, in OpenAI error JSON', async () => {
    const { ai } = await serve();
    const wrongType = await apiError(
      ai.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'user', content: 42 as never },
        ],
      }),
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.type).toBe('invalid_request_error');
    expect(wrongType.param).toBe('messages[1].content');
    expect(wrongType.code).toBe('invalid_type');
    const badRole = await apiError(ai.chat.completions.create({ model: MODEL, messages: [{ role: 'robot', content: 'x' } as never] }));
    expect(badRole.param).toBe('messages[0].role');
    const noModel = await apiError(ai.chat.completions.create({ messages: [{ role: 'user', content: 'x' }] } as never));
    expect(noModel.param).toBe('model');
    const orphan = await apiError(
      ai.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'call_1', content: 'y' },
        ],
      }),
    );
    expect(orphan.status).toBe(400);
    expect(orphan.param).toBe('messages.[1].role');
    const unanswered = await apiError(
      ai.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'user', content: 'y' },
        ],
      }),
    );
    expect(unanswered.message).toContain('call_9');
    const streamOptions = await apiError(
      ai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } }),
    );
    expect(streamOptions.param).toBe('stream_options');
  });

  it('bad JSON, an oversized body and an unknown path answer in OpenAI error JSON', async () => {
    const { server } = await serve({ maxBodyBytes: 4096 });
    const post = (path: string, body: string) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const bad = await post('/v1/chat/completions', '{"model": "x", "messages": [');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const big = await post('/v1/chat/completions', JSON.stringify({ model: 'x', messages: [{ role: 'user', content: padding(2000) }] }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toContain('4096');
    const unknown = await post('/v1/chat/complete', '{}');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { message: 'Invalid URL (POST /v1/chat/complete)', type: 'invalid_request_error', param: null, code: null },
    });
    // Gemini's paths keep Gemini's error shape.
    const gemini = await post('/v1beta/models/x:explode', '{}');
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  it('401 without the configured Bearer key or with another one', async () => {
    const server = await start({ requireApiKey: 'sk-right' });
    const wrong = await apiError(
      openai(server, 'sk-wrong').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'REPLY x' }] }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.code).toBe('invalid_api_key');
    const missing = await fetch(`${server.url}/v1/models`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('Bearer');
    const right = await openai(server, 'sk-right').chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'REPLY x' }],
    });
    expect(right.choices[0]?.message.content).toBe('x');
  });

  it('429 with retry-after and retry-after-ms: scripted FAIL (then the same request succeeds) and seeded faults', async () => {
    const { ai } = await serve({ faults: { retryAfterSeconds: 3 } });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'FAIL 429 x2\nREPLY finally' }];
    for (let attempt = 1; attempt <= 2; attempt++) {
      const err = await apiError(ai.chat.completions.create({ model: MODEL, messages }));
      expect(err.status).toBe(429);
      expect(err.code).toBe('rate_limit_exceeded');
      expect(err.headers?.get('retry-after')).toBe('3');
      expect(err.headers?.get('retry-after-ms')).toBe('3000');
      expect(err.message).toContain(`Scripted failure ${attempt} of 2`);
    }
    expect((await ai.chat.completions.create({ model: MODEL, messages })).choices[0]?.message.content).toBe('finally');

    const seeded = await serve({ faults: 'retryAfter=2,429=1' });
    const err = await apiError(seeded.ai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'REPLY x' }] }));
    expect(err.status).toBe(429);
    expect(err.headers?.get('retry-after')).toBe('2');
    expect(seeded.server.metrics().faults['429']).toBe(1);
    const failing = await serve({ faults: '500=1' });
    const internal = await apiError(failing.ai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'REPLY x' }] }));
    expect(internal.status).toBe(500);
    expect(internal.type).toBe('server_error');
  });

  it('GET /v1/models lists the preset provider’s models in OpenAI list shape', async () => {
    const { ai } = await serve();
    const page = await ai.models.list();
    expect(page.data.map((m) => m.id)).toContain('gpt-4.1');
    expect(page.data.every((m) => m.object === 'model' && typeof m.owned_by === 'string')).toBe(true);
    const deepseek = await serve({ usage: 'deepseek' });
    expect((await deepseek.ai.models.list()).data.map((m) => m.id)).toEqual(['deepseek-chat', 'deepseek-reasoner']);
  });

  it('refuses an unknown usage preset', async () => {
    await expect(start({ usage: 'anthropic' as never })).rejects.toThrow(/usage must be one of openai, deepseek, dashscope, none/);
  });
});

describe('forkpool serve --usage', () => {
  it('prints the OpenAI base URL and serves the chosen preset; refuses an unknown one', async () => {
    const lines: string[] = [];
    let stop: (reason: string) => void = () => undefined;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const done = serveCommand(['--port', '0', '--usage', 'deepseek'], { out: (l) => lines.push(l), err: (l) => lines.push(l), stopped });
    const prefix = 'export OPENAI_BASE_URL=';
    for (let i = 0; i < 1000 && !lines.some((l) => l.startsWith(prefix)); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const baseURL = lines.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? '';
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const ai = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    const usage = (await ai.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'REPLY x' }] })).usage;
    expect(usage).toHaveProperty('prompt_cache_miss_tokens', usage?.prompt_tokens);
    stop('test');
    expect(await done).toBe(0);

    const errors: string[] = [];
    expect(await serveCommand(['--usage', 'anthropic'], { out: () => undefined, err: (l) => errors.push(l) })).toBe(2);
    expect(errors[0]).toContain('--usage must be one of openai, deepseek, dashscope, none');
  });
});
