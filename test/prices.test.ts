import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkResult, type PriceTable, type RunReport } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { costOf, priceOf, type ModelPrice } from '../src/model/prices.js';
import { sumUsage } from '../src/result/results.js';
import { runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe } from './fixtures/cli/serve.js';
import { parentSession, testTools } from './support/engine-fixtures.js';

/*
 * What forkpool charges beyond flat per-token rates: a tier above a prompt size, chosen per call;
 * the storage of the explicit caches a run makes; and the dated prices of its own table. Against
 * the local server, through the @google/genai SDK, on real worker threads.
 */

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

async function withEngine<T>(
  options: Partial<Parameters<typeof ForkEngine.create>[0]>,
  body: (engine: ForkEngine) => Promise<T>,
): Promise<T> {
  const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, ...options });
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}

/** Two calls: the first asks for a tool, the second answers with its result in the prompt (a larger one). */
const TWO_CALLS = 'CALL lookup {"key":"tier"}\nREPLY done';
const tools = testTools({ calls: [] });

/** A call's cost by hand, at the given rates: uncached input, cache reads, output; USD per million tokens. */
const at = (
  call: { promptTokens: number; cachedTokens: number | null; outputTokens: number },
  rates: { input: number; cachedInput: number; output: number },
): number => {
  const cached = call.cachedTokens ?? 0;
  return ((call.promptTokens - cached) * rates.input + cached * rates.cachedInput + call.outputTokens * rates.output) / 1e6;
};

describe('a price with a tier above a prompt size', () => {
  it('prices each call at the tier of its own prompt, and a fork at the sum of its calls', async () => {
    const session = parentSession(tools, { words: 400, marker: 'MARKER-T1' });
    const probe = await withEngine({ tools }, (engine) =>
      engine.fanOut(engine.freeze(session), [{ id: 'probe', directive: TWO_CALLS }]).results(),
    );
    const [first, second] = probe[0]?.calls ?? [];
    if (first === undefined || second === undefined) throw new Error('the probe fork made two calls');
    expect(second.promptTokens).toBeGreaterThan(first.promptTokens);

    // Over the first call's prompt, under the second's: only the second is billed at the tier.
    const base = { input: 1, cachedInput: 0.25, output: 2 };
    const tier = { input: 10, cachedInput: 2.5, output: 20 };
    const price: ModelPrice = { ...base, tiers: [{ above: first.promptTokens, ...tier }] };
    const { results, report } = await withEngine({ tools, prices: { 'gemini-2.5-flash': price } }, async (engine) => {
      const run = engine.fanOut(engine.freeze(session), [
        { id: 't1', directive: TWO_CALLS },
        { id: 't2', directive: TWO_CALLS },
      ]);
      return { results: await run.results(), report: run.report() };
    });
    for (const r of results) {
      expect(r.status).toBe('completed');
      const [c1, c2] = r.calls;
      if (c1 === undefined || c2 === undefined) throw new Error(`${r.id} made two calls`);
      expect(c1.promptTokens).toBe(first.promptTokens);
      expect(r.costUsd).toBeCloseTo(at(c1, base) + at(c2, tier), 12);
      // Priced whole, the fork's summed prompt would put both calls at the tier.
      expect(costOf(sumUsage(r.calls), price).usd).toBeGreaterThan((r.costUsd ?? 0) * 1.5);
    }
    expect(report.cost?.usd).toBeCloseTo(
      results.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
      12,
    );
  });

  it("forkpool's table: gemini-2.5-pro's calls over 200k prompt tokens cost the page's higher rates; dated prices change on their day", () => {
    const pro = priceOf('gemini', 'models/gemini-2.5-pro');
    if (pro === undefined) throw new Error('gemini-2.5-pro has a price');
    const call = (promptTokens: number) => ({ promptTokens, cachedTokens: 1000, outputTokens: 500 });
    expect(costOf(call(200_000), pro).usd).toBeCloseTo(at(call(200_000), { input: 1.25, cachedInput: 0.125, output: 10 }), 12);
    expect(costOf(call(200_001), pro).usd).toBeCloseTo(at(call(200_001), { input: 2.5, cachedInput: 0.25, output: 15 }), 12);
    expect(pro.cacheStoragePerHour).toBe(4.5);
    expect(pro.source).toContain('ai.google.dev/gemini-api/docs/pricing');

    expect(priceOf('gemini', 'gemini-3.6-flash', {}, new Date('2026-12-31T23:59:00Z'))?.input).toBe(0.75);
    expect(priceOf('gemini', 'gemini-3.6-flash', {}, new Date('2027-01-01T00:00:00Z'))?.input).toBe(1.5);
    expect(priceOf('gemini', 'gemini-3.1-pro-preview')?.tiers).toEqual([{ above: 200_000, input: 4, cachedInput: 0.4, output: 18 }]);
    // A window of one's own does not hide the table's price.
    expect(priceOf('gemini', 'gemini-2.5-pro', { 'gemini-2.5-pro': { contextWindow: 1000 } })).toBe(pro);
  });
});

describe("a price table of one's own", () => {
  it('names the entry and the field that is wrong', async () => {
    const provider = { kind: 'local' as const, url: server.url };
    const tier = { above: 0, input: 1, cachedInput: 1, output: 1 };
    await expect(ForkEngine.create({ provider, prices: { m: { input: 1, cachedInput: 1, output: 1, tiers: [tier] } } })).rejects.toThrow(
      /options\.prices\.m\.tiers\[0\]\.above: /,
    );
    await expect(ForkEngine.create({ provider, prices: { m: {} } })).rejects.toThrow(
      /options\.prices\.m: an entry gives a price .* or a "contextWindow"/,
    );
    await expect(ForkEngine.create({ provider, prices: { m: { input: 1, contextWindow: 10 } } })).rejects.toThrow(
      /options\.prices\.m\.cachedInput: required: a price gives input, cachedInput and output/,
    );
  });
});

describe('explicit-cache storage', () => {
  const session = parentSession([], { words: 2500, marker: 'MARKER-S1' });
  const tasks = Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, directive: `Part ${i}.\nREPLY ok` }));

  async function explicitRun(prices: PriceTable): Promise<{ results: ForkResult[]; report: RunReport }> {
    return withEngine({ cache: 'explicit', prices }, async (engine) => {
      const run = engine.fanOut(engine.freeze(session), tasks);
      return { results: await run.results(), report: run.report() };
    });
  }

  it("is in the run's cost: the cache's tokens for the hours it lived, at the model's storage price", async () => {
    // A storage price high enough to show in a run of milliseconds.
    const perHour = 3_600_000;
    const { results, report } = await explicitRun({
      'gemini-2.5-flash': { input: 1, cachedInput: 0.1, output: 2, cacheStoragePerHour: perHour },
    });
    expect(report.cache.effective).toBe('explicit');
    const storage = report.cache.storage;
    if (storage === undefined) throw new Error('the run reports its cache storage');
    expect(storage.caches).toBe(1);
    expect(storage.tokens).toBeGreaterThan(2500);
    // Stored from its creation to its deletion at the end of the run: some time, never past its TTL.
    expect(storage.tokenHours).toBeGreaterThan(0);
    expect(storage.tokenHours).toBeLessThanOrEqual((storage.tokens * storage.ttlSeconds) / 3600);
    expect(storage.usd).toBeCloseTo((storage.tokenHours * perHour) / 1e6, 12);
    expect(report.cost?.storageUsd).toBe(storage.usd);
    const calls = results.reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
    expect(report.cost?.usd).toBeCloseTo(calls + (storage.usd ?? 0), 12);
    expect(server.requests.filter((r) => r.route === 'cachedContents.delete').length).toBeGreaterThan(0);
  });

  it('a price without a storage rate leaves storage out of the cost and says how long the caches were kept', async () => {
    const { results, report } = await explicitRun({ 'gemini-2.5-flash': { input: 1, cachedInput: 0.1, output: 2 } });
    expect(report.cache.storage?.caches).toBe(1);
    expect(report.cache.storage?.usd).toBeUndefined();
    expect(report.cost?.storageUsd).toBeUndefined();
    expect(report.cost?.usd).toBeCloseTo(
      results.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
      12,
    );
  });
});

describe('the CLI summary', () => {
  it('says what the explicit caches were stored for and what it cost, against forkpool serve', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'forkpool-storage-'));
    const serve = await startServe();
    try {
      const sessionFile = join(tmp, 'session.json');
      writeFileSync(sessionFile, JSON.stringify(parentSession([], { words: 3000, marker: 'MARKER-S2' })));
      const prices = join(tmp, 'prices.json');
      writeFileSync(
        prices,
        JSON.stringify({ 'gemini-2.5-flash': { input: 1, cachedInput: 0.1, output: 2, cacheStoragePerHour: 3_600_000 } }),
      );
      const tasks = writeTasks(tmp, [
        { id: 'a', directive: 'REPLY a' },
        { id: 'b', directive: 'REPLY b' },
      ]);
      const run = await runCli(
        [
          'run',
          '--session',
          sessionFile,
          '--tasks',
          tasks,
          '--provider',
          'gemini',
          '--base-url',
          serve.url,
          '--cache',
          'explicit',
          '--prices',
          prices,
        ],
        {
          env: { GEMINI_API_KEY: 'storage-test-key' },
        },
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^storage {4}[\d,]+ tokens in 1 explicit cache, stored [\d.e+-]+ token-hours: \$[\d.e+-]+, in the cost$/m);
      expect(run.stdout).toMatch(/^cost {7}\$/m);
    } finally {
      await serve.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
