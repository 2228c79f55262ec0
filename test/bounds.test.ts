import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkEvent, type ForkResult } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Bounds on a run: token budgets (per run and per fork), events from subscription on with a
 * bounded replay, and results that are streamed instead of retained.
 */

let server: LocalServer;
const log: ToolLog = { calls: [] };
const tools = testTools(log);
beforeAll(async () => {
  server = await startLocalServer({});
});
afterAll(async () => {
  await server.close();
});

async function withEngine<T>(options: Parameters<typeof ForkEngine.create>[0], body: (engine: ForkEngine) => Promise<T>): Promise<T> {
  const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools, ...options });
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}

/** Three model calls: a tool call, another, then the answer. */
const THREE_CALLS = 'CALL lookup {"key":"a"}\nCALL@2 lookup {"key":"b"}\nREPLY done';

describe('token budgets', () => {
  it("a run's budget: once spent, queued forks end cancelled (budget) and the running fork stops before its next call", async () => {
    const report = await withEngine({ concurrency: 1, warmup: 'none', maxTokens: 100 }, async (engine) => {
      const run = engine.fanOut(engine.freeze(parentSession(tools)), [
        { id: 'runs', directive: THREE_CALLS },
        { id: 'queued-1', directive: 'REPLY never' },
        { id: 'queued-2', directive: 'REPLY never' },
      ]);
      const results = await run.results();
      expect(results.map((r) => [r.id, r.status, r.status === 'completed' ? '' : r.error.kind, r.turns])).toEqual([
        ['runs', 'cancelled', 'budget', 1],
        ['queued-1', 'cancelled', 'budget', 0],
        ['queued-2', 'cancelled', 'budget', 0],
      ]);
      const first = results[0] as Extract<ForkResult, { status: 'cancelled' }>;
      expect(first.error.message).toBe("the run's token budget was spent; the fork stopped before its next model call");
      expect(results[1]?.status === 'cancelled' && results[1].error.message).toMatch(
        /^the run's token budget was spent \(\d+ of 100 tokens\) before it started$/,
      );
      return run.report();
    });
    // One call was made and paid for; nothing after it.
    expect(report.modelCalls).toBe(1);
    expect(report.budget).toMatchObject({ maxTokens: 100, spent: true, stoppedForks: 3 });
    expect(report.budget?.spentTokens).toBe(report.promptTokens + report.outputTokens);
    expect(report.forks).toMatchObject({ completed: 0, cancelled: 3 });
  });

  it("a fork's budget ends that fork (failed: budget) and no other; a task's own maxTokens wins", async () => {
    await withEngine({ warmup: 'none', maxTokensPerFork: 100 }, async (engine) => {
      const run = engine.fanOut(engine.freeze(parentSession(tools, { words: 10 })), [
        { id: 'over', directive: THREE_CALLS },
        { id: 'one-call', directive: 'REPLY fits' },
        { id: 'own-budget', directive: THREE_CALLS, maxTokens: 1_000_000 },
      ]);
      const results = await run.results();
      expect(results.map((r) => [r.id, r.status, r.status === 'completed' ? r.text : r.error.kind, r.turns])).toEqual([
        ['over', 'failed', 'budget', 1],
        ['one-call', 'completed', 'fits', 1],
        ['own-budget', 'completed', 'done', 3],
      ]);
      const over = results[0] as Extract<ForkResult, { status: 'failed' }>;
      expect(over.error.message).toMatch(/^the fork spent its token budget: \d+ of 100 tokens, before its next model call$/);
      expect(run.report().budget).toMatchObject({ maxTokensPerFork: 100, spent: false, stoppedForks: 1 });
    });
  });

  it('refuses to run without a provider, or with a mistyped one, naming the choices: never a silent simulator (issue 13)', async () => {
    await expect(ForkEngine.create({})).rejects.toThrow(
      /^ForkEngine: options\.provider is required: \{ kind: 'gemini' \}.*\{ kind: 'local' \} for the built-in simulated model/,
    );
    await expect(ForkEngine.create({ provider: { kind: 'gemni' } } as never)).rejects.toThrow(
      /^ForkEngine: options\.provider\.kind must be "local", "gemini", "openai", "deepseek", "dashscope", "openai-compatible", "anthropic" or "ai-sdk", got "gemni"/,
    );
    await expect(ForkEngine.create({ provider: 'gemini' } as never)).rejects.toThrow(
      'ForkEngine: options.provider must be an object, got string',
    );
  });

  it("checks a fan-out's own options: a misspelt one is an error, not silently ignored", async () => {
    await withEngine({}, async (engine) => {
      const prefix = engine.freeze(parentSession(tools, { words: 10 }));
      expect(() => engine.fanOut(prefix, [{ id: 'a', directive: 'x' }], { retainResult: false } as never)).toThrow(
        'ForkEngine: options.fanOut.retainResult is not an option (known: parentWarm, retainResults, promptCacheKey, storedResponse, onResponseStart, tools, onResult, callGate, transcripts, traceParent, parentAgentId, signal)',
      );
      expect(() => engine.fanOut(prefix, [{ id: 'a', directive: 'x' }], { parentWarm: 'true' } as never)).toThrow(
        'ForkEngine.fanOut: options.parentWarm must be true or false',
      );
    });
  });

  it('refuses the old option name seed as an unknown option, naming history among the known', async () => {
    await expect(ForkEngine.create({ provider: { kind: 'local', url: server.url }, seed: 'inherit' } as never)).rejects.toThrow(
      /^ForkEngine: options\.seed is not an option \(known: provider, .*\bhistory\b.*\)$/,
    );
  });

  it('refuses a budget that is not a positive integer, naming the option', async () => {
    await expect(ForkEngine.create({ provider: { kind: 'local', url: server.url }, maxTokens: 0 })).rejects.toThrow(
      'ForkEngine: options.maxTokens must be a positive integer, got 0',
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['maxTurns 0', { maxTurns: 0 }, 'ForkEngine: options.maxTurns must be a positive integer, got 0'],
    ['timeoutMs -5', { timeoutMs: -5 }, 'ForkEngine: options.timeoutMs must be a positive integer, got -5'],
    ['staggerCapMs -1', { staggerCapMs: -1 }, 'ForkEngine: options.staggerCapMs must be a non-negative integer, got -1'],
    ['minCacheTokens -3', { minCacheTokens: -3 }, 'ForkEngine: options.minCacheTokens must be a non-negative integer, got -3'],
    ['a string for a number', { concurrency: '8' }, 'ForkEngine: options.concurrency must be a number, got string'],
    ['an unknown warm-up', { warmup: 'parent' }, 'ForkEngine: options.warmup must be one of "auto", "none", got "parent"'],
    ['retry.maxAttempts 0', { retry: { maxAttempts: 0 } }, 'ForkEngine: options.retry.maxAttempts must be a positive integer, got 0'],
    ['a misspelt option', { maxTurn: 3 }, 'ForkEngine: options.maxTurn is not an option (known: provider, threads,'],
    ['a timer Node would clamp', { timeoutMs: 2 ** 32 }, 'ForkEngine: options.timeoutMs must be at most 2147483647, got 4294967296'],
    [
      'a misspelt nested option',
      { rateLimit: { rpm: 5 } },
      'ForkEngine: options.rateLimit.rpm is not an option (known: requestsPerMinute, tokensPerMinute)',
    ],
    ['retry: null', { retry: null }, 'ForkEngine: options.retry must be an object, got null'],
    [
      'a base delay over the maximum',
      { retry: { baseDelayMs: 5000, maxDelayMs: 10 } },
      'ForkEngine: options.retry.baseDelayMs (5000) must not exceed options.retry.maxDelayMs (10)',
    ],
    ['spawnTools as a string', { spawnTools: 'bash' }, 'ForkEngine: options.spawnTools must be an array of tool names'],
  ])('checks every option once, when the engine is made: %s', async (_case, options, message) => {
    await expect(ForkEngine.create({ provider: { kind: 'local', url: server.url }, ...options } as never)).rejects.toThrow(message);
  });
});

describe('events and results in memory', () => {
  it('a subscriber sees events from its subscription on; replay gives the bounded tail the run keeps', async () => {
    await withEngine({ warmup: 'none', eventReplayLimit: 3 }, async (engine) => {
      const run = engine.fanOut(engine.freeze(parentSession(tools, { words: 10 })), [
        { id: 'a', directive: 'REPLY a' },
        { id: 'b', directive: 'REPLY b' },
      ]);
      const live: ForkEvent[] = [];
      for await (const e of run.events()) live.push(e);
      // Each fork: task_started, turn, task_notification.
      expect(live).toHaveLength(6);
      const late: ForkEvent[] = [];
      for await (const e of run.events()) late.push(e);
      expect(late).toEqual([]);
      const replayed: ForkEvent[] = [];
      for await (const e of run.events({ replay: true })) replayed.push(e);
      expect(replayed).toEqual(live.slice(-3));
    });
  });

  it('retainResults: false streams every result to onResult, keeps none, and still reports the totals', async () => {
    await withEngine({ warmup: 'none' }, async (engine) => {
      const tasks = Array.from({ length: 12 }, (_, i) => ({ id: `f${i}`, directive: i === 3 ? 'FAIL 400' : `REPLY ${i}` }));
      const run = engine.fanOut(engine.freeze(parentSession(tools)), tasks, { retainResults: false });
      const seen: ForkResult[] = [];
      const sums: number[] = [];
      run.onResult((r) => {
        seen.push(r);
        const f = run.report().forks;
        sums.push(f.completed + f.failed + f.cancelled + f.running + f.queued);
      });
      await run.settled();
      // A fork that has ended is never also counted as running.
      expect(new Set(sums)).toEqual(new Set([12]));
      expect(seen.map((r) => r.id).sort()).toEqual(tasks.map((t) => t.id).sort());
      // A promise that rejects, never a synchronous throw: `await run.results()` and `.catch` both see it.
      let pending: Promise<ForkResult[]> | undefined;
      expect(() => {
        pending = run.results();
      }).not.toThrow();
      await expect(pending).rejects.toThrow('FanOutRun.results: this run does not retain results (retainResults: false)');
      const report = run.report();
      expect(report.perFork).toEqual([]);
      expect(report.forks).toMatchObject({ total: 12, completed: 11, failed: 1, running: 0, queued: 0 });
      expect(report.promptTokens).toBe(seen.reduce((a, r) => a + r.usage.promptTokens, 0));
      // Unknown cached tokens (null) in any fork make the total unknown, as the report sums them.
      const cached = seen.reduce<number | null>(
        (a, r) => (a === null || r.usage.cachedTokens === null ? null : a + r.usage.cachedTokens),
        0,
      );
      expect(cached).not.toBeNull();
      expect(report.cachedTokens).toBe(cached);
      expect(report.modelCalls).toBe(seen.reduce((a, r) => a + r.calls.length, 0));
      expect(report.failures.map((f) => f.id)).toEqual(['f3']);
      expect(report.notes).toContain('results were not retained (retainResults: false): no per-fork rows; totals cover every fork.');
    });
  });
});

describe('fanOut input', () => {
  it('names the task, the field and the rule of a bad task, and of a repeated id; nothing runs', async () => {
    await withEngine({}, async (engine) => {
      const prefix = engine.freeze(parentSession(tools, { words: 10 }));
      expect(() =>
        engine.fanOut(prefix, [
          { id: 'a', directive: 'x' },
          { id: 'b', directive: 'x', forkTurns: 0 },
        ]),
      ).toThrow(expect.objectContaining({ name: 'InputError', message: 'tasks[1].forkTurns: must be "all" or a positive integer' }));
      expect(() =>
        engine.fanOut(prefix, [
          { id: 'a', directive: 'x' },
          { id: 'a', directive: 'y' },
        ]),
      ).toThrow('tasks[1].id: "a" repeats tasks[0]; task ids must be unique');
    });
  });
});
