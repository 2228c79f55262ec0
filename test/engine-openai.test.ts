// Internal: FORK_PLACEHOLDER_TEXT: the fork's fixed wording (src/wording/constants.ts) has no entry point; everything else comes through forkpool and forkpool/local-server.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type OpenAIChatSession, type ParentEvent } from '../src/index.js';
import { startLocalServer, type LocalServer, type UsagePreset } from '../src/local-server/index.js';
import { FORK_PLACEHOLDER_TEXT } from '../src/fork/index.js';
import { openAIChatSession, parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Forks of sessions in OpenAI Chat Completions' shape, end to end: the engine's workers call the
 * local server through the real openai SDK.
 */

type ChatBody = { messages: Record<string, unknown>[]; prompt_cache_key?: string; [key: string]: unknown };

const log: ToolLog = { calls: [] };
const tools = testTools(log);
let server: LocalServer;
let engine: ForkEngine;

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true, usage: 'openai' });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, tools });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

function chatBodies(from: LocalServer, start = 0): { raw: string; body: ChatBody }[] {
  return from.requests
    .slice(start)
    .filter((r) => r.route === 'chat.completions')
    .map((r) => ({ raw: r.body, body: JSON.parse(r.body) as ChatBody }));
}

describe('forks of an OpenAI-shaped session', () => {
  it('8 forks recall a marker that only the parent history holds', async () => {
    const prefix = engine.freeze(openAIChatSession(tools, { marker: 'MARKER-5151' }));
    const tasks = Array.from({ length: 8 }, (_, i) => ({ id: `m${i}`, directive: 'Find the marker.\nRECALL MARKER-\\d{4}' }));
    const results = await engine.fanOut(prefix, tasks).results();
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('completed'));
    for (const r of results) expect(r.text).toContain('MARKER-5151');
  });

  it("a fork's request begins with the bytes the parent's own openai SDK sent", async () => {
    const session = openAIChatSession(tools, { marker: 'MARKER-6262' });
    const { format: _format, ...parentBody } = session;
    const client = new OpenAI({ apiKey: 'forkpool-local', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const start = server.requests.length;
    await client.chat.completions.create({ ...(parentBody as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) });
    const [parentRequest] = chatBodies(server, start);
    const forkStart = server.requests.length;
    await engine.fanOut(engine.freeze(session), [{ id: 'b', directive: 'REPLY done' }]).results();
    const [forkRequest] = chatBodies(server, forkStart);
    if (!parentRequest || !forkRequest) throw new Error('both requests were captured');
    // Everything up to the end of the parent's last message is the same bytes, in the same order.
    const lastMessage = JSON.stringify(session.messages.at(-1));
    const sharedEnd = parentRequest.raw.indexOf(lastMessage) + lastMessage.length;
    expect(sharedEnd).toBeGreaterThan(lastMessage.length);
    expect(forkRequest.raw.slice(0, sharedEnd)).toBe(parentRequest.raw.slice(0, sharedEnd));
    // The fields after the messages are the parent's too, in its order; only streaming is added.
    expect(Object.keys(forkRequest.body).slice(0, Object.keys(parentRequest.body).length)).toEqual(Object.keys(parentRequest.body));
    expect(forkRequest.body.tools).toEqual(parentRequest.body.tools);
  });

  it('forks a parent in the middle of its turn: placeholder tool messages answer its tool_calls by id', async () => {
    const base = openAIChatSession(tools, { marker: 'MARKER-7373' });
    const session: OpenAIChatSession = {
      ...base,
      messages: [
        ...base.messages,
        { role: 'user', content: 'Fork two researchers and look a key up.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'agent', arguments: '{"description":"d","prompt":"sibling directive SECRET-1","subagent_type":"fork"}' },
            },
            { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"key":"k"}' } },
          ],
        },
      ],
    };
    const start = server.requests.length;
    const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'mid', directive: 'RECALL MARKER-\\d{4}' }]).results();
    expect(result?.status).toBe('completed');
    expect(result?.text).toContain('MARKER-7373');
    const [first] = chatBodies(server, start);
    const messages = first?.body.messages ?? [];
    const at = messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
    const calls = messages[at]?.tool_calls as { id: string; function: { name: string; arguments: string } }[];
    // The sibling's directive is gone from the agent call; the other call keeps its arguments.
    expect(calls.map((c) => c.function.arguments)).toEqual(['{}', '{"key":"k"}']);
    expect(JSON.stringify(messages)).not.toContain('SECRET-1');
    expect(messages.slice(at + 1, at + 3)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: FORK_PLACEHOLDER_TEXT },
      { role: 'tool', tool_call_id: 'call_b', content: expect.stringMatching(/^Result not available/) },
    ]);
    expect(messages[at + 3]).toMatchObject({ role: 'user', content: expect.stringContaining('<fork-boilerplate>') });
    expect(messages.slice(at + 4)).toEqual([
      { role: 'assistant', content: 'Understood. Executing directive now.' },
      { role: 'user', content: 'Begin.' },
    ]);
  });

  it("runs a fork's tool calls on the main thread and answers each with a tool message carrying its id", async () => {
    log.calls.length = 0;
    const start = server.requests.length;
    const [result] = await engine
      .fanOut(engine.freeze(openAIChatSession(tools)), [{ id: 't', directive: 'CALL lookup {"key":"abc"}\nREPLY looked it up' }])
      .results();
    expect(result).toMatchObject({ status: 'completed', text: 'looked it up', toolCalls: 1 });
    expect(log.calls).toEqual([expect.objectContaining({ tool: 'lookup', args: { key: 'abc' }, mainThread: true })]);
    const [, second] = chatBodies(server, start);
    const messages = second?.body.messages ?? [];
    const call = messages.at(-2) as { role: string; tool_calls: { id: string }[] };
    expect(call.role).toBe('assistant');
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: call.tool_calls[0]?.id, content: '{"output":{"value":"value-of-abc"}}' });
  });

  it('structured output works on this shape too (one repair turn)', async () => {
    const [result] = await engine
      .fanOut(engine.freeze(openAIChatSession(tools)), [
        {
          id: 'o',
          directive: 'JSON {"answer":42}',
          outputSchema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
        },
      ])
      .results();
    expect(result).toMatchObject({ status: 'completed', output: { answer: 42 } });
  });

  it('runs the headless parent loop: the agent tool in function form, notifications back as user messages', async () => {
    const events: ParentEvent[] = [];
    const start = server.requests.length;
    const outcome = await engine.runParentAgent(openAIChatSession([], { marker: 'MARKER-8484', words: 10 }), 'FORK RECALL MARKER-\\d{4}', {
      onEvent: (e) => events.push(e),
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.text).toContain('MARKER-8484');
    expect(events.filter((e) => e.type === 'task_notification')).toHaveLength(1);
    const bodies = chatBodies(server, start);
    const parentFirst = bodies[0]?.body as ChatBody & { tools: { type: string; function: { name: string } }[] };
    expect(parentFirst.tools.filter((t) => t.function.name === 'agent')).toHaveLength(1);
    expect(JSON.stringify(bodies.at(-1)?.body.messages)).toContain('<task-notification>');
  });

  it("refuses a provider that does not speak the session's shape, naming both", async () => {
    const chatOnly = await ForkEngine.create({
      provider: { kind: 'openai', apiKey: 'sk-test-not-real', baseUrl: `${server.url}/v1` },
      threads: 1,
    });
    try {
      expect(() => chatOnly.fanOut(chatOnly.freeze(parentSession([], { words: 10 })), [{ id: 'g', directive: 'REPLY x' }])).toThrow(
        "provider 'openai' speaks openai-chat or openai-responses, not gemini",
      );
    } finally {
      await chatOnly.close();
    }
  });
});

describe('OpenAI-compatible presets against the simulator', () => {
  async function withPreset<T>(
    usage: UsagePreset,
    kind: 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible',
    run: (e: ForkEngine, s: LocalServer) => Promise<T>,
  ): Promise<T> {
    // buildDelayMs stays the preset's: DeepSeek's cache takes seconds to build, and the engine must wait for it.
    const presetServer = await startLocalServer({ captureRequests: true, usage });
    const presetEngine = await ForkEngine.create({
      provider: { kind, apiKey: 'sk-test-not-real', baseUrl: `${presetServer.url}/v1` },
      threads: 2,
    });
    try {
      return await run(presetEngine, presetServer);
    } finally {
      await presetEngine.close();
      await presetServer.close();
    }
  }

  const tasks = Array.from({ length: 16 }, (_, i) => ({ id: `w${i}`, directive: `Fork ${i}.\nREPLY ok` }));

  it.each([
    ['openai', 'openai'],
    ['deepseek', 'deepseek'],
    ['dashscope', 'dashscope'],
  ] as const)(
    "%s: warm-up reaches an efficiency of at least 0.95 on a cold cache, from the preset's own usage fields",
    async (usage, kind) => {
      await withPreset(usage, kind, async (e) => {
        const run = e.fanOut(e.freeze(openAIChatSession([], { words: 1500 })), tasks);
        const results = await run.results();
        expect(results.every((r) => r.status === 'completed')).toBe(true);
        const report = run.report();
        expect(report.cachedTokens).toBeGreaterThan(0);
        expect(report.efficiency).toBeGreaterThanOrEqual(0.95);
      });
    },
  );

  it("openai: every fork request carries one prompt_cache_key, the prefix id unless the caller gives the parent's", async () => {
    await withPreset('openai', 'openai', async (e, s) => {
      const prefix = e.freeze(openAIChatSession([], { words: 10 }));
      await e.fanOut(prefix, tasks.slice(0, 3)).results();
      expect(chatBodies(s).map((b) => b.body.prompt_cache_key)).toEqual(Array(3).fill(prefix.id));
      const start = s.requests.length;
      await e.fanOut(prefix, tasks.slice(0, 2), { promptCacheKey: 'the-parents-key' }).results();
      expect(chatBodies(s, start).map((b) => b.body.prompt_cache_key)).toEqual(['the-parents-key', 'the-parents-key']);
    });
  });

  it('deepseek and dashscope requests carry no prompt_cache_key (their APIs take none)', async () => {
    for (const kind of ['deepseek', 'dashscope'] as const) {
      await withPreset(kind, kind, async (e, s) => {
        await e.fanOut(e.freeze(openAIChatSession([], { words: 10 })), tasks.slice(0, 1)).results();
        expect(chatBodies(s).map((b) => 'prompt_cache_key' in b.body)).toEqual([false]);
      });
    }
  });

  it('a server that reports no cached tokens (vLLM without --enable-prompt-tokens-details) gives "unknown", never 0', async () => {
    await withPreset('none', 'openai-compatible', async (e) => {
      const run = e.fanOut(e.freeze(openAIChatSession([], { words: 1500 })), tasks.slice(0, 4));
      const results = await run.results();
      expect(results.map((r) => r.usage.cachedTokens)).toEqual([null, null, null, null]);
      const report = run.report();
      expect(report.cachedTokens).toBeNull();
      expect(report.hitRate).toBeNull();
      expect(report.efficiency).toBeNull();
      expect(report.theoreticalCachedTokens).toBeGreaterThan(0);
    });
  });
});

describe("DashScope's explicit cache (cache_control markers)", () => {
  it('marks the last shared message in every fork request, waits for the first response to end, and reads the written entry', async () => {
    const markerServer = await startLocalServer({ captureRequests: true, usage: 'dashscope' });
    const markerEngine = await ForkEngine.create({
      provider: { kind: 'dashscope', apiKey: 'sk-test-not-real', baseUrl: `${markerServer.url}/v1` },
      threads: 2,
      cache: 'explicit',
    });
    try {
      const session = openAIChatSession([], { words: 1500 });
      const run = markerEngine.fanOut(
        markerEngine.freeze(session),
        Array.from({ length: 8 }, (_, i) => ({ id: `d${i}`, directive: `Fork ${i}.\nREPLY ok` })),
      );
      const results = await run.results();
      expect(results.every((r) => r.status === 'completed')).toBe(true);
      const bodies = chatBodies(markerServer);
      // The parent's last message (the assistant's reply) carries the marker; nothing else changed.
      for (const { body } of bodies) {
        const marked = body.messages.flatMap((m, i) => (JSON.stringify(m).includes('cache_control') ? [i] : []));
        expect(marked).toEqual([session.messages.length - 1]);
        expect(body.messages[session.messages.length - 1]).toEqual({
          role: 'assistant',
          content: [{ type: 'text', text: session.messages.at(-1)?.content, cache_control: { type: 'ephemeral' } }],
        });
        expect(body.messages.slice(0, session.messages.length - 1)).toEqual(session.messages.slice(0, -1));
      }
      const report = run.report();
      expect(report.cache).toMatchObject({ requested: 'explicit', effective: 'explicit' });
      // The first fork writes the entry (reported as cache creation), the seven others read it.
      expect(results[0]?.usage.cacheWriteTokens).toBeGreaterThan(1024);
      expect(results.slice(1).every((r) => (r.usage.cachedTokens ?? 0) > 1024)).toBe(true);
      expect(report.efficiency).toBeGreaterThanOrEqual(0.95);
    } finally {
      await markerEngine.close();
      await markerServer.close();
    }
  });

  it('another Chat Completions provider asked for an explicit cache falls back to implicit and says why', async () => {
    const fallbackEngine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, cache: 'explicit' });
    try {
      const run = fallbackEngine.fanOut(fallbackEngine.freeze(openAIChatSession([], { words: 10 })), [{ id: 'f', directive: 'REPLY x' }]);
      await run.results();
      expect(run.report().cache).toMatchObject({
        requested: 'explicit',
        effective: 'implicit',
        note: expect.stringContaining('only DashScope takes cache_control markers'),
      });
    } finally {
      await fallbackEngine.close();
    }
  });
});
