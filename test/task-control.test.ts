import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { parentSession } from './support/engine-fixtures.js';

/*
 * The library's side of task_stop and send_message (issue 26): `run.stop(id)` and
 * `run.send(id, message)` on a fan-out, against `forkpool serve` in another process.
 */

let server: ServeProcess;
let engine: ForkEngine;
beforeAll(async () => {
  server = await startServe();
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, concurrency: 1, warmup: 'none' });
});
afterAll(async () => {
  await engine.close();
  await server.stop();
});

const prefix = () => engine.freeze(parentSession([], { words: 10 }));
const later = <T>(ms: number, fn: () => T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

describe('run.send and run.stop', () => {
  it('a message reaches a running fork at its next turn boundary, and one sent to a queued fork when it starts', async () => {
    // One fork at a time: "queued" waits for "running" to end, and has the message when it starts.
    const run = engine.fanOut(prefix(), [
      { id: 'running', directive: 'SLEEP 800\nRECALL parent agent\\]: \\S+' },
      { id: 'queued', directive: 'RECALL parent agent\\]: \\S+' },
    ]);
    const sent = await later(200, () => [run.send('running', 'to-running'), run.send('queued', 'to-queued')]);
    expect(sent).toEqual([true, true]);
    const results = await run.results();
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('running')?.text).toContain('parent agent]: to-running');
    // It had answered without it first: the message got a turn of its own.
    expect(byId.get('running')?.turns).toBe(2);
    expect(byId.get('queued')?.text).toContain('parent agent]: to-queued');
    expect(run.send('running', 'too late')).toBe(false);
    expect(run.send('nobody', 'hello')).toBe(false);
  });

  it('stop ends one fork cancelled and leaves its sibling alone; a fork may not call task_stop or send_message itself', async () => {
    const run = engine.fanOut(prefix(), [
      { id: 'stopped', directive: 'SLEEP 30000' },
      { id: 'sibling', directive: 'CALL task_stop {"task_id":"stopped"}\nCALL send_message {"task_id":"stopped","message":"x"}\nREPLY tried' },
    ]);
    expect(await later(200, () => run.stop('stopped'))).toBe(true);
    const results = await run.results();
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('stopped')?.status).toBe('cancelled');
    expect(byId.get('sibling')?.status).toBe('completed');
    expect(byId.get('sibling')?.text).toBe('tried');
    expect(run.stop('stopped')).toBe(false);
    const refused = (await engine.fanOut(prefix(), [{ id: 'asks', directive: 'CALL task_stop {"task_id":"x"}\nRECALL Cannot spawn sub-agents [a-z ]+' }]).results())[0];
    expect(refused?.text).toContain('Cannot spawn sub-agents from within a fork');
  });
});
