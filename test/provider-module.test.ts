import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { openAIChatSession } from './support/engine-fixtures.js';

/*
 * Adding a provider touches its own module and nothing else (issue 23): a made-up provider,
 * test/fixtures/providers/acme.mjs, registered by URL and run on real worker threads (each imports
 * the module itself) against the local simulator. Its cache rules and request decoration reach the
 * wire and the report; the engine has no line for it.
 */

const ACME = new URL('./fixtures/providers/acme.mjs', import.meta.url).href;
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

describe("a provider of one's own", () => {
  it('runs forks through its own client and plan: its cache key on every request, its rules in the report', async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'acme', module: ACME, baseUrl: server.url }, threads: 2 });
    const start = server.requests.length;
    try {
      const prefix = engine.freeze(openAIChatSession([], { marker: 'MARKER-ACME', words: 600 }));
      const run = engine.fanOut(prefix, [
        { id: 'a', directive: 'RECALL MARKER-[A-Z]{4}' },
        { id: 'b', directive: 'REPLY b' },
        { id: 'c', directive: 'REPLY c' },
      ]);
      const results = await run.results();
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
      expect(results[0]?.text).toContain('MARKER-ACME');
      const bodies = server.requests
        .slice(start)
        .filter((r) => r.route === 'chat.completions')
        .map((r) => JSON.parse(r.body) as Record<string, unknown>);
      expect(bodies).toHaveLength(3);
      // The plan's decoration (a cache key), and the client's own request (not streamed).
      expect(new Set(bodies.map((b) => b.prompt_cache_key))).toEqual(new Set([`acme-${prefix.id.slice(0, 16)}`]));
      expect(bodies.every((b) => b.stream === false)).toBe(true);
      const report = run.report();
      expect(report.cache.note).toBe('acme: requests routed by key; hits in 32-token steps from 256 tokens');
      // The maximum follows acme's steps of 32 tokens, per fork.
      expect(report.perFork.every((f) => f.theoreticalCachedTokens % 32 === 0)).toBe(true);
      expect(report.theoreticalCachedTokens).toBeGreaterThan(0);
      expect(report.cachedTokens).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });

  it('checks its options by its own keys, and says what is wrong', async () => {
    await expect(ForkEngine.create({ provider: { kind: 'acme', module: ACME } })).rejects.toThrow(
      "ForkEngine: options.provider { kind: 'acme' } needs baseUrl",
    );
    await expect(ForkEngine.create({ provider: { kind: 'acme', module: ACME, baseUrl: server.url, apiKey: 'k' } })).rejects.toThrow(
      'ForkEngine: options.provider.apiKey is not an option (known: kind, module, baseUrl, apiKeyEnv)',
    );
  });

  it('a fork cancelled or out of time aborts its call with an AbortError that says which', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forkpool-abort-probe-'));
    const out = join(dir, 'calls.jsonl');
    const probe = new URL('./fixtures/providers/abort-probe.mjs', import.meta.url).href;
    const lines = (): Record<string, unknown>[] => {
      try {
        return readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      } catch {
        return [];
      }
    };
    const session = openAIChatSession([], { words: 50 });
    try {
      const cancelling = await ForkEngine.create({ provider: { kind: 'abort-probe', module: probe, out }, threads: 1 });
      try {
        const run = cancelling.fanOut(cancelling.freeze(session), [{ id: 'a', directive: 'REPLY a' }]);
        // Cancelled once its call is in flight (the probe's call has written its first line).
        for (let i = 0; i < 500 && lines().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(run.cancel('a')).toBe(true);
        expect((await run.results()).map((r) => r.status)).toEqual(['cancelled']);
      } finally {
        await cancelling.close();
      }
      const timing = await ForkEngine.create({ provider: { kind: 'abort-probe', module: probe, out }, threads: 1, timeoutMs: 200 });
      try {
        const [result] = await timing.fanOut(timing.freeze(session), [{ id: 'b', directive: 'REPLY b' }]).results();
        expect(result).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
      } finally {
        await timing.close();
      }
      // An AbortError, as the SDKs know a caller's abort (another error would have @google/genai resume its stream).
      expect(lines()).toEqual([
        { started: true },
        { name: 'AbortError', message: 'the fork was cancelled', isError: true },
        { started: true },
        { name: 'AbortError', message: 'the fork timed out', isError: true },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a module that exports no provider, or one that would replace a built-in kind', async () => {
    const broken = new URL('./fixtures/providers/not-a-provider.mjs', import.meta.url).href;
    await expect(ForkEngine.create({ provider: { kind: 'broken', module: broken } })).rejects.toThrow(
      /options\.provider\.module ".*not-a-provider\.mjs" could not be loaded: .*must be a ProviderModule/,
    );
    const clash = new URL('./fixtures/providers/clash.mjs', import.meta.url).href;
    await expect(ForkEngine.create({ provider: { kind: 'openai', module: clash, baseUrl: server.url } })).rejects.toThrow(
      /kind 'openai' is already registered \(built in\)/,
    );
  });
});
