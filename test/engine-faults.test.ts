// Internal: createToolHost and DEFAULT_TOOL_TIMEOUT_MS (src/tools/host.ts): the tool host is built by the engine, whose tools' timeoutMs is its public face; everything else comes through forkpool and forkpool/local-server.
import { afterEach, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkEngineOptions } from '../src/index.js';
import { startLocalServer, type LocalServer, type LocalServerOptions } from '../src/local-server/index.js';
import { parentSession } from './support/engine-fixtures.js';

const open: { server: LocalServer; engine: ForkEngine }[] = [];
afterEach(async () => {
  for (const { server, engine } of open.splice(0)) {
    await engine.close();
    await server.close();
  }
});

/** Fast backoff for tests: the server's Retry-After is honoured but capped by maxDelayMs. */
const quickRetry = { baseDelayMs: 5, maxDelayMs: 20 };

async function setup(serverOptions: LocalServerOptions = {}, engineOptions: ForkEngineOptions = {}) {
  const server = await startLocalServer(serverOptions);
  const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, retry: quickRetry, ...engineOptions });
  open.push({ server, engine });
  return { server, engine, prefix: engine.freeze(parentSession([], { words: 10 })) };
}

describe('model call retries', () => {
  it('retries 429, 500 and 503 and completes; does not retry a 400', async () => {
    const { engine, prefix } = await setup();
    const results = await engine
      .fanOut(prefix, [
        { id: 'r429', directive: 'FAIL 429 x2\nREPLY after 429' },
        { id: 'r500', directive: 'FAIL 500 x1\nREPLY after 500' },
        { id: 'r503', directive: 'FAIL 503 x3\nREPLY after 503' },
        { id: 'r400', directive: 'FAIL 400\nREPLY never' },
      ])
      .results();
    expect(results.map((r) => [r.id, r.status, r.retries])).toEqual([
      ['r429', 'completed', 2],
      ['r500', 'completed', 1],
      ['r503', 'completed', 3],
      ['r400', 'failed', 0],
    ]);
    expect(results[3]).toMatchObject({ error: { kind: 'model_error', message: expect.stringContaining('HTTP 400') } });
  });

  it('stops after maxAttempts', async () => {
    const { engine, prefix } = await setup({}, { retry: { ...quickRetry, maxAttempts: 3 } });
    const [result] = await engine.fanOut(prefix, [{ id: 'attempts', directive: 'FAIL 503 x10\nREPLY never' }]).results();
    expect(result).toMatchObject({ status: 'failed', retries: 2, error: { kind: 'model_error' } });
    expect(result?.status === 'failed' && result.error.message).toMatch(/HTTP 503/);
  });

  it('stops when a fork has spent its own retry budget', async () => {
    const { engine, prefix } = await setup({}, { retry: { ...quickRetry, maxAttempts: 10, forkBudget: 1 } });
    const [result] = await engine.fanOut(prefix, [{ id: 'budget', directive: 'FAIL 500 x5\nREPLY never' }]).results();
    expect(result).toMatchObject({ status: 'failed', retries: 1 });
    expect(result?.status === 'failed' && result.error.message).toMatch(/retry budget exhausted/);
  });

  it('shares a global retry budget across forks', async () => {
    const { engine, prefix } = await setup({}, { globalRetryBudget: 2, threads: 1, concurrency: 1 });
    const results = await engine
      .fanOut(prefix, [
        { id: 'a', directive: 'FAIL 500 x1\nREPLY a' },
        { id: 'b', directive: 'FAIL 500 x1\nREPLY b' },
        { id: 'c', directive: 'FAIL 500 x1\nREPLY c' },
      ])
      .results();
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'failed']);
    expect(results.reduce((n, r) => n + r.retries, 0)).toBe(2);
  });

  it('completes every fork under injected 429s, 500s, dropped connections and malformed bodies', async () => {
    const { engine, prefix, server } = await setup(
      { faults: '429=0.15,500=0.1,drop=0.1,malformed=0.1,seed=3' },
      { retry: { ...quickRetry, maxAttempts: 12 } },
    );
    const tasks = Array.from({ length: 40 }, (_, i) => ({ id: `f${i}`, directive: `REPLY fork ${i}` }));
    const run = engine.fanOut(prefix, tasks);
    const results = await run.results();
    expect(results.map((r) => r.status)).toEqual(Array(40).fill('completed'));
    expect(results.map((r) => r.text)).toEqual(tasks.map((_, i) => `fork ${i}`));
    expect(run.report().retries).toBeGreaterThan(0);
    expect(server.metrics().requests.some((r) => r.status === 429)).toBe(true);
  });
});

describe('tools that misbehave', () => {
  it('bounds a hanging tool by its timeout; the fork hears of it and goes on', async () => {
    const { defineTool } = await import('../src/index.js');
    const { z } = await import('zod');
    const hang = defineTool({
      name: 'hang',
      description: 'Never returns.',
      parameters: z.object({}),
      timeoutMs: 50,
      execute: () => new Promise(() => undefined),
    });
    const server = await startLocalServer({ captureRequests: true });
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [hang] });
    open.push({ server, engine });
    const session = parentSession([hang], { words: 10 });
    const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'h', directive: 'CALL hang {}\nREPLY went on' }]).results();
    expect(result).toMatchObject({ status: 'completed', text: 'went on', toolCalls: 1 });
    const told = server.requests.map((r) => r.body).join('\n');
    expect(told).toContain('hang did not finish within 50 ms.');
  });
});

describe('the worker’s bound on a tool call', () => {
  it('is the longest tool timeout of the engine, never shorter than the default', async () => {
    const { defineTool } = await import('../src/index.js');
    const { createToolHost, DEFAULT_TOOL_TIMEOUT_MS } = await import('../src/tools/host.js');
    const { z } = await import('zod');
    const make = (name: string, timeoutMs?: number) =>
      defineTool({ name, description: name, parameters: z.object({}), execute: () => null, ...(timeoutMs ? { timeoutMs } : {}) });
    expect(createToolHost([]).longestTimeoutMs).toBe(DEFAULT_TOOL_TIMEOUT_MS);
    expect(createToolHost([make('quick', 50), make('plain')]).longestTimeoutMs).toBe(DEFAULT_TOOL_TIMEOUT_MS);
    expect(createToolHost([make('slow', 120_000), make('plain')]).longestTimeoutMs).toBe(120_000);
  });
});
