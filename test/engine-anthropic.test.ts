// Internal: FORK_PLACEHOLDER_TEXT: the fork's fixed wording (src/wording/constants.ts) has no entry point; everything else comes through forkpool and forkpool/local-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type AnthropicMessagesSession, type ParentEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { FORK_PLACEHOLDER_TEXT } from '../src/fork/index.js';
import { anthropicSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Forks of sessions in Anthropic's Messages shape, end to end: the engine's workers call the local
 * server's /v1/messages through the real @anthropic-ai/sdk, and forkpool places the breakpoints.
 */

type Body = { messages: { role: string; content: string | Record<string, unknown>[] }[]; [key: string]: unknown };

/** A message's content blocks (a string content is one text block). */
function blocks(message: Body['messages'][number] | undefined): Record<string, unknown>[] {
  if (message === undefined) throw new Error('no such message');
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

const log: ToolLog = { calls: [] };
const tools = testTools(log);
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

async function withEngine<T>(
  options: Partial<Parameters<typeof ForkEngine.create>[0]>,
  run: (engine: ForkEngine) => Promise<T>,
): Promise<T> {
  const engine = await ForkEngine.create({
    provider: { kind: 'anthropic', apiKey: 'sk-ant-test-not-real', baseUrl: server.url },
    threads: 2,
    tools,
    ...options,
  });
  try {
    return await run(engine);
  } finally {
    await engine.close();
  }
}

function bodies(start: number): { raw: string; body: Body }[] {
  return server.requests
    .slice(start)
    .filter((r) => r.route === 'messages')
    .map((r) => ({ raw: r.body, body: JSON.parse(r.body) as Body }));
}

const distinct = (n: number, extra = 'REPLY ok') =>
  Array.from({ length: n }, (_, i) => ({ id: `f${i}`, directive: `Task ${i}: look at part ${i}.\n${extra}` }));

/** Where each cache_control marker of a request sits: [message index, block index]. */
function markers(body: Body): [number, number][] {
  return body.messages.flatMap((m, i) =>
    typeof m.content === 'string' ? [] : m.content.flatMap((b, j): [number, number][] => (b.cache_control ? [[i, j]] : [])),
  );
}

describe('forks of an Anthropic-shaped session', () => {
  it('8 forks recall a marker that only the parent history holds', async () => {
    await withEngine({}, async (engine) => {
      const results = await engine
        .fanOut(engine.freeze(anthropicSession(tools, { marker: 'MARKER-3131' })), distinct(8, 'RECALL MARKER-\\d{4}'))
        .results();
      expect(results.map((r) => r.status)).toEqual(Array(8).fill('completed'));
      for (const r of results) expect(r.text).toContain('MARKER-3131');
    });
  });

  it('every fork carries the shared breakpoint at the same byte position, after the same bytes', async () => {
    await withEngine({}, async (engine) => {
      const session = anthropicSession(tools);
      const start = server.requests.length;
      await engine.fanOut(engine.freeze(session), distinct(6)).results();
      const firsts = bodies(start);
      expect(firsts).toHaveLength(6);
      const positions = firsts.map(({ raw }) => raw.indexOf('"cache_control"'));
      expect(new Set(positions).size).toBe(1);
      const at = positions[0] as number;
      expect(at).toBeGreaterThan(0);
      for (const { raw } of firsts) expect(raw.slice(0, at)).toBe(firsts[0]?.raw.slice(0, at));
      // Two breakpoints: the end of the inherited history (the parent's last message) and the latest message.
      for (const { body } of firsts)
        expect(markers(body)).toEqual([
          [session.messages.length - 1, 0],
          [session.messages.length, 0],
        ]);
    });
  });

  it('on a cold cache with warm-up: efficiency of at least 0.95, and the input costs a fraction of an uncached run', async () => {
    const cold = await startLocalServer({});
    try {
      const engine = await ForkEngine.create({
        provider: { kind: 'anthropic', apiKey: 'sk-ant-test-not-real', baseUrl: cold.url },
        threads: 2,
      });
      try {
        const run = engine.fanOut(engine.freeze(anthropicSession([], { words: 1500 })), distinct(16));
        const results = await run.results();
        expect(results.every((r) => r.status === 'completed')).toBe(true);
        const report = run.report();
        expect(report.efficiency).toBeGreaterThanOrEqual(0.95);
        // The first fork writes the entry (1.25x), the others read it (0.1x).
        expect(results[0]?.usage.cacheWriteTokens).toBeGreaterThan(1024);
        expect(report.inputCost?.relative).toBeLessThan(0.3);
        expect(report.perFork[0]?.relativeInputCost).toBeGreaterThan(1);
        expect(report.perFork[1]?.relativeInputCost).toBeLessThan(0.5);
        expect(report.cache).toMatchObject({ effective: 'explicit', note: expect.stringContaining('forkpool adds two') });
      } finally {
        await engine.close();
      }
    } finally {
      await cold.close();
    }
  });

  it('without a warm-up the first wave misses, and the report shows it (a parent-warm claim the parent never made)', async () => {
    // Realistic latency: a prefill takes long enough that all eight are sent before the first response begins.
    const cold = await startLocalServer({ latency: 'realistic' });
    try {
      const engine = await ForkEngine.create({
        provider: { kind: 'anthropic', apiKey: 'sk-ant-test-not-real', baseUrl: cold.url },
        threads: 2,
        concurrency: 8,
      });
      try {
        const run = engine.fanOut(engine.freeze(anthropicSession([], { words: 1500 })), distinct(8), { parentWarm: true });
        const results = await run.results();
        expect(results.map((r) => r.usage.cachedTokens)).toEqual(Array(8).fill(0));
        const report = run.report();
        expect(report.theoreticalCachedTokens).toBeGreaterThan(8 * 1024);
        expect(report.efficiency).toBe(0);
        // Every fork wrote what none could read: more than an uncached run.
        expect(report.inputCost?.relative).toBeGreaterThan(1);
      } finally {
        await engine.close();
      }
    } finally {
      await cold.close();
    }
  });

  it('warm-up none is not honoured for Anthropic, and the report says why', async () => {
    await withEngine({ warmup: 'none' }, async (engine) => {
      const run = engine.fanOut(engine.freeze(anthropicSession([], { words: 1500 })), distinct(4));
      await run.results();
      expect(run.report().cache.note).toContain('warm-up none was asked, but Anthropic needs it');
    });
  });

  it("keeps the parent's own breakpoints where they are, and adds none when they fill the limit", async () => {
    const base = anthropicSession([], { words: 1500 });
    const marked = { type: 'ephemeral' as const };
    const session: AnthropicMessagesSession = {
      ...base,
      system: [{ type: 'text', text: base.system as string, cache_control: marked }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'first', cache_control: marked }] },
        { role: 'assistant', content: [{ type: 'text', text: 'one', cache_control: marked }] },
        { role: 'user', content: [{ type: 'text', text: 'second', cache_control: marked }] },
        { role: 'assistant', content: 'two' },
      ],
    };
    await withEngine({}, async (engine) => {
      const start = server.requests.length;
      const run = engine.fanOut(engine.freeze(session), distinct(2));
      await run.results();
      for (const { body } of bodies(start)) {
        expect(markers(body)).toEqual([
          [0, 0],
          [1, 0],
          [2, 0],
        ]);
        expect((body.system as { cache_control?: unknown }[])[0]?.cache_control).toEqual(marked);
      }
      expect(run.report().cache.note).toContain("the parent's 4 already fill the limit of 4; forkpool added none");
    });
  });

  it('--cache-ttl 1h: the breakpoints ask for an hour and the writes are priced 2x; a parent 5-minute breakpoint keeps them at 5 minutes', async () => {
    await withEngine({ cacheTtl: '1h' }, async (engine) => {
      const start = server.requests.length;
      // A system prompt of its own, so the first fork writes rather than reads an earlier test's entry.
      const run = engine.fanOut(engine.freeze(anthropicSession([], { words: 1499, marker: 'MARKER-1111' })), distinct(3));
      const results = await run.results();
      const [first] = bodies(start);
      expect(blocks(first?.body.messages[1])[0]?.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
      expect(results[0]?.usage.cacheWrite1hTokens).toBeGreaterThan(0);
      expect(run.report().perFork[0]?.relativeInputCost).toBeGreaterThan(1.5);

      const withFiveMinute: AnthropicMessagesSession = {
        ...anthropicSession([], { words: 1500 }),
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'first', cache_control: { type: 'ephemeral' } }] },
          { role: 'assistant', content: 'one' },
        ],
      };
      const second = engine.fanOut(engine.freeze(withFiveMinute), distinct(2));
      await second.results();
      expect(second.report().cache.note).toContain("1h was asked, but the parent's 5-minute breakpoints come first");
    });
  });

  it('forks a parent in the middle of its turn: placeholder tool_result blocks answer its tool_use ids', async () => {
    const base = anthropicSession(tools, { marker: 'MARKER-7171' });
    const session: AnthropicMessagesSession = {
      ...base,
      messages: [
        ...base.messages,
        { role: 'user', content: 'Fork a researcher and look a key up.' },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_a',
              name: 'agent',
              input: { description: 'd', prompt: 'sibling directive SECRET-2', subagent_type: 'fork' },
            },
            { type: 'tool_use', id: 'toolu_b', name: 'lookup', input: { key: 'k' } },
          ],
        },
      ],
    };
    await withEngine({}, async (engine) => {
      const start = server.requests.length;
      const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'mid', directive: 'RECALL MARKER-\\d{4}' }]).results();
      expect(result).toMatchObject({ status: 'completed', text: expect.stringContaining('MARKER-7171') });
      const messages = bodies(start)[0]?.body.messages ?? [];
      expect(JSON.stringify(messages)).not.toContain('SECRET-2');
      const at = messages.findIndex((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'));
      expect(blocks(messages[at]).map((b) => b.input)).toEqual([{}, { key: 'k' }]);
      const answers = blocks(messages[at + 1]);
      expect(answers.slice(0, 2)).toEqual([
        { type: 'tool_result', tool_use_id: 'toolu_a', content: FORK_PLACEHOLDER_TEXT },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: expect.stringMatching(/^Result not available/) },
      ]);
      expect(answers[2]).toMatchObject({ type: 'text', text: expect.stringContaining('<fork-boilerplate>') });
    });
  });

  it("runs a fork's tool calls on the main thread and answers each with a tool_result block", async () => {
    log.calls.length = 0;
    await withEngine({}, async (engine) => {
      const start = server.requests.length;
      const [result] = await engine
        .fanOut(engine.freeze(anthropicSession(tools)), [{ id: 't', directive: 'CALL lookup {"key":"abc"}\nREPLY looked it up' }])
        .results();
      expect(result).toMatchObject({ status: 'completed', text: 'looked it up', toolCalls: 1 });
      expect(log.calls).toEqual([expect.objectContaining({ tool: 'lookup', args: { key: 'abc' }, mainThread: true })]);
      const second = bodies(start)[1]?.body.messages ?? [];
      const call = blocks(second.at(-2)).find((b) => b.type === 'tool_use');
      const answer = blocks(second.at(-1))[0];
      expect(answer).toMatchObject({ type: 'tool_result', tool_use_id: call?.id, content: '{"output":{"value":"value-of-abc"}}' });
      // Each request's latest message carries the moving breakpoint; the earlier turn's is gone.
      expect(markers(bodies(start)[1]?.body as Body).at(-1)).toEqual([second.length - 1, 0]);
    });
  });

  it('structured output works on this shape too', async () => {
    await withEngine({}, async (engine) => {
      const [result] = await engine
        .fanOut(engine.freeze(anthropicSession(tools)), [
          {
            id: 'o',
            directive: 'JSON {"answer":7}',
            outputSchema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
          },
        ])
        .results();
      expect(result).toMatchObject({ status: 'completed', output: { answer: 7 } });
    });
  });

  it('runs the headless parent loop with the agent tool as an Anthropic tool', async () => {
    await withEngine({}, async (engine) => {
      const events: ParentEvent[] = [];
      const start = server.requests.length;
      const outcome = await engine.runParentAgent(anthropicSession([], { marker: 'MARKER-9292', words: 10 }), 'FORK RECALL MARKER-\\d{4}', {
        onEvent: (e) => events.push(e),
      });
      expect(outcome.status).toBe('completed');
      expect(outcome.text).toContain('MARKER-9292');
      expect(events.filter((e) => e.type === 'task_notification')).toHaveLength(1);
      const first = bodies(start)[0]?.body as Body & { tools: { name: string; input_schema?: unknown }[] };
      expect(first.tools.filter((t) => t.name === 'agent' && t.input_schema !== undefined)).toHaveLength(1);
      expect(JSON.stringify(bodies(start).at(-1)?.body.messages)).toContain('<task-notification>');
    });
  });
});
