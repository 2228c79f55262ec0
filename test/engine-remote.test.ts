// Internal: ForkJob (src/wire/protocol.ts) and connectHost (src/wire/fork-end.ts), the thread wire a remote pool is handed and its worker side: ForkEngine.createRemote's pool is internal (forkpool worker's); everything else comes through forkpool and forkpool/local-server. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHost } from '../src/wire/fork-end.js';
import type { ForkJob } from '../src/wire/protocol.js';
import { ForkEngine, loadSession, type ForkResult } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';

/*
 * What a distributed run needs of the engine: an engine whose forks go to another pool
 * (ForkEngine.createRemote), and the fan-out's onResponseStart.
 */

function completed(id: string): ForkResult {
  return {
    id,
    status: 'completed',
    text: `done ${id}`,
    turns: 1,
    toolCalls: 0,
    usage: { promptTokens: 100, cachedTokens: 0, outputTokens: 5 },
    durationMs: 1,
    retries: 0,
    calls: [{ promptTokens: 100, cachedTokens: 0, outputTokens: 5 }],
    worker: { threadId: -1, decodedPrefix: false },
  };
}

/** A pool that holds every job until the test settles it, reporting events through the job's port as a worker would. */
function heldPool() {
  const jobs: { job: ForkJob; host: ReturnType<typeof connectHost>; settle(result: ForkResult): void }[] = [];
  let closed = false;
  return {
    jobs,
    isClosed: () => closed,
    run(job: ForkJob): Promise<void> {
      if (!('port' in job.link)) throw new TypeError('a remote pool job brings its own port');
      const host = connectHost(job.link.port, () => undefined);
      return new Promise((resolve) => {
        jobs.push({
          job,
          host,
          // The result goes back on the fork's channel, behind its events, as a fork's thread sends it.
          settle: (result) => {
            host.end(result);
            resolve();
          },
        });
      });
    },
    async close() {
      closed = true;
    },
  };
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(ok()).toBe(true);
}

describe('ForkEngine.createRemote', () => {
  it("schedules forks on the given pool: the lead alone until its response begins, then the rest; the report is the engine's", async () => {
    const pool = heldPool();
    // A provider that would need a key: createRemote reads none and starts nothing.
    const engine = await ForkEngine.createRemote({ provider: { kind: 'gemini' }, concurrency: 10 }, pool);
    const prefix = freezePrefix(await loadSession('examples/session.json'));
    const run = engine.fanOut(prefix, [
      { id: 'a', directive: 'first' },
      { id: 'b', directive: 'second' },
      { id: 'c', directive: 'third' },
    ]);
    await until(() => pool.jobs.length === 1);
    // Still alone while the lead has not responded.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.jobs.map((j) => j.job.task.id)).toEqual(['a']);
    pool.jobs[0]?.host.report({ type: 'response_start', turn: 1 });
    await until(() => pool.jobs.length === 3);
    for (const j of pool.jobs) j.settle(completed(j.job.task.id));
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status, r.text])).toEqual([
      ['a', 'completed', 'done a'],
      ['b', 'completed', 'done b'],
      ['c', 'completed', 'done c'],
    ]);
    const report = run.report();
    expect(report.forks).toMatchObject({ total: 3, completed: 3 });
    expect(report.modelCalls).toBe(3);
    await engine.close();
    expect(pool.isClosed()).toBe(true);
  });

  it('refuses an explicit cache (it needs a model call on the coordinator)', async () => {
    await expect(ForkEngine.createRemote({ provider: { kind: 'local' }, cache: 'explicit' }, heldPool())).rejects.toThrow(/explicit/);
  });
});

describe('fanOut onResponseStart', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("is told when each fork's response begins, turn by turn", async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [] });
    try {
      const prefix = freezePrefix(await loadSession('examples/session.json'));
      const seen: [string, number][] = [];
      const run = engine.fanOut(
        prefix,
        [
          { id: 'x', directive: 'REPLY one' },
          { id: 'y', directive: 'REPLY two' },
        ],
        {
          onResponseStart: (taskId, turn) => seen.push([taskId, turn]),
        },
      );
      await run.results();
      expect(seen.sort()).toEqual([
        ['x', 1],
        ['y', 1],
      ]);
      expect(() => engine.fanOut(prefix, [], { onResponseStart: 'no' as never })).toThrow(/onResponseStart must be a function/);
    } finally {
      await engine.close();
    }
  });
});
