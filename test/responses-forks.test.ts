import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { z } from 'zod';
import { ForkEngine, defineTool, type ForkResult, type OpenAIResponsesSession } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { CHILD_OPENING } from '../src/wording/child-message.js';
import { createProvider } from '../src/model/providers/index.js';

/*
 * Forks of a Responses API session (`"format": "openai-responses"`), re-sending the conversation:
 * through the official openai SDK's responses.create, against forkpool serve's POST /v1/responses in
 * another process (OpenAI's cache rules), and against an in-process server that keeps the raw bodies.
 */

const LONG = Array.from({ length: 400 }, (_, i) => `Rule ${i}: keep the answer short and cite the file you read.`).join('\n');

function session(input: OpenAIResponsesSession['input']): OpenAIResponsesSession {
  return {
    format: 'openai-responses',
    model: 'gpt-4.1-mini',
    instructions: `You are the main agent.\n${LONG}`,
    input,
    tools: [
      {
        type: 'function',
        name: 'lookup',
        description: 'Looks a key up.',
        parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        strict: false,
      },
      {
        type: 'function',
        name: 'agent',
        description: 'Starts a sub-agent.',
        parameters: { type: 'object', properties: { prompt: { type: 'string' } } },
        strict: false,
      },
    ],
    temperature: 0,
  } as OpenAIResponsesSession;
}

const FINISHED = [
  { role: 'user', content: 'Please remember MARKER-5A7C and look the readme up.' },
  { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"key":"readme"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'README: forkpool forks agents.' },
  { role: 'assistant', content: 'Noted MARKER-5A7C; the README says forkpool forks agents.' },
] as Exclude<OpenAIResponsesSession['input'], string>;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}: 42`,
});

let serve: ServeProcess;
beforeAll(async () => {
  serve = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await serve?.stop();
});

describe('forks of a Responses session', () => {
  it('answer from the parent’s items, call a tool through function_call items, and are served the shared prefix from the cache', async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: serve.url }, threads: 2, tools: [lookup] });
    try {
      const run = engine.fanOut(engine.freeze(session(FINISHED)), [
        { id: 'recall', directive: 'RECALL MARKER-[0-9A-F]{4}' },
        { id: 'tool', directive: 'CALL lookup {"key":"answer"}\nRECALL value of answer: \\d+' },
        ...[1, 2, 3].map((n) => ({ id: `reply-${n}`, directive: `REPLY fork ${n} done` })),
      ]);
      const results = await run.results();
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<string, ForkResult>;
      for (const r of results) expect(r.status, r.id).toBe('completed');
      expect(byId.recall?.text).toContain('MARKER-5A7C');
      expect(byId.tool?.text).toContain('value of answer: 42');
      expect(byId.tool?.turns).toBe(2);
      expect(byId['reply-3']?.text).toBe('fork 3 done');
      const report = run.report();
      expect(report.efficiency).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
    }
  });

  it('sends the parent’s bytes up to its last item, the run’s prompt_cache_key, and seeds a mid-turn parent with function_call_output placeholders', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    // OpenAI's own provider (its cache key), at the simulator.
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key' },
      threads: 2,
      warmup: 'none',
    });
    try {
      // The parent called the agent tool twice and waits: each fork is seeded mid-turn.
      const midTurn = [
        ...FINISHED,
        { role: 'user', content: 'Look at the parser and the lexer in parallel.' },
        { type: 'function_call', call_id: 'call_a', name: 'agent', arguments: '{"prompt":"PARSER"}' },
        { type: 'function_call', call_id: 'call_b', name: 'agent', arguments: '{"prompt":"LEXER"}' },
      ] as OpenAIResponsesSession['input'];
      const run = engine.fanOut(
        engine.freeze(session(midTurn)),
        [1, 2].map((n) => ({ id: `f${n}`, directive: `REPLY fork ${n}` })),
      );
      for (const r of await run.results()) expect(r.status).toBe('completed');
      const bodies = server.requests
        .filter((r) => r.route === 'responses')
        .map((r) => JSON.parse(r.body) as { input: Record<string, unknown>[]; prompt_cache_key?: string; instructions: string });
      expect(bodies).toHaveLength(2);
      for (const body of bodies) {
        // The parent's items first, as they were (the agent calls' arguments emptied: they hold a sibling's directive).
        expect(body.input.slice(0, 5)).toEqual(midTurn.slice(0, 5));
        expect(body.input[5]).toMatchObject({ type: 'function_call', call_id: 'call_a', arguments: '{}' });
        expect(body.input[7]).toMatchObject({ type: 'function_call_output', call_id: 'call_a' });
        expect(body.input[8]).toMatchObject({ type: 'function_call_output', call_id: 'call_b' });
        expect(typeof body.prompt_cache_key).toBe('string');
        expect(body.instructions).toContain('Rule 399');
      }
      // Both forks route to one cache.
      expect(new Set(bodies.map((b) => b.prompt_cache_key)).size).toBe(1);
      // The raw bodies agree byte for byte up to the forks' own items.
      const raw = server.requests.filter((r) => r.route === 'responses').map((r) => r.body);
      const cut = (body: string): string => body.slice(0, body.indexOf('"call_a"'));
      expect(cut(raw[0] as string)).toBe(cut(raw[1] as string));
    } finally {
      await engine.close();
      await server.close();
    }
  });
});

describe('forks of a Responses session under mode: generate (an agent that does not stream)', () => {
  it('send stream: false and read each whole response: answers, tool calls and usage', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key', mode: 'generate' },
      threads: 2,
      warmup: 'none',
      tools: [lookup],
    });
    try {
      const run = engine.fanOut(engine.freeze(session(FINISHED)), [
        { id: 'tool', directive: 'CALL lookup {"key":"answer"}\nRECALL value of answer: \\d+' },
        { id: 'reply', directive: 'REPLY fork done' },
      ]);
      const results = await run.results();
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<string, ForkResult>;
      for (const r of results) expect(r.status, r.id).toBe('completed');
      expect(byId.tool?.text).toContain('value of answer: 42');
      expect(byId.tool?.turns).toBe(2);
      expect(byId.reply?.text).toBe('fork done');
      for (const r of results) expect(r.usage.promptTokens, r.id).toBeGreaterThan(0);
      const bodies = server.requests.filter((r) => r.route === 'responses').map((r) => JSON.parse(r.body) as Record<string, unknown>);
      expect(bodies).toHaveLength(3);
      for (const body of bodies) {
        expect(body.stream).toBe(false);
        expect(body.input).toEqual(expect.arrayContaining(FINISHED));
      }
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('a 200 answer that is no response (a server that streams anyway, text that is not JSON) is malformed, naming what arrived', async () => {
    const sse =
      'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}\n\n';
    const answers = [
      { type: 'text/event-stream', body: sse },
      { type: 'application/json', body: 'not json at all' },
      { type: 'application/json', body: '{"id":"resp_1"}' },
    ];
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const answer = answers[n++ % answers.length] as (typeof answers)[number];
        res.writeHead(200, { 'content-type': answer.type });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const provider = createProvider(
        {
          kind: 'openai',
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
          apiKey: 'fp-responses-test-key',
          mode: 'generate',
          retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
        },
        'openai-responses',
      );
      const ask = {
        format: 'openai-responses' as const,
        body: { model: 'gpt-4.1-mini', input: [{ role: 'user' as const, content: 'hi' }] },
      };
      const errors = [];
      for (const _ of answers) {
        const outcome = await provider.generate(ask, { signal: new AbortController().signal });
        errors.push(outcome.ok ? undefined : outcome.error);
      }
      const arrived = 'malformed response: the answer to a request with stream: false is';
      expect(errors).toEqual([
        { kind: 'malformed', message: `${arrived} text/event-stream (${Buffer.byteLength(sse)} bytes), not JSON`, retryable: true },
        { kind: 'malformed', message: `${arrived} application/json (15 bytes), not JSON`, retryable: true },
        {
          kind: 'malformed',
          message: `${arrived} application/json (15 bytes): JSON, but not a response (no output list)`,
          retryable: true,
        },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a mode it does not know, and mode on a provider without Responses, naming the option', async () => {
    await expect(ForkEngine.create({ provider: { kind: 'openai', apiKey: 'k', mode: 'fast' as 'stream' }, threads: 1 })).rejects.toThrow(
      "options.provider.mode must be 'stream' or 'generate' (how the parent's agent calls the Responses API), got \"fast\"",
    );
    await expect(ForkEngine.create({ provider: { kind: 'deepseek', apiKey: 'k', mode: 'generate' }, threads: 1 })).rejects.toThrow(
      'options.provider.mode is not an option',
    );
  });
});

describe('forks that name the parent’s stored response (cache: explicit, storedResponse)', () => {
  it('send their own items with the instructions, tools and settings, branch from one stored response, and are served its conversation from the cache', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key' },
      threads: 2,
      cache: 'explicit',
      warmup: 'none',
    });
    try {
      // The parent's last request, stored by the API (as an agent on OpenAI's defaults is).
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'fp-responses-test-key' });
      const asked = session([...FINISHED, { role: 'user', content: 'REPLY Parent noted it.' }] as OpenAIResponsesSession['input']);
      const { format: _format, ...body } = asked;
      const parent = await client.responses.create({ ...(body as OpenAI.Responses.ResponseCreateParamsNonStreaming), store: true });
      expect(parent.output_text).toBe('Parent noted it.');
      // The session is what the parent has: its input, then the response's output.
      const whole = session([...(asked.input as object[]), ...parent.output] as OpenAIResponsesSession['input']);
      const before = server.requests.length;
      const run = engine.fanOut(
        engine.freeze(whole),
        [
          ...[1, 2, 3].map((n) => ({ id: `stored-${n}`, directive: n === 1 ? 'RECALL MARKER-[0-9A-F]{4}' : `REPLY fork ${n} done` })),
          // A window of its own: the stored response holds more than it may see, so it re-sends its conversation.
          { id: 'windowed', directive: 'REPLY windowed done', forkTurns: 1 },
        ],
        { storedResponse: parent.id },
      );
      const results = await run.results();
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<string, ForkResult>;
      for (const r of results) expect(r.status, r.id).toBe('completed');
      // The stored conversation reached the model: the first fork recalls what only the parent's items hold.
      expect(byId['stored-1']?.text).toContain('MARKER-5A7C');
      const sent = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses')
        .map((r) => JSON.parse(r.body) as Record<string, unknown> & { input: unknown[] });
      const named = sent.filter((b) => b.previous_response_id === parent.id);
      expect(named).toHaveLength(3);
      // The parent sent no prompt_cache_key, so neither does any fork: a key of forkpool's own would route them away from its cache.
      for (const b of sent) expect(b.prompt_cache_key).toBeUndefined();
      for (const b of named) {
        // Only the fork's own items: the child message.
        expect(b.input).toHaveLength(1);
        expect(JSON.stringify(b.input)).toContain('<fork-boilerplate>');
        // What a named response does not carry over, sent again.
        expect(b.instructions).toBe(whole.instructions);
        expect(b.tools).toEqual(whole.tools);
        expect(b.temperature).toBe(0);
      }
      for (const id of ['stored-1', 'stored-2', 'stored-3']) {
        expect(byId[id]?.sent).toEqual({ storedResponse: parent.id, items: 1 });
        const usage = byId[id]?.usage;
        expect((usage?.cachedTokens ?? 0) / (usage?.promptTokens ?? 1)).toBeGreaterThanOrEqual(0.9);
      }
      // The windowed fork re-sent its window instead, and says nothing of a stored response.
      expect(byId.windowed?.sent).toBeUndefined();
      const windowed = sent.find((b) => JSON.stringify(b.input).includes('REPLY windowed done'));
      expect(windowed?.previous_response_id).toBeUndefined();
      expect(run.report().cache.note).toContain(parent.id);
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('the parent’s tool outputs after its stored response are the fork’s to send: the response holds its input and output only', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key' },
      threads: 1,
      cache: 'explicit',
      tools: [lookup],
    });
    try {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'fp-responses-test-key' });
      const asked = session([...FINISHED, { role: 'user', content: 'CALL lookup {"key":"lexer"}' }] as OpenAIResponsesSession['input']);
      const { format: _format, ...body } = asked;
      const parent = await client.responses.create({ ...(body as OpenAI.Responses.ResponseCreateParamsNonStreaming), store: true });
      const call = parent.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ name: 'lookup' });
      // The parent ran its tool: the output is in its conversation, not in the stored response.
      const output = { type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'LEXER-OUTPUT-7' };
      const whole = session([...(asked.input as object[]), ...parent.output, output] as OpenAIResponsesSession['input']);
      const before = server.requests.length;
      const [result] = await engine
        .fanOut(engine.freeze(whole), [{ id: 'one', directive: 'RECALL LEXER-OUTPUT-\\d' }], {
          storedResponse: parent.id,
          promptCacheKey: 'parent-key-1',
        })
        .results();
      expect(result?.status).toBe('completed');
      expect(result?.text).toContain('LEXER-OUTPUT-7');
      expect(result?.sent).toEqual({ storedResponse: parent.id, items: 2 });
      const [sent] = server.requests.slice(before).map((r) => JSON.parse(r.body) as { previous_response_id?: string; input: unknown[] });
      expect(sent?.previous_response_id).toBe(parent.id);
      // The parent's own key, as given.
      expect((sent as { prompt_cache_key?: string } | undefined)?.prompt_cache_key).toBe('parent-key-1');
      expect(sent?.input[0]).toEqual(output);
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('without a stored response named, cache: explicit re-sends the conversation and the report says why', async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: serve.url }, threads: 1, cache: 'explicit' });
    try {
      const run = engine.fanOut(engine.freeze(session(FINISHED)), [{ id: 'one', directive: 'REPLY done' }]);
      const [result] = await run.results();
      expect(result?.status).toBe('completed');
      expect(result?.sent).toBeUndefined();
      expect(run.report().cache.note).toMatch(/no stored response of the parent's was named/);
    } finally {
      await engine.close();
    }
  });
});

describe('forks of a GPT-5.6 Responses session carry OpenAI’s breakpoints and hit', () => {
  const NEW_MODEL = 'gpt-5.6-sol';
  type Body = { input: (Record<string, unknown> & { content?: unknown; output?: unknown })[] };

  it('at the end of what the forks share: the child message’s opening after the model’s message, the last placeholder output mid-turn; siblings read the entry the first wrote', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key' },
      threads: 2,
    });
    try {
      const finished = { ...session(FINISHED), model: NEW_MODEL };
      const results = await engine
        .fanOut(
          engine.freeze(finished),
          [1, 2, 3, 4].map((n) => ({ id: `f${n}`, directive: `Report part ${n}.\nREPLY done` })),
        )
        .results();
      const calls = results.map((r) => r.calls[0]);
      for (const call of calls.slice(1)) expect(call?.cachedTokens).toBeGreaterThan(1024);
      expect(new Set(calls.slice(1).map((c) => c?.cachedTokens)).size).toBe(1);
      expect(calls[0]?.cacheWriteTokens).toBeGreaterThan(1024);
      const bodies = server.requests.filter((r) => r.route === 'responses').map((r) => JSON.parse(r.body) as Body);
      for (const body of bodies) {
        // The parent's items as they were; the child message split at its opening, which carries the marker.
        expect(body.input.slice(0, FINISHED.length)).toEqual(FINISHED);
        const child = body.input[FINISHED.length] as { content: { type: string; text: string; prompt_cache_breakpoint?: unknown }[] };
        expect(child.content[0]).toEqual({ type: 'input_text', text: CHILD_OPENING, prompt_cache_breakpoint: { mode: 'explicit' } });
        expect(child.content[1]?.prompt_cache_breakpoint).toBeUndefined();
      }

      // Mid-turn: the last placeholder output closes what the forks share; it carries the marker, its text unchanged.
      const midTurn = {
        ...session([
          ...FINISHED,
          { role: 'user', content: 'Two at once.' },
          { type: 'function_call', call_id: 'call_x', name: 'agent', arguments: '{"prompt":"A"}' },
        ] as OpenAIResponsesSession['input']),
        model: NEW_MODEL,
      };
      const before = server.requests.length;
      for (const r of await engine
        .fanOut(engine.freeze(midTurn), [
          { id: 'm1', directive: 'REPLY one' },
          { id: 'm2', directive: 'REPLY two' },
        ])
        .results())
        expect(r.status).toBe('completed');
      for (const { body } of server.requests.slice(before)) {
        const output = (JSON.parse(body) as Body).input.find((item) => item.type === 'function_call_output' && item.call_id === 'call_x');
        expect(output?.output).toEqual([{ type: 'input_text', text: expect.any(String), prompt_cache_breakpoint: { mode: 'explicit' } }]);
      }
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('with the cache off, no breakpoint is sent and nothing is cached', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-responses-test-key' },
      threads: 1,
      cache: 'off',
    });
    try {
      const results = await engine
        .fanOut(engine.freeze({ ...session(FINISHED), model: NEW_MODEL }), [
          { id: 'a', directive: 'REPLY a' },
          { id: 'b', directive: 'REPLY b' },
        ])
        .results();
      for (const r of results) expect(r.usage.cachedTokens).toBe(0);
      for (const { body } of server.requests) expect(body).not.toContain('prompt_cache_breakpoint');
    } finally {
      await engine.close();
      await server.close();
    }
  });
});
