import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, InputError } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { openAIChatSession, parentSession } from './support/engine-fixtures.js';

/*
 * One fork without a fan-out (issue 23): ForkEngine.runFork takes the path a fan-out's fork takes
 * (channel, tools, gate, job on the pool) with none of a run's scheduling or accounting. A queue
 * worker runs each job's fork so.
 */

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

describe('ForkEngine.runFork', () => {
  it('runs one fork of the prefix and reports its events; a bad task is an InputError naming it', async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1 });
    try {
      const prefix = engine.freeze(parentSession([], { marker: 'MARKER-1F1F', words: 20 }));
      const events: string[] = [];
      const single = engine.runFork(
        prefix,
        { id: 'one', directive: 'RECALL MARKER-[0-9A-F]{4}' },
        { onEvent: (e) => events.push(e.type === 'transcript' ? e.type : `${e.type} ${e.turn}`) },
      );
      const result = await single.result;
      expect(result).toMatchObject({ id: 'one', status: 'completed', turns: 1 });
      expect(result.text).toContain('MARKER-1F1F');
      expect(events).toEqual(['response_start 1', 'turn 1']);
      expect(() => engine.runFork(prefix, { id: 'bad' } as never)).toThrow(InputError);
      expect(() => engine.runFork(prefix, { id: 'bad' } as never)).toThrow(/^task\.directive: is required/);
    } finally {
      await engine.close();
    }
  });

  it("follows the plan it is given (a coordinator's), and cancel ends the fork cancelled", async () => {
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', apiKey: 'sk-test-not-real', baseUrl: `${server.url}/v1` },
      threads: 1,
    });
    try {
      const prefix = engine.freeze(openAIChatSession([], { words: 20 }));
      const start = server.requests.length;
      const given = await engine.runFork(
        prefix,
        { id: 'keyed', directive: 'REPLY ok' },
        {
          plan: {
            provider: 'openai',
            shape: 'openai-chat',
            request: { mechanism: 'cache-key', key: 'the-coordinators-key' },
            explicit: false,
            readable: { after: 'response-start', buildMs: 0, required: false, fromParent: true },
            rules: { minCacheTokens: 1024, cacheBlockTokens: 128, toMarkerOnly: false },
            effective: 'implicit',
          },
        },
      ).result;
      expect(given.status).toBe('completed');
      const body = JSON.parse(server.requests.slice(start).find((r) => r.route === 'chat.completions')?.body ?? '{}') as {
        prompt_cache_key?: string;
      };
      expect(body.prompt_cache_key).toBe('the-coordinators-key');

      const slow = engine.runFork(prefix, { id: 'slow', directive: 'SLEEP 30000\nREPLY late' });
      setTimeout(() => slow.cancel(), 300);
      expect(await slow.result).toMatchObject({ id: 'slow', status: 'cancelled' });
    } finally {
      await engine.close();
    }
  });
});
