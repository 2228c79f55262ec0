import { afterEach, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession } from './support/engine-fixtures.js';

/* Cold-cache fan-outs against a local server with realistic latency: prefill takes time, and blocks
   are admitted only when a request's prefill ends, as on real providers. */

const open: { server: LocalServer; engine: ForkEngine }[] = [];
afterEach(async () => {
  for (const { server, engine } of open.splice(0)) {
    await engine.close();
    await server.close();
  }
});

async function coldFanOut(options: { warmup: 'auto' | 'none'; cache: 'implicit' | 'explicit' }) {
  const server = await startLocalServer({ latency: 'realistic', captureRequests: true });
  const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, ...options });
  open.push({ server, engine });
  const session = parentSession([], { words: 2500, marker: 'MARKER-4040' });
  const prefix = engine.freeze(session);
  const tasks = Array.from({ length: 16 }, (_, i) => ({ id: `f${i}`, directive: `Part ${i}.\nRECALL MARKER-\\d{4}` }));
  const run = engine.fanOut(prefix, tasks);
  const results = await run.results();
  return { server, session, results, report: run.report() };
}

describe('prompt-cache reuse on a cold cache, 16 forks', () => {
  it("warmup 'auto' reaches an efficiency of at least 0.95; 'none' loses the cold start", async () => {
    const auto = await coldFanOut({ warmup: 'auto', cache: 'implicit' });
    expect(auto.results.every((r) => r.status === 'completed' && r.text.includes('MARKER-4040'))).toBe(true);
    expect(auto.report.theoreticalCachedTokens).toBeGreaterThan(15 * 3000);
    expect(auto.report.efficiency).toBeGreaterThanOrEqual(0.95);

    const none = await coldFanOut({ warmup: 'none', cache: 'implicit' });
    expect(none.results.every((r) => r.status === 'completed')).toBe(true);
    expect(none.report.theoreticalCachedTokens).toBe(auto.report.theoreticalCachedTokens);
    expect(none.report.efficiency).toBeLessThan(0.5);
  });

  it("cache 'explicit' reaches 1.0 and keeps the history out of every request body", async () => {
    const explicit = await coldFanOut({ warmup: 'auto', cache: 'explicit' });
    expect(explicit.results.every((r) => r.status === 'completed' && r.text.includes('MARKER-4040'))).toBe(true);
    const { storage, ...mode } = explicit.report.cache;
    expect(mode).toEqual({ requested: 'explicit', effective: 'explicit' });
    // The one cache, kept from its creation to its deletion at the end of the run.
    expect(storage).toMatchObject({ caches: 1, tokens: expect.any(Number), tokenHours: expect.any(Number) });
    expect(explicit.report.efficiency).toBe(1);
    const generate = explicit.server.requests.filter((r) => r.route === 'streamGenerateContent');
    expect(generate).toHaveLength(16);
    const historyText = explicit.session.history[0]?.parts[0]?.text as string;
    for (const request of generate) {
      expect(request.body).not.toContain(historyText);
      expect(request.body).not.toContain('systemInstruction');
      expect(JSON.parse(request.body).cachedContent).toMatch(/^cachedContents\//);
    }
    // The cache was deleted at the end of the run.
    expect(explicit.server.requests.filter((r) => r.route === 'cachedContents.delete')).toHaveLength(1);
    expect(explicit.server.metrics().explicitCaches).toBe(0);
  });

  it('falls back to implicit caching, and says so, when the prefix is under the minimum', async () => {
    const server = await startLocalServer({});
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, cache: 'explicit' });
    open.push({ server, engine });
    const run = engine.fanOut(engine.freeze({ model: 'm', history: [] }), [{ id: 'tiny', directive: 'REPLY ok' }]);
    const [result] = await run.results();
    expect(result?.status).toBe('completed');
    expect(run.report().cache.effective).toBe('implicit');
    expect(run.report().cache.note).toMatch(/under the minimum cacheable size of 1024/);
  });
});

describe('explicit caching around failures', () => {
  it('a fork-child session in explicit mode fails each fork by name instead of hanging the run', async () => {
    const server = await startLocalServer({});
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, cache: 'explicit' });
    open.push({ server, engine });
    const base = parentSession([], { words: 2500 });
    const child = {
      ...base,
      history: [
        { role: 'user' as const, parts: [{ text: '<fork-boilerplate>\nrules\n</fork-boilerplate>\nDirective: x' }] },
        ...base.history.slice(1),
      ],
    };
    const run = engine.fanOut(engine.freeze(child), [
      { id: 'a', directive: 'REPLY a' },
      { id: 'b', directive: 'REPLY b' },
    ]);
    const results = await run.results();
    expect(results.map((r) => r.status === 'failed' && r.error.kind)).toEqual(['rejected', 'rejected']);
    expect(run.report().cache.effective).toBe('implicit');
    expect(run.report().cache.note).toMatch(/fell back to implicit: .*fork/i);
  });

  it('cancelling every fork while the cache is being made still deletes the cache', async () => {
    const server = await startLocalServer({ latency: 'realistic', captureRequests: true });
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, cache: 'explicit' });
    open.push({ server, engine });
    const run = engine.fanOut(engine.freeze(parentSession([], { words: 2500 })), [{ id: 'a', directive: 'REPLY a' }]);
    run.cancelAll();
    const [result] = await run.results();
    expect(result?.status).toBe('cancelled');
    await engine.close();
    const routes = server.requests.map((r) => r.route);
    expect(routes.filter((r) => r === 'cachedContents.create').length).toBe(routes.filter((r) => r === 'cachedContents.delete').length);
    expect(server.metrics().explicitCaches).toBe(0);
  });
});
