import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { filler, parentSession } from './support/engine-fixtures.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ maxBodyBytes: 64 << 20 });
});
afterAll(async () => {
  await server.close();
});

describe('engine at scale and under failure', () => {
  it('runs 200 forks over a 1 MiB prefix, parsing the prefix at most once per worker', async () => {
    const threads = 2;
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads, concurrency: 32 });
    try {
      const session = parentSession([], { words: 10 });
      session.history.unshift(
        { role: 'user', parts: [{ text: filler(160_000, 'bulk') }] },
        { role: 'model', parts: [{ text: 'Read it.' }] },
      );
      const prefix = engine.freeze(session);
      expect(prefix.byteLength).toBeGreaterThan(1 << 20);
      const tasks = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, directive: `REPLY fork ${i}` }));
      const results = await engine.fanOut(prefix, tasks).results();
      expect(results.filter((r) => r.status === 'completed')).toHaveLength(200);
      expect(results.map((r) => r.text)).toEqual(tasks.map((_, i) => `fork ${i}`));
      const decoders = results.filter((r) => r.worker.decodedPrefix).map((r) => r.worker.threadId);
      expect(decoders.length).toBeGreaterThanOrEqual(1);
      expect(decoders.length).toBeLessThanOrEqual(threads);
      expect(new Set(decoders).size).toBe(decoders.length);
    } finally {
      await engine.close();
    }
  });

  it('a worker that dies fails only its own forks, and the pool keeps serving', async () => {
    // A 48 MB heap cannot hold a ~48 MB answer: the worker running that fork dies. (24 MB and a
    // ~24 MB answer were too close to what a worker holds before any answer on Node 24: an
    // ordinary fork, too, sometimes hit the limit.)
    // One fork at a time: the first has ended before the crash (with forks side by side, a loaded
    // machine could leave it still running on the worker that dies, a race and not the rule tested),
    // and the last can run only if the crashed fork's one slot at the call gate came back.
    const engine = await ForkEngine.create({
      provider: { kind: 'local', url: server.url },
      threads: 2,
      concurrency: 1,
      resourceLimits: { maxOldGenerationSizeMb: 48 },
    });
    try {
      const prefix = engine.freeze(parentSession([], { words: 10 }));
      const results = await engine
        .fanOut(prefix, [
          { id: 'ok-first', directive: 'REPLY warm' },
          { id: 'boom', directive: 'TOKENS 12000000' },
          { id: 'ok-last', directive: 'REPLY fine' },
        ])
        .results();
      const boom = results.find((r) => r.id === 'boom');
      expect(boom).toMatchObject({ status: 'failed', error: { kind: 'worker_crash' } });
      expect(boom?.status === 'failed' && boom.error.message).toMatch(/memory limit/);
      // Forks that shared the dead worker may fail with it; none may hang, and the first one finished before.
      expect(results.find((r) => r.id === 'ok-first')?.status).toBe('completed');
      for (const r of results) if (r.status === 'failed') expect(r.error.kind).toBe('worker_crash');
      const again = await engine.fanOut(prefix, [{ id: 'after', directive: 'REPLY still serving' }]).results();
      expect(again[0]).toMatchObject({ status: 'completed', text: 'still serving' });
    } finally {
      await engine.close();
    }
  });

  it('engine.close() leaves no open handles: a process that used the engine exits by itself', () => {
    const script = fileURLToPath(new URL('./fixtures/engine/close-and-exit.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.error).toBeUndefined();
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual(['completed', 'cancelled']);
  });
});
