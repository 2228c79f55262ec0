import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ForkEngine, ForkpoolError, InputError, parseTasks, type ForkEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { anthropicSession, openAIChatSession, parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/* What an embedder expects of the library: abort, promises that reject, errors with codes, failures with fields. */

let server: LocalServer;
let engine: ForkEngine;
const log: ToolLog = { calls: [] };
const cyclic: Record<string, unknown> = { name: 'loop' };
cyclic.self = cyclic;
const tools = [
  ...testTools(log),
  defineTool({ name: 'count_big', description: 'Returns a BigInt.', parameters: z.object({}), execute: () => ({ count: 2n ** 70n }) }),
  defineTool({ name: 'walk_loop', description: 'Returns a cycle.', parameters: z.object({}), execute: () => cyclic }),
];

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url }, threads: 1, concurrency: 2, warmup: 'none', tools });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

describe('fanOut(…, { signal })', () => {
  it('aborting settles every fork cancelled: the running ones through their cancel, the queued ones at once', async () => {
    const prefix = engine.freeze(parentSession(tools));
    const controller = new AbortController();
    const tasks = [
      { id: 's1', directive: 'SLEEP 30000\nREPLY never' },
      { id: 's2', directive: 'SLEEP 30000\nREPLY never' },
      ...Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, directive: 'REPLY queued' })),
    ];
    const run = engine.fanOut(prefix, tasks, { signal: controller.signal });
    const events: ForkEvent[] = [];
    const started = new Set<string>();
    for await (const e of run.events()) {
      events.push(e);
      if (e.type === 'task_started') started.add(e.forkId);
      // Both sleepers are running (concurrency 2), the q* wait behind them.
      if (e.type === 'task_started' && started.has('s1') && started.has('s2') && !controller.signal.aborted) controller.abort();
    }
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status])).toEqual(tasks.map((t) => [t.id, 'cancelled']));
    for (const id of tasks.map((t) => t.id))
      expect(events.filter((e) => e.type === 'task_notification' && e.forkId === id)).toHaveLength(1);
    expect(run.report().forks).toMatchObject({ cancelled: 6, completed: 0 });
  });

  it('an already-aborted signal cancels every fork before any starts: no request is sent', async () => {
    const prefix = engine.freeze(parentSession(tools));
    const before = server.requests.length;
    const run = engine.fanOut(
      prefix,
      [
        { id: 'a', directive: 'REPLY a' },
        { id: 'b', directive: 'REPLY b' },
        { id: 'c', directive: 'REPLY c' },
      ],
      { signal: AbortSignal.abort() },
    );
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
      ['c', 'cancelled'],
    ]);
    await run.settled();
    expect(server.requests.length).toBe(before);
  });

  it('a signal that is not an AbortSignal is refused, naming the option', () => {
    const prefix = engine.freeze(parentSession(tools));
    expect(() => engine.fanOut(prefix, [{ id: 'x', directive: 'REPLY x' }], { signal: 'stop' as unknown as AbortSignal })).toThrow(
      /signal.*must be an AbortSignal/,
    );
  });
});

describe('results()', () => {
  it('rejects, never throws, when the run keeps no results', async () => {
    const run = engine.fanOut(engine.freeze(parentSession(tools)), [{ id: 'one', directive: 'REPLY one' }], { retainResults: false });
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = run.results();
    }).not.toThrow();
    const error: unknown = await (pending as Promise<unknown>).catch((e: unknown) => e);
    expect(ForkpoolError.isInstance(error) && error.code).toBe('results_not_retained');
    await run.settled();
  });
});

describe('errors thrown to callers', () => {
  it('a closed engine throws a ForkpoolError coded engine_closed, its message unchanged', async () => {
    const closing = await ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url }, threads: 1 });
    const prefix = closing.freeze(parentSession(tools));
    await closing.close();
    const error: unknown = (() => {
      try {
        closing.fanOut(prefix, [{ id: 'x', directive: 'REPLY x' }]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ForkpoolError);
    expect(ForkpoolError.isInstance(error) && [error.code, error.message]).toEqual([
      'engine_closed',
      'ForkEngine.fanOut: the engine is closed',
    ]);
    expect(() => closing.runFork(prefix, { id: 'y', directive: 'REPLY y' })).toThrow('ForkEngine.runFork: the engine is closed');
  });

  it("a bad option is a TypeError marked as forkpool's, coded invalid_option", async () => {
    const caught = await ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url }, threads: 0 }).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(RangeError);
    expect(ForkpoolError.isInstance(caught) && caught.code).toBe('invalid_option');
    const provider = await ForkEngine.create({ provider: { kind: 'local', urll: 'x' } as never }).catch((e: unknown) => e);
    expect(provider).toBeInstanceOf(TypeError);
    expect(ForkpoolError.isInstance(provider) && provider.code).toBe('invalid_option');
    // An error that is not forkpool's is told apart.
    expect(ForkpoolError.isInstance(new TypeError('other'))).toBe(false);
    expect(ForkpoolError.isInstance({ code: 'engine_closed' })).toBe(false);
  });

  it('InputError is one of them, keeping its fields', () => {
    const error: unknown = (() => {
      try {
        parseTasks('{"id": 3}\n', 'tasks.json');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect(ForkpoolError.isInstance(error) && error.code).toBe('invalid_input');
    expect(error).toMatchObject({ name: 'InputError', file: 'tasks.json', line: 1, rule: expect.any(String) });
  });
});

describe("a fork's model_error carries fields", () => {
  // Each shape goes through its own SDK (@google/genai, openai, @anthropic-ai/sdk) against the simulator.
  const shapes = [
    ['gemini', () => parentSession(tools)],
    ['openai-chat', () => openAIChatSession(tools)],
    ['anthropic-messages', () => anthropicSession(tools)],
  ] as const;
  it.each(shapes)('%s: the HTTP status, a category and the retry hint, beside the kind and message', async (_shape, session) => {
    const once = await ForkEngine.create({
      provider: { kind: 'local', baseUrl: server.url },
      threads: 1,
      warmup: 'none',
      retry: { maxAttempts: 1 },
    });
    try {
      const results = await once
        .fanOut(once.freeze(session()), [
          { id: 'limited', directive: 'FAIL 429\nREPLY never' },
          { id: 'broken', directive: 'FAIL 500\nREPLY never' },
          { id: 'refused', directive: 'FAIL 400\nREPLY never' },
          { id: 'unknown-key', directive: 'FAIL 401\nREPLY never' },
        ])
        .results();
      const errors = results.map((r) => (r.status === 'failed' ? r.error : undefined));
      expect(errors.map((e) => e?.kind)).toEqual(Array(4).fill('model_error'));
      const fields = errors.map((e) => (e?.kind === 'model_error' ? [e.status, e.category, e.retryAfterMs] : undefined));
      expect(fields).toEqual([
        [429, 'rate_limit', 1000],
        [500, 'server_error', undefined],
        [400, 'bad_request', undefined],
        [401, 'authentication', undefined],
      ]);
      // The words stay as they were: the status is still in the message.
      expect(errors[0]?.message).toContain('HTTP 429');
    } finally {
      await once.close();
    }
  });
});

describe("a tool's result that cannot be sent", () => {
  it("is that tool's failure, naming it, which the fork's model reads: no model error, no retry", async () => {
    const start = server.requests.length;
    const results = await engine
      .fanOut(engine.freeze(parentSession(tools)), [
        { id: 'big', directive: 'CALL count_big {}\nREPLY done' },
        { id: 'cycle', directive: 'CALL walk_loop {}\nREPLY done' },
      ])
      .results();
    expect(results.map((r) => [r.id, r.status, r.retries, r.toolCalls])).toEqual([
      ['big', 'completed', 0, 1],
      ['cycle', 'completed', 0, 1],
    ]);
    // What the model was sent back for each call: the tool's error, naming it.
    const sent = server.requests
      .slice(start)
      .map((r) => r.body)
      .join('\n');
    expect(sent).toContain('count_big returned a result that cannot be sent to the model as JSON: Do not know how to serialize a BigInt');
    expect(sent).toMatch(/walk_loop returned a result that cannot be sent to the model as JSON: Converting circular structure to JSON/);
  });
});

describe("the local provider's endpoint", () => {
  it('is named baseUrl, as every other provider names its own; giving it and the old url both is refused', async () => {
    const named = await ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url }, threads: 1, warmup: 'none' });
    try {
      const before = server.requests.length;
      const [result] = await named.fanOut(named.freeze(parentSession(tools)), [{ id: 'here', directive: 'REPLY here' }]).results();
      expect(result?.status).toBe('completed');
      expect(server.requests.length).toBeGreaterThan(before);
    } finally {
      await named.close();
    }
    const both = await ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url, url: server.url } }).catch((e: unknown) => e);
    expect(both).toBeInstanceOf(TypeError);
    expect(ForkpoolError.isInstance(both) && [both.code, both.message]).toEqual([
      'invalid_option',
      "ForkEngine: options.provider { kind: 'local' } takes baseUrl or url (its old name), not both",
    ]);
  });
});
