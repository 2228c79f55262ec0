import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, ForkpoolError } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { openAIChatSession } from './support/engine-fixtures.js';

/*
 * startThreads: 'ahead' (the default): ForkEngine.create resolves once every worker thread has
 * loaded the fork worker and the run's provider, seen through a provider module of one's own that
 * records each thread that imports it; a thread that cannot start is a clear error, not a hang.
 * (test/worker-loads.test.ts shows the provider's SDK loaded in every thread before the first fork.)
 */

const RECORDED = new URL('./fixtures/providers/recorded.mjs', import.meta.url).href;
const UNSTARTABLE = new URL('./fixtures/providers/unstartable.mjs', import.meta.url).href;
let server: LocalServer;
let dir: string;
beforeAll(async () => {
  server = await startLocalServer({});
  dir = mkdtempSync(join(tmpdir(), 'forkpool-start-threads-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ForkEngine.create with startThreads 'ahead'", () => {
  it('resolves after every thread has loaded the run’s provider, then runs forks on them', async () => {
    const log = join(dir, 'threads.log');
    process.env.FORKPOOL_TEST_THREAD_LOG = log;
    const engine = await ForkEngine.create({ provider: { kind: 'acme-recorded', module: RECORDED, baseUrl: server.url }, threads: 2 });
    try {
      const started = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(new Set(started).size).toBe(2);
      expect(started).toHaveLength(2);
      const results = await engine
        .fanOut(engine.freeze(openAIChatSession([], { words: 50 })), [{ id: 'a', directive: 'REPLY a' }])
        .results();
      expect(results.map((r) => r.status)).toEqual(['completed']);
      // The fork ran on a thread already started: no thread loaded the provider again.
      expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(started);
    } finally {
      delete process.env.FORKPOOL_TEST_THREAD_LOG;
      await engine.close();
    }
  });

  it('rejects with a ForkpoolError coded thread_start_failed, carrying the thread’s error, when a thread cannot load the provider', async () => {
    const error: unknown = await ForkEngine.create({
      provider: { kind: 'acme-unstartable', module: UNSTARTABLE, baseUrl: server.url },
      threads: 2,
    }).then(
      (engine) => engine.close(),
      (e: unknown) => e,
    );
    expect(ForkpoolError.isInstance(error) && error.code).toBe('thread_start_failed');
    expect((error as Error).message).toMatch(
      /^ForkEngine\.create: a worker thread failed to start: .*acme-unstartable cannot load in a worker thread/,
    );
  });

  it("with 'on-demand' resolves without waiting for the threads, whose first fork loads the provider", async () => {
    const engine = await ForkEngine.create({
      provider: { kind: 'acme-recorded', module: RECORDED, baseUrl: server.url },
      threads: 1,
      startThreads: 'on-demand',
    });
    try {
      const results = await engine
        .fanOut(engine.freeze(openAIChatSession([], { words: 50 })), [{ id: 'a', directive: 'REPLY a' }])
        .results();
      expect(results.map((r) => r.status)).toEqual(['completed']);
    } finally {
      await engine.close();
    }
  });

  it('refuses a value it does not know, naming the option', async () => {
    await expect(
      // @ts-expect-error: not one of the option's values
      ForkEngine.create({ provider: { kind: 'local', baseUrl: server.url }, startThreads: 'eager' }),
    ).rejects.toThrow(/options\.startThreads/);
  });
});
