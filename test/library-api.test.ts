import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, ForkpoolError, InputError, parseTasks, type ForkEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/* What an embedder expects of the library: abort, promises that reject, errors with codes, failures with fields. */

let server: LocalServer;
let engine: ForkEngine;
const log: ToolLog = { calls: [] };
const tools = testTools(log);

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, concurrency: 2, warmup: 'none', tools });
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
    const closing = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1 });
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
    const caught = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 0 }).catch((e: unknown) => e);
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
