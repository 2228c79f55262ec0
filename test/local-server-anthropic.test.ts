// Internal: the simulator's Anthropic parts, breakpointsOf, createAnthropicCache, renderMessages and validateMessagesRequest (src/local-server/anthropic/): its POST /v1/messages is their public face; LocalServer and its options come through forkpool/local-server.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { breakpointsOf } from '../src/local-server/anthropic/breakpoints.js';
import { createAnthropicCache } from '../src/local-server/anthropic/cache.js';
import { renderMessages } from '../src/local-server/anthropic/render.js';
import { validateMessagesRequest } from '../src/local-server/anthropic/validate.js';
import type { LocalServer, LocalServerOptions } from '../src/local-server/index.js';
import { padding, serversClosedAfterEach } from './fixtures/local-server/client.js';

/** The local server's Anthropic Messages dialect, through the real @anthropic-ai/sdk. */

const start = serversClosedAfterEach();
/** 1,024 tokens is its minimum cacheable prompt. */
const MODEL = 'claude-sonnet-4-5';

function anthropic(server: LocalServer, apiKey = 'sk-ant-test'): Anthropic {
  return new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
}

async function serve(options: LocalServerOptions = {}): Promise<{ server: LocalServer; ai: Anthropic }> {
  const server = await start(options);
  return { server, ai: anthropic(server) };
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

const text = (value: string, cache?: 'ephemeral' | '5m' | '1h'): TextBlockParam => ({
  type: 'text',
  text: value,
  ...(cache === undefined ? {} : { cache_control: cache === 'ephemeral' ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cache } }),
});

/** A long shared system prompt (about `tokens` tokens), with a breakpoint when `cache` is given. */
const system = (tokens: number, cache?: 'ephemeral' | '5m' | '1h'): TextBlockParam[] => [
  text(`You are a careful agent. ${padding(tokens, 'sys')}`, cache),
];

function params(extra: Partial<MessageCreateParamsNonStreaming> & { messages: MessageParam[] }): MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 1024, ...extra };
}

/** Every input token is read, written or plain input, and together they are the whole prompt. */
async function expectWholePrompt(ai: Anthropic, request: MessageCreateParamsNonStreaming, usage: Usage): Promise<void> {
  const { max_tokens: _, ...countable } = request;
  const total = (await ai.messages.countTokens(countable)).input_tokens;
  expect((usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + usage.input_tokens).toBe(total);
}

describe('local server: Anthropic messages', () => {
  it('answers a scripted REPLY with a request-id, and captures the exact bytes the SDK sent', async () => {
    const { server, ai } = await serve({ captureRequests: true });
    const { data, response, request_id } = await ai.messages
      .create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'REPLY hello from the simulator' }] })
      .withResponse();
    expect(data.type).toBe('message');
    expect(data.role).toBe('assistant');
    expect(data.model).toBe(MODEL);
    expect(data.content).toEqual([{ type: 'text', text: 'hello from the simulator' }]);
    expect(data.stop_reason).toBe('end_turn');
    expect(data.id).toMatch(/^msg_/);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect(data.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
    expect(request_id).toMatch(/^req_/);
    expect(response.headers.get('request-id')).toBe(request_id);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.route).toBe('messages');
    expect(server.requests[0]?.model).toBe(MODEL);
    expect(server.requests[0]?.body).toBe(
      JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'REPLY hello from the simulator' }] }),
    );
  });

  it('streams the same answer: message_start with the cache usage, text deltas, message_delta with stop_reason and output tokens, message_stop', async () => {
    const { ai } = await serve();
    const request = params({ system: system(1500, 'ephemeral'), messages: [{ role: 'user', content: 'TOKENS 120' }] });
    const whole = await ai.messages.create(request);

    const stream = await ai.messages.create({ ...request, stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThan(1);
    const start = events[0]?.type === 'message_start' ? events[0].message : undefined;
    expect(start?.content).toEqual([]);
    expect(start?.stop_reason).toBeNull();
    // The stream read what the first request wrote, and says so from its first event.
    expect(start?.usage.cache_read_input_tokens).toBe(whole.usage.cache_creation_input_tokens);
    expect(start?.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
    const streamed = events.map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '')).join('');
    expect(streamed).toBe(whole.content[0]?.type === 'text' ? whole.content[0].text : undefined);
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta?.type === 'message_delta' && delta.delta.stop_reason).toBe('end_turn');
    expect(delta?.type === 'message_delta' && delta.usage.output_tokens).toBe(whole.usage.output_tokens);

    // The SDK's stream helper assembles the same message.
    const final = await ai.messages.stream(request).finalMessage();
    expect(final.content).toEqual(whole.content);
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('sends a ping after the first block starts, as named SSE events', async () => {
    const { server } = await serve();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'REPLY pong' }] }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const names = [...(await res.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('calls tools with toolu_ ids and input objects, and reads the tool_result blocks by tool_use id', async () => {
    const { ai } = await serve();
    const tools = [
      { name: 'read_file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } },
      { name: 'grep', input_schema: { type: 'object' as const, properties: { pattern: { type: 'string' } } } },
    ];
    const messages: MessageParam[] = [{ role: 'user', content: 'CALL read_file {"path":"notes/a.txt"}\nCALL grep {"pattern":"TODO"}' }];
    const first = await ai.messages.create(params({ messages, tools }));
    expect(first.stop_reason).toBe('tool_use');
    const calls = first.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    expect(calls.map((c) => c.name)).toEqual(['read_file', 'grep']);
    expect(calls[0]?.input).toEqual({ path: 'notes/a.txt' });
    expect(calls.every((c) => /^toolu_[0-9a-f]+$/.test(c.id))).toBe(true);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);

    // The answers in the other order, one as text blocks: the model names each result by the call it answers.
    messages.push({ role: 'assistant', content: first.content as ContentBlockParam[] });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: calls[1]?.id ?? '', content: '3 matches' },
        { type: 'tool_result', tool_use_id: calls[0]?.id ?? '', content: [{ type: 'text', text: 'file body' }] },
      ],
    });
    const second = await ai.messages.create(params({ messages, tools }));
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]?.type === 'text' && second.content[0].text).toMatch(/Result: 2 tool result\(s\) from grep, read_file/);

    // The same call streamed: input_json_delta fragments the SDK joins back into the input.
    const args = { path: 'a/rather/long/path/to/some/file.txt', lines: [1, 200], note: 'streamed in fragments' };
    const streamed = ai.messages.stream(params({ messages: [{ role: 'user', content: `CALL read_file ${JSON.stringify(args)}` }], tools }));
    let fragments = 0;
    streamed.on('inputJson', () => fragments++);
    const final = await streamed.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content[0]?.type === 'tool_use' && final.content[0].input).toEqual(args);
    expect(fragments).toBeGreaterThan(2);
  });

  it('RECALL finds a marker anywhere in the request it was sent (system, history, tool results), and only there', async () => {
    const { ai } = await serve();
    const messages: MessageParam[] = [
      { role: 'user', content: 'Remember the ticket MARK-77.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'about MARK-5', signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'it says MARK-903' }] },
          { type: 'text', text: 'RECALL MARK-\\d+' },
        ],
      },
    ];
    const res = await ai.messages.create(params({ system: 'The deploy code is MARK-4821.', messages }));
    expect(res.content).toEqual([{ type: 'text', text: 'RECALL MARK-\\d+: MARK-4821, MARK-77, MARK-5, MARK-903' }]);
    const without = await ai.messages.create(params({ messages: [{ role: 'user', content: 'RECALL MARK-\\d+' }] }));
    expect(without.content).toEqual([{ type: 'text', text: 'RECALL MARK-\\d+: no match' }]);
  });
});

describe('local server: Anthropic prompt caching', () => {
  it('caches nothing without a breakpoint', async () => {
    const { ai, server } = await serve();
    for (const directive of ['REPLY a', 'REPLY b']) {
      const request = params({ system: system(3000), messages: [{ role: 'user', content: directive }] });
      const { usage } = await ai.messages.create(request);
      expect(usage.cache_read_input_tokens).toBe(0);
      expect(usage.cache_creation_input_tokens).toBe(0);
      expect(usage.input_tokens).toBeGreaterThan(3000);
      await expectWholePrompt(ai, request, usage);
    }
    expect(server.metrics().explicitCaches).toBe(0);
  });

  it('a breakpoint on the last shared block: the first request writes its prefix (5m), the next one reads it', async () => {
    const { ai, server } = await serve();
    const first = params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY a' }] });
    const written = (await ai.messages.create(first)).usage;
    expect(written.cache_read_input_tokens).toBe(0);
    const created = written.cache_creation_input_tokens ?? 0;
    expect(created).toBeGreaterThan(2000);
    expect(written.cache_creation).toEqual({ ephemeral_5m_input_tokens: created, ephemeral_1h_input_tokens: 0 });
    // input_tokens: only what follows the breakpoint.
    expect(written.input_tokens).toBeGreaterThan(0);
    expect(written.input_tokens).toBeLessThan(50);
    await expectWholePrompt(ai, first, written);
    expect(server.metrics().explicitCaches).toBe(1);

    const second = params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY b' }] });
    const read = (await ai.messages.create(second)).usage;
    expect(read.cache_read_input_tokens).toBe(created);
    expect(read.cache_creation_input_tokens).toBe(0);
    expect(read.input_tokens).toBe(written.input_tokens);
    expect(server.metrics().cachedTokens).toBe(created);

    // The same prefix without its marker is the same prefix (a breakpoint is not content): a later breakpoint's lookback finds it.
    const unmarked = params({
      system: system(2000),
      messages: [{ role: 'user', content: [text('Background.'), text('REPLY c', 'ephemeral')] }],
    });
    const found = (await ai.messages.create(unmarked)).usage;
    expect(found.cache_read_input_tokens).toBe(created);
    expect(found.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(found.input_tokens).toBe(0);
  });

  it('a 1-hour breakpoint writes 1-hour tokens; mixed TTLs split the write at the last 1-hour breakpoint', async () => {
    const { ai } = await serve();
    const hour = (await ai.messages.create(params({ system: system(2000, '1h'), messages: [{ role: 'user', content: 'REPLY a' }] }))).usage;
    const created = hour.cache_creation_input_tokens ?? 0;
    expect(created).toBeGreaterThan(2000);
    expect(hour.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: created });

    // A (read) = 0 here, B = the 1-hour system block, C = the 5-minute block after it: B − A at 1h, C − B at 5m.
    const mixed = params({
      system: system(1500, '1h'),
      messages: [{ role: 'user', content: [text(padding(1500, 'doc'), '5m'), text('REPLY b')] }],
    });
    const split = (await ai.messages.create(mixed)).usage;
    const oneHour = split.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const fiveMinutes = split.cache_creation?.ephemeral_5m_input_tokens ?? 0;
    expect(oneHour).toBeGreaterThan(1500);
    expect(fiveMinutes).toBeGreaterThan(1500);
    expect(split.cache_creation_input_tokens).toBe(oneHour + fiveMinutes);
    await expectWholePrompt(ai, mixed, split);
    const again = (await ai.messages.create(mixed)).usage;
    expect(again.cache_read_input_tokens).toBe(oneHour + fiveMinutes);

    // "Cache entries with longer TTL must appear before shorter TTLs."
    const reversed = await apiError(
      ai.messages.create(
        params({ system: system(1500, '5m'), messages: [{ role: 'user', content: [text('doc', '1h'), text('REPLY c')] }] }),
      ),
    );
    expect(reversed).toBeInstanceOf(Anthropic.BadRequestError);
    expect(reversed.apiMessage).toMatch(/^messages\.0\.content\.0\.cache_control\.ttl: /);
    const automatic = await apiError(
      ai.messages.create(
        params({
          cache_control: { type: 'ephemeral', ttl: '1h' },
          system: system(1500, '5m'),
          messages: [{ role: 'user', content: 'REPLY d' }],
        }),
      ),
    );
    expect(automatic.apiMessage).toMatch(/^cache_control\.ttl: /);
  });

  it('a request sent while the first is still being processed misses: two sent at once both write, a later one reads', async () => {
    const { ai } = await serve({
      latency: { overheadMs: 300, prefillTokensPerSecond: Infinity, cachedTokensPerSecond: Infinity, decodeTokensPerSecond: Infinity },
    });
    const ask = (directive: string) =>
      ai.messages.create(params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: directive }] }));
    const [a, b] = await Promise.all([ask('REPLY a'), ask('REPLY b')]);
    for (const { usage } of [a, b]) {
      expect(usage.cache_read_input_tokens).toBe(0);
      expect(usage.cache_creation_input_tokens).toBeGreaterThan(2000);
    }
    const c = await ask('REPLY c');
    expect(c.usage.cache_read_input_tokens).toBe(a.usage.cache_creation_input_tokens);
  });

  it('the lookback checks 20 positions from a breakpoint, itself included; a run of tool_use or tool_result blocks is one position', async () => {
    const { ai } = await serve();
    const written = (
      await ai.messages.create(params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY a' }] }))
    ).usage;
    const systemTokens = written.cache_creation_input_tokens ?? 0;
    // The system block is position 0; notes 1..n follow it, the breakpoint on note n.
    const notes = (n: number): MessageParam[] => [
      {
        role: 'user',
        content: [...Array.from({ length: n }, (_, i) => text(`note ${i + 1}`, i === n - 1 ? 'ephemeral' : undefined)), text('REPLY b')],
      },
    ];
    const far = (await ai.messages.create(params({ system: system(2000), messages: notes(20) }))).usage;
    expect(far.cache_read_input_tokens).toBe(0);
    expect(far.cache_creation_input_tokens).toBeGreaterThan(systemTokens);
    const near = (await ai.messages.create(params({ system: system(2000), messages: notes(19) }))).usage;
    expect(near.cache_read_input_tokens).toBe(systemTokens);

    // 60 blocks after the system prompt, but four positions: the user's text, 30 tool_use, 30 tool_result.
    const ids = Array.from({ length: 30 }, (_, i) => `toolu_${i}`);
    const toolTurn: MessageParam[] = [
      { role: 'user', content: 'Look at every file.' },
      { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: id } })) },
      {
        role: 'user',
        content: ids.map((id, i) => ({
          type: 'tool_result' as const,
          tool_use_id: id,
          content: `body ${i}`,
          ...(i === ids.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
        })),
      },
    ];
    const runs = (await ai.messages.create(params({ system: system(2000), messages: toolTurn }))).usage;
    expect(runs.cache_read_input_tokens).toBe(systemTokens);
  });

  it('a breakpoint that moves to the new last block reads the previous turn, and so does automatic caching (top-level cache_control)', async () => {
    const { ai } = await serve();
    const turn1: MessageParam[] = [{ role: 'user', content: [text(`Read this. ${padding(1500, 'doc')}`, 'ephemeral')] }];
    const one = await ai.messages.create(params({ messages: turn1 }));
    const turn2: MessageParam[] = [
      { role: 'user', content: [text(`Read this. ${padding(1500, 'doc')}`)] },
      { role: 'assistant', content: one.content as ContentBlockParam[] },
      { role: 'user', content: [text('REPLY second', 'ephemeral')] },
    ];
    const two = (await ai.messages.create(params({ messages: turn2 }))).usage;
    expect(two.cache_read_input_tokens).toBe(one.usage.cache_creation_input_tokens);
    expect(two.cache_creation_input_tokens).toBeGreaterThan(0);

    const auto = (messages: MessageParam[]) =>
      ai.messages.create(params({ cache_control: { type: 'ephemeral' }, system: system(1500), messages }));
    const first = await auto([{ role: 'user', content: 'REPLY first' }]);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1500);
    expect(first.usage.input_tokens).toBe(0);
    const next = await auto([
      { role: 'user', content: 'REPLY first' },
      { role: 'assistant', content: first.content as ContentBlockParam[] },
      { role: 'user', content: 'REPLY next' },
    ]);
    expect(next.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });

  it('a changed tool_choice invalidates the messages, not the tools and system before them', async () => {
    const { ai } = await serve();
    const tools = [{ name: 'read_file', input_schema: { type: 'object' as const } }];
    // Two choices of the same length, so that the prompts are as long as each other.
    const ask = (choice: 'auto' | 'none', directive: string) =>
      ai.messages.create(
        params({
          tools,
          tool_choice: { type: choice },
          system: system(1500, 'ephemeral'),
          messages: [{ role: 'user', content: [text(padding(1500, 'doc'), 'ephemeral'), text(directive)] }],
        }),
      );
    const first = (await ask('auto', 'REPLY a')).usage;
    const whole = first.cache_creation_input_tokens ?? 0;
    expect((await ask('auto', 'REPLY b')).usage.cache_read_input_tokens).toBe(whole);
    const changed = (await ask('none', 'REPLY c')).usage;
    expect(changed.cache_read_input_tokens).toBeGreaterThan(1500);
    expect(changed.cache_read_input_tokens).toBeLessThan(whole);
    expect((changed.cache_read_input_tokens ?? 0) + (changed.cache_creation_input_tokens ?? 0)).toBe(whole);
  });

  it('refuses a fifth breakpoint with the API’s 400', async () => {
    const { ai } = await serve();
    const content = ['a', 'b', 'c', 'd', 'REPLY e'].map((t) => text(t, 'ephemeral'));
    const err = await apiError(ai.messages.create(params({ messages: [{ role: 'user', content }] })));
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.apiMessage).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    // Automatic caching takes one of the four slots.
    const four = ['a', 'b', 'c', 'd'].map((t) => text(t, 'ephemeral'));
    const auto = await apiError(
      ai.messages.create(
        params({ cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: [...four, text('REPLY e')] }] }),
      ),
    );
    expect(auto.apiMessage).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('writes nothing below the model’s minimum cacheable prompt (Haiku 4.5: 4,096 tokens; Opus 5: 512), nor below a configured one', async () => {
    const { ai } = await serve();
    const ask = (model: string, directive: string) =>
      ai.messages.create(params({ model, system: system(2500, 'ephemeral'), messages: [{ role: 'user', content: directive }] }));
    for (const directive of ['REPLY a', 'REPLY b']) {
      const { usage } = await ask('claude-haiku-4-5', directive);
      expect(usage.cache_creation_input_tokens).toBe(0);
      expect(usage.cache_read_input_tokens).toBe(0);
      expect(usage.input_tokens).toBeGreaterThan(2500);
    }
    expect((await ask(MODEL, 'REPLY c')).usage.cache_creation_input_tokens).toBeGreaterThan(2500);

    // Claude Opus 5 caches from 512 tokens, Sonnet 4.5 from 1,024.
    const short = (model: string) =>
      ai.messages.create(params({ model, system: system(700, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY e' }] }));
    expect((await short('claude-opus-5')).usage.cache_creation_input_tokens).toBeGreaterThan(700);
    expect((await short(MODEL)).usage.cache_creation_input_tokens).toBe(0);

    const configured = anthropic(await start({ anthropicCache: { minTokens: 3000 } }));
    const small = await configured.messages.create(
      params({ system: system(2500, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY d' }] }),
    );
    expect(small.usage.cache_creation_input_tokens).toBe(0);
  });

  it('max_tokens 0 pre-warms the cache: no output, stop_reason max_tokens, the prefix written', async () => {
    const { ai } = await serve();
    const warm = await ai.messages.create(
      params({ max_tokens: 0, system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'warmup' }] }),
    );
    expect(warm.content).toEqual([]);
    expect(warm.stop_reason).toBe('max_tokens');
    expect(warm.usage.output_tokens).toBe(0);
    const created = warm.usage.cache_creation_input_tokens ?? 0;
    expect(created).toBeGreaterThan(2000);
    const real = await ai.messages.create(
      params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY real' }] }),
    );
    expect(real.usage.cache_read_input_tokens).toBe(created);
  });

  it('entries live 5 minutes (or 1 hour) from their last use', () => {
    let clock = 0;
    const cache = createAnthropicCache({}, () => clock);
    const prepare = (ttl: '5m' | '1h') => {
      const request = validateMessagesRequest({
        model: MODEL,
        max_tokens: 8,
        system: system(2000, ttl),
        messages: [{ role: 'user', content: 'x' }],
      });
      const rendering = renderMessages(request);
      return { rendering, points: breakpointsOf(rendering, undefined) };
    };
    const five = prepare('5m');
    cache.responseBegun(cache.lookup(five.rendering, five.points));
    clock = 299_000;
    const hit = cache.lookup(five.rendering, five.points);
    expect(hit.read).toBeGreaterThan(2000);
    clock = 299_000 + 299_000; // refreshed on the hit
    expect(cache.lookup(five.rendering, five.points).read).toBe(hit.read);
    clock += 300_001;
    expect(cache.lookup(five.rendering, five.points).read).toBe(0);

    const hour = prepare('1h');
    const written = cache.lookup(hour.rendering, hour.points);
    cache.responseBegun(written);
    clock += 3_000_000;
    expect(cache.lookup(hour.rendering, hour.points).read).toBe(written.created1h);
    clock += 3_600_001;
    expect(cache.lookup(hour.rendering, hour.points).read).toBe(0);
  });
});

describe('local server: Anthropic errors, keys and metrics', () => {
  it('requires anthropic-version, answering in Anthropic’s error JSON with its request-id', async () => {
    const { server } = await serve();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'REPLY x' }] }),
    });
    expect(res.status).toBe(400);
    const requestId = res.headers.get('request-id');
    expect(requestId).toMatch(/^req_/);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
      request_id: requestId,
    });
  });

  it('400 names the field at fault; an unknown path is a 404 not_found_error; a bad body a 400, an oversized one a 413', async () => {
    const { ai, server } = await serve({ maxBodyBytes: 8192 });
    const noMax = await apiError(ai.messages.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] } as never));
    expect(noMax).toBeInstanceOf(Anthropic.BadRequestError);
    expect(noMax.apiMessage).toBe('max_tokens: Field required');
    const badRole = await apiError(ai.messages.create(params({ messages: [{ role: 'robot', content: 'x' } as never] })));
    expect(badRole.apiMessage).toBe("messages.0.role: Input should be 'user', 'assistant' or 'system'");
    const noText = await apiError(ai.messages.create(params({ messages: [{ role: 'user', content: [{ type: 'text' } as never] }] })));
    expect(noText.apiMessage).toBe('messages.0.content.0.text: Field required');
    const unanswered = await apiError(
      ai.messages.create(
        params({
          messages: [
            { role: 'user', content: 'x' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'f', input: {} }] },
            { role: 'user', content: 'y' },
          ],
        }),
      ),
    );
    expect(unanswered.apiMessage).toMatch(
      /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_9\./,
    );
    const orphan = await apiError(
      ai.messages.create(
        params({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_7', content: 'z' }] }] }),
      ),
    );
    expect(orphan.apiMessage).toMatch(/^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_7\./);
    const thinking = await apiError(
      ai.messages.create(
        params({
          messages: [
            { role: 'user', content: 'x' },
            {
              role: 'assistant',
              content: [{ type: 'thinking', thinking: 't', signature: 's', cache_control: { type: 'ephemeral' } } as never],
            },
          ],
        }),
      ),
    );
    expect(thinking.apiMessage).toMatch(/^messages\.1\.content\.0\.cache_control: /);

    const post = (path: string, body: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body,
      });
    const unknown = await post('/v1/messages/batches', '{}');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
    const bad = await post('/v1/messages', '{"model": "x", "messages": [');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const big = await post(
      '/v1/messages',
      JSON.stringify({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: padding(4000) }] }),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { type: string } }).error.type).toBe('request_too_large');
  });

  it('with a configured key: 401 authentication_error without it or with another one; the key as x-api-key or the SDK’s Bearer', async () => {
    const server = await start({ requireApiKey: 'sk-ant-right' });
    const wrong = await apiError(
      anthropic(server, 'sk-ant-wrong').messages.create(params({ messages: [{ role: 'user', content: 'REPLY x' }] })),
    );
    expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(wrong.type).toBe('authentication_error');
    expect(wrong.apiMessage).toBe('invalid x-api-key');
    const body = JSON.stringify({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'REPLY x' }] });
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
    const missing = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers, body });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('x-api-key header is required');
    const keyed = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { ...headers, 'x-api-key': 'sk-ant-right' }, body });
    expect(((await keyed.json()) as { content: unknown }).content).toEqual([{ type: 'text', text: 'x' }]);
    const right = await anthropic(server, 'sk-ant-right').messages.create(params({ messages: [{ role: 'user', content: 'REPLY x' }] }));
    expect(right.content).toEqual([{ type: 'text', text: 'x' }]);
  });

  it('429 rate_limit_error with retry-after (scripted FAIL, then the same request succeeds; seeded faults), 529 overloaded_error, 500 api_error', async () => {
    const { ai } = await serve({ faults: { retryAfterSeconds: 3 } });
    const request = params({ messages: [{ role: 'user', content: 'FAIL 429 x2\nREPLY finally' }] });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const err = await apiError(ai.messages.create(request));
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(err.status).toBe(429);
      expect(err.type).toBe('rate_limit_error');
      expect(err.headers?.get('retry-after')).toBe('3');
      expect(err.requestID).toMatch(/^req_/);
      expect(err.apiMessage).toBe(`Scripted failure ${attempt} of 2 for this request.`);
    }
    expect((await ai.messages.create(request)).content).toEqual([{ type: 'text', text: 'finally' }]);

    const overloaded = await apiError(ai.messages.create(params({ messages: [{ role: 'user', content: 'FAIL 529\nREPLY later' }] })));
    expect(overloaded).toBeInstanceOf(Anthropic.OverloadedError);
    expect(overloaded.status).toBe(529);
    expect(overloaded.type).toBe('overloaded_error');

    const seeded = await serve({ faults: 'retryAfter=2,429=1' });
    const limited = await apiError(seeded.ai.messages.create(params({ messages: [{ role: 'user', content: 'REPLY x' }] })));
    expect(limited.status).toBe(429);
    expect(limited.headers?.get('retry-after')).toBe('2');
    expect(seeded.server.metrics().faults['429']).toBe(1);
    const failing = await serve({ faults: '500=1' });
    const internal = await apiError(failing.ai.messages.create(params({ messages: [{ role: 'user', content: 'REPLY x' }] })));
    expect(internal).toBeInstanceOf(Anthropic.InternalServerError);
    expect(internal.type).toBe('api_error');
  });

  it('counts messages requests, tokens and cache reads in the metrics; count_tokens counts what usage adds up to', async () => {
    const { ai, server } = await serve();
    const request = params({ system: system(2000, 'ephemeral'), messages: [{ role: 'user', content: 'REPLY a' }] });
    const first = await ai.messages.create(request);
    const second = await ai.messages.create(request);
    const { max_tokens: _, ...countable } = request;
    const counted = await ai.messages.countTokens(countable);
    const metrics = server.metrics();
    expect(metrics.requests.find((r) => r.route === 'messages' && r.status === 200)?.count).toBe(2);
    expect(metrics.requests.find((r) => r.route === 'messages.count_tokens' && r.status === 200)?.count).toBe(1);
    expect(metrics.promptTokens).toBe(2 * counted.input_tokens);
    expect(metrics.cachedTokens).toBe(second.usage.cache_read_input_tokens);
    expect(metrics.candidatesTokens).toBe(first.usage.output_tokens + second.usage.output_tokens);
  });
});
