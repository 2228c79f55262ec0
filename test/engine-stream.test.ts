import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ForkEngine, streamTasks, type FanOutRun, type ForkResult, type ForkTask } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Streamed tasks: fanOut takes any iterable or async iterable, pulls it only as forks are
 * dispatched (never more than `concurrency` ahead), checks each task as it is taken, and stops
 * taking at a bad one while the forks of the tasks before it run and keep their results.
 */

let server: LocalServer;
const tools = testTools({ calls: [] } satisfies ToolLog);
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-engine-stream-'));
beforeAll(async () => {
  server = await startLocalServer({});
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function withEngine<T>(options: Parameters<typeof ForkEngine.create>[0], body: (engine: ForkEngine) => Promise<T>): Promise<T> {
  const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools, ...options });
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}

/** Forks dispatched so far (running or ended), read when the source is pulled. */
function dispatched(run: FanOutRun | undefined): number {
  if (!run) return 0;
  const f = run.report().forks;
  return f.completed + f.failed + f.cancelled + f.running;
}

/** Counts the pulls of a source and the largest lead of pulls over dispatched forks. */
function pullCounter() {
  const state = { pulls: 0, maxAhead: 0, run: undefined as FanOutRun | undefined };
  return {
    state,
    pulled(): void {
      state.pulls++;
      state.maxAhead = Math.max(state.maxAhead, state.pulls - dispatched(state.run));
    },
  };
}

describe('fanOut with streamed tasks', () => {
  it('takes a generator lazily: never more than `concurrency` tasks ahead of the forks dispatched', async () => {
    await withEngine({ concurrency: 2, warmup: 'none' }, async (engine) => {
      const counter = pullCounter();
      function* tasks(): Generator<ForkTask> {
        for (let i = 0; i < 30; i++) {
          counter.pulled();
          yield { id: `g${i}`, directive: `SLEEP 5\nREPLY ${i}` };
        }
      }
      const run = engine.fanOut(engine.freeze(parentSession(tools)), tasks());
      counter.state.run = run;
      const results = await run.results();
      expect(results.map((r) => r.id)).toEqual(Array.from({ length: 30 }, (_, i) => `g${i}`));
      expect(results.every((r) => r.status === 'completed')).toBe(true);
      expect(counter.state.pulls).toBe(30);
      // An eager reader would have pulled all 30 before the first fork went.
      expect(counter.state.maxAhead).toBeLessThanOrEqual(2);
      expect(run.report().forks).toMatchObject({ total: 30, totalKnown: true, completed: 30, queued: 0 });
    });
  });

  it('takes an endless async generator as forks go, and cancelAll stops taking (the generator is closed)', async () => {
    await withEngine({ concurrency: 3, warmup: 'none' }, async (engine) => {
      const counter = pullCounter();
      let closed = false;
      async function* endless(): AsyncGenerator<ForkTask> {
        try {
          for (let i = 0; ; i++) {
            await Promise.resolve();
            counter.pulled();
            yield { id: `a${i}`, directive: `SLEEP 5\nREPLY ${i}` };
          }
        } finally {
          closed = true;
        }
      }
      const run = engine.fanOut(engine.freeze(parentSession(tools)), endless(), { retainResults: false });
      counter.state.run = run;
      const seen: ForkResult[] = [];
      let totalKnownMidRun: boolean | undefined;
      run.onResult((result) => {
        seen.push(result);
        totalKnownMidRun ??= run.report().forks.totalKnown;
        if (seen.length === 8) run.cancelAll();
      });
      await run.settled();
      expect(totalKnownMidRun).toBe(false);
      expect(counter.state.maxAhead).toBeLessThanOrEqual(3);
      const report = run.report();
      // Every task taken ended exactly once; none was taken after the cancel, and the total is not claimed.
      expect(report.forks).toMatchObject({ total: seen.length, taken: seen.length, totalKnown: false, queued: 0 });
      expect(report.notes).toContain(
        `the run stopped taking tasks after ${seen.length} (cancelled, or its budget spent): the rest of the stream was not read; its tasks did not run and have no result (a journal's --resume runs them)`,
      );
      expect(counter.state.pulls).toBeLessThanOrEqual(seen.length + 1);
      expect(report.forks.completed).toBeGreaterThanOrEqual(8);
      expect(report.forks.completed + report.forks.cancelled).toBe(seen.length);
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5_000 });
    });
  });

  it('a bad task mid-stream stops the taking: the tasks before it run and keep their results, the error names its index', async () => {
    await withEngine({ concurrency: 2, warmup: 'none' }, async (engine) => {
      let pulls = 0;
      let closed = false;
      function* tasks(): Generator<ForkTask> {
        try {
          for (let i = 0; i < 10; i++) {
            pulls++;
            yield (i === 5 ? { id: 'bad', directive: '  ' } : { id: `t${i}`, directive: `REPLY ${i}` }) as ForkTask;
          }
        } finally {
          closed = true;
        }
      }
      const seen: string[] = [];
      const run = engine.fanOut(engine.freeze(parentSession(tools)), tasks(), {
        onResult: (result, task) => seen.push(`${task.id}:${result.status}`),
      });
      await run.settled();
      expect(run.tasksError?.message).toBe('tasks[5].directive: the directive must not be empty');
      await expect(run.results()).rejects.toThrow('tasks[5].directive: the directive must not be empty');
      expect(seen.sort()).toEqual(['t0', 't1', 't2', 't3', 't4'].map((id) => `${id}:completed`));
      expect(pulls).toBe(6);
      expect(closed).toBe(true);
      const report = run.report();
      expect(report.forks).toMatchObject({ total: 5, taken: 5, totalKnown: false, completed: 5 });
      expect(report.notes).toContain(
        'tasks stopped at a bad one (the forks before it ran): tasks[5].directive: the directive must not be empty',
      );
    });
  });

  it('a repeated id names both tasks; an iterator that throws ends the taking with its own error', async () => {
    await withEngine({ warmup: 'none' }, async (engine) => {
      const prefix = engine.freeze(parentSession(tools));
      const repeated = engine.fanOut(
        prefix,
        new Set<ForkTask>([
          { id: 'x', directive: 'REPLY 0' },
          { id: 'y', directive: 'REPLY 1' },
          { id: 'x', directive: 'REPLY 2' },
        ]),
      );
      await repeated.settled();
      expect(repeated.tasksError?.message).toBe('tasks[2].id: "x" repeats tasks[0]; task ids must be unique');
      expect(repeated.report().forks).toMatchObject({ total: 2, completed: 2 });

      async function* broken(): AsyncGenerator<ForkTask> {
        yield { id: 'one', directive: 'REPLY 1' };
        throw new Error('the task queue went away');
      }
      const run = engine.fanOut(prefix, broken());
      await run.settled();
      expect(run.tasksError?.message).toBe('the task queue went away');
      expect(run.report().forks).toMatchObject({ total: 1, completed: 1 });
    });
  });

  it('streamTasks: a JSONL file is checked whole before anything runs; its errors name file:line, a repeat both lines', async () => {
    const path = join(tmp, 'tasks.jsonl');
    const lines = [
      '{"id":"x","directive":"REPLY 1"}',
      '',
      '{"id":"y","directive":"REPLY 2"}',
      '{"id":"x","directive":"REPLY 3"}',
      '{"id":"z","directive":"REPLY 4"}',
    ];
    writeFileSync(path, `${lines.join('\n')}\n`);
    await expect(streamTasks(path)).rejects.toThrow(`${path}:4: id: "x" repeats line 1; task ids must be unique`);
    writeFileSync(path, `${lines.slice(0, 3).join('\n')}\n{"id":"z","directive":"REPLY 4"}`);
    const tasks = await streamTasks(path);
    expect(tasks.total).toBe(3);
    await withEngine({ warmup: 'none' }, async (engine) => {
      const run = engine.fanOut(engine.freeze(parentSession(tools)), tasks);
      // Known before any is taken: the file was read whole once.
      expect(run.report().forks).toMatchObject({ total: 3, totalKnown: true, taken: 0, queued: 3 });
      await run.settled();
      expect(run.report().forks).toMatchObject({ total: 3, totalKnown: true, taken: 3, completed: 3 });
    });
  });

  it("cancelAll over a task file: the tasks not taken yet are read and end cancelled, each with one result; the total is the file's", async () => {
    const path = join(tmp, 'forty.jsonl');
    writeFileSync(path, Array.from({ length: 40 }, (_, i) => `{"id":"f${i}","directive":"SLEEP 20\\nREPLY ${i}"}\n`).join(''));
    await withEngine({ concurrency: 3, warmup: 'none' }, async (engine) => {
      const results: ForkResult[] = [];
      const started: string[] = [];
      const run = engine.fanOut(engine.freeze(parentSession(tools)), await streamTasks(path), { retainResults: false });
      run.onResult((result) => {
        results.push(result);
        if (results.length === 5) run.cancelAll();
      });
      for await (const event of run.events()) if (event.type === 'task_started') started.push(event.forkId);
      await run.settled();
      expect(results.map((r) => r.id).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `f${i}`).sort());
      expect(started.sort()).toEqual(results.map((r) => r.id).sort());
      // At most 3 were running when it was cancelled: every other task not yet finished never started.
      const never = results.filter((r) => r.status === 'cancelled' && r.error.message === 'cancelled before it started');
      expect(never.length).toBeGreaterThanOrEqual(40 - 5 - 3);
      for (const r of never) expect(r).toMatchObject({ turns: 0, calls: [], error: { kind: 'cancelled' } });
      const report = run.report();
      expect(report.forks).toMatchObject({ total: 40, taken: 40, totalKnown: true, queued: 0, running: 0 });
      expect(report.forks.completed + report.forks.cancelled).toBe(40);
      expect(report.notes.join('\n')).not.toContain('stopped taking tasks');
    });
  });

  it('onResult as an option gets every result with its task, also without retained results', async () => {
    await withEngine({ warmup: 'none' }, async (engine) => {
      const tasks: ForkTask[] = Array.from({ length: 4 }, (_, i) => ({ id: `o${i}`, directive: `REPLY ${i}` }));
      const pairs: [string, string][] = [];
      const run = engine.fanOut(engine.freeze(parentSession(tools)), tasks, {
        retainResults: false,
        onResult: (result, task) => pairs.push([result.id, task.directive]),
      });
      await run.settled();
      expect(pairs.sort()).toEqual(tasks.map((t) => [t.id, t.directive]));
      expect(() => engine.fanOut(engine.freeze(parentSession(tools)), tasks, { onResult: 'log' } as never)).toThrow(
        'ForkEngine.fanOut: options.onResult must be a function',
      );
    });
  });

  it('refuses tasks that are not iterable, saying what it takes', async () => {
    await withEngine({}, async (engine) => {
      expect(() => engine.fanOut(engine.freeze(parentSession(tools)), 42 as never)).toThrow(
        'ForkEngine.fanOut: tasks must be an array, an iterable or an async iterable of tasks',
      );
    });
  });
});
