import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkResult } from '../src/index.js';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { openAIChatSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * What a run costs in dollars, and a cap on it: every call is priced at the model's price (a run's
 * own, else forkpool's table with its source) as it returns; reached, the cap stops the run as the
 * token budget does. Against `forkpool serve` in another process, through the openai SDK.
 */

const KEY = 'sk-cost-never-printed';
const log: ToolLog = { calls: [] };
const tools = testTools(log);
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cost-'));
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await server.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const PRICE = { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 30 };
/** The price's formula, by hand: uncached input, cache reads and writes, output; USD per million tokens. */
const byHand = (r: ForkResult): number => {
  const cached = r.usage.cachedTokens ?? 0;
  const written = r.usage.cacheWriteTokens ?? 0;
  return (
    ((r.usage.promptTokens - cached - written) * PRICE.input +
      cached * PRICE.cachedInput +
      written * PRICE.cacheWrite +
      r.usage.outputTokens * PRICE.output) /
    1e6
  );
};

async function withEngine<T>(
  options: Partial<Parameters<typeof ForkEngine.create>[0]>,
  body: (engine: ForkEngine) => Promise<T>,
): Promise<T> {
  const engine = await ForkEngine.create({
    provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: KEY },
    threads: 2,
    tools,
    ...options,
  });
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}

const session = (model: string, marker = 'MARKER-C057') => ({ ...openAIChatSession(tools, { marker }), model });
const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, directive: `Part ${i}.\nREPLY done` }));

describe('the cost of a run', () => {
  it("prices every fork at the table's price for the model, and the report sums them with the price's source", async () => {
    await withEngine({}, async (engine) => {
      const run = engine.fanOut(engine.freeze(session('gpt-5.6-sol')), tasks(4));
      const results = await run.results();
      const report = run.report();
      for (const r of results) expect(r.costUsd).toBeCloseTo(byHand(r), 12);
      expect(report.cost?.usd).toBeCloseTo(
        results.reduce((sum, r) => sum + byHand(r), 0),
        12,
      );
      expect(report.cost).toMatchObject({ model: 'gpt-5.6-sol', read: '2026-12-02', uncachedPricedCalls: 0 });
      expect(report.cost?.source).toContain('developers.openai.com/api/docs/pricing');
    });
  });

  it("a run's own price wins over the table; a model with no price has no cost", async () => {
    await withEngine({ prices: { 'gpt-5.6': { input: 1, cachedInput: 1, output: 1 } } }, async (engine) => {
      const run = engine.fanOut(engine.freeze(session('gpt-5.6-sol')), tasks(1));
      const [r] = await run.results();
      if (!r) throw new Error('one result');
      expect(r.costUsd).toBeCloseTo((r.usage.promptTokens + r.usage.outputTokens) / 1e6, 12);
      expect(run.report().cost?.source).toBeUndefined();
    });
    await withEngine({}, async (engine) => {
      const run = engine.fanOut(engine.freeze(session('gpt-4.1-mini')), tasks(1));
      const [r] = await run.results();
      expect(r?.costUsd).toBeUndefined();
      expect(run.report().cost).toBeUndefined();
    });
  });
});

describe('a cost cap', () => {
  it('stops the run once reached: queued forks cancelled for the budget, the overshoot no more than the calls in flight', async () => {
    await withEngine({ concurrency: 2, prices: { 'gpt-5.6-sol': PRICE } }, async (engine) => {
      // One fork costs about this much (its first call: the whole prefix uncached or written).
      const probe = await engine.fanOut(engine.freeze(session('gpt-5.6-sol')), tasks(1)).results();
      const one = probe[0]?.costUsd ?? Number.NaN;
      expect(one).toBeGreaterThan(0);
      const cap = one * 3.5;
      const capped = await withEngine({ concurrency: 2, maxCost: cap, prices: { 'gpt-5.6-sol': PRICE } }, async (engine2) => {
        const run = engine2.fanOut(engine2.freeze(session('gpt-5.6-sol')), tasks(30));
        return { results: await run.results(), report: run.report() };
      });
      const { results, report } = capped;
      const cancelled = results.filter((r) => r.status === 'cancelled');
      expect(cancelled.length).toBeGreaterThan(10);
      for (const r of cancelled) expect(r.status === 'cancelled' && r.error.kind).toBe('budget');
      expect(cancelled[0]?.status === 'cancelled' && cancelled[0].error.message).toContain("the run's cost cap was reached");
      expect(report.budget?.spent).toBe(true);
      expect(report.budget?.maxCost).toBe(cap);
      expect(report.budget?.spentUsd).toBeGreaterThanOrEqual(cap);
      // Past the cap only by what was in flight: two forks at a time, each a call of about `one`.
      expect(report.budget?.overshootUsd).toBeLessThanOrEqual(2 * one * 1.5);
      expect(report.budget?.spentUsd).toBeCloseTo(
        results.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
        12,
      );
    });
  });

  it('is refused for a model without a price, naming the option that gives one', async () => {
    await withEngine({ maxCost: 1 }, async (engine) => {
      expect(() => engine.fanOut(engine.freeze(session('gpt-4.1-mini')), tasks(1))).toThrow(
        /options\.maxCost needs the price of openai model "gpt-4\.1-mini".*options\.prices/,
      );
    });
    const provider = { kind: 'openai' as const, baseUrl: `${server.url}/v1`, apiKey: KEY };
    await expect(ForkEngine.create({ provider, maxCost: -1 })).rejects.toThrow('options.maxCost must be a positive number, got -1');
    await expect(ForkEngine.create({ provider, prices: { m: { input: 1, output: 1 } } as never })).rejects.toThrow(
      /options\.prices\.m\.cachedInput/,
    );
  });
});

describe('the CLI', () => {
  const TASKS = writeTasks(tmp, tasks(12));
  const sessionFile = join(tmp, 'session.json');
  // A prefix of its own: cold on the shared server, so its first fork pays the whole prefix.
  writeFileSync(sessionFile, JSON.stringify(session('gpt-5.6-sol', 'MARKER-C11')));

  it('--max-cost with --prices stops the run, says so in the summary, and prices each --out line', async () => {
    const prices = join(tmp, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'gpt-5.6-sol': PRICE }));
    const out = join(tmp, 'capped.jsonl');
    const run = await runCli(
      [
        'run',
        '--session',
        sessionFile,
        '--tasks',
        TASKS,
        '--provider',
        'openai',
        '--base-url',
        `${server.url}/v1`,
        '--concurrency',
        '1',
        '--max-cost',
        '0.01',
        '--prices',
        prices,
        '--out',
        out,
      ],
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(run.stderr).not.toContain(KEY);
    expect(run.stdout).toMatch(/budget .*of a \$0\.01 cap/);
    expect(run.stdout).toMatch(/cost {7}\$\d/);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    const ran = lines.filter((l) => typeof l.costUsd === 'number');
    expect(ran.length).toBeGreaterThan(0);
    expect(lines.some((l) => l.status === 'cancelled')).toBe(true);
  });

  it('a price file that is wrong is a usage error naming the file and the field', async () => {
    const bad = join(tmp, 'bad-prices.json');
    writeFileSync(bad, JSON.stringify({ 'gpt-5.6-sol': { input: 'five', cachedInput: 0.5, output: 30 } }));
    const run = await runCli(['run', '--session', sessionFile, '--tasks', TASKS, '--prices', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--prices ${bad}: ["gpt-5.6-sol"]["input"]`);
    const notAmount = await runCli(['run', '--session', sessionFile, '--tasks', TASKS, '--max-cost', '5$']);
    expect(notAmount.code).toBe(2);
    expect(notAmount.stderr).toContain('--max-cost: a positive amount in US dollars');
  });

  it('--max-cost for a model without a price is a usage error before --out or the journal is opened', async () => {
    const out = join(tmp, 'unpriced.jsonl');
    const run = await runCli([
      'run',
      '--session',
      sessionFile,
      '--tasks',
      TASKS,
      '--model',
      'no-such-model-7',
      '--max-cost',
      '1',
      '--out',
      out,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-cost: forkpool has no price for local model "no-such-model-7": give it with --prices FILE');
    expect(() => readFileSync(out)).toThrow();
    expect(() => readFileSync(`${out}.journal`)).toThrow();
  });
});
