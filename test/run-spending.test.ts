// Internal: RunSpending (src/engine/run/spending.ts), a fan-out's budget and cost; the maxTokens, maxCost and prices options and the report's budget and cost are its public face.
import { describe, expect, it } from 'vitest';
import { RunSpending, type SpendingLimits, type StopReason } from '../src/engine/run/spending.js';
import type { CallRecord, ForkResult } from '../src/result/fork-result.js';
import type { TokenUsage } from '../src/model/types.js';

/* Budget and cost: tokens and dollars as calls return, the rest at the fork's result, and the one moment a budget is spent. */

/** USD per million tokens: a million uncached input tokens cost $1, output $10. */
const PRICE = {
  model: 'priced-model',
  price: { input: 1, cachedInput: 0.1, output: 10, source: 'https://example.test/prices', read: '2026-12-01' },
};

const usage = (promptTokens: number, outputTokens: number, cachedTokens: number | null = 0): TokenUsage => ({
  promptTokens,
  cachedTokens,
  outputTokens,
});

function completed(id: string, calls: CallRecord[]): ForkResult {
  return {
    id,
    status: 'completed',
    text: 'done',
    turns: calls.length,
    toolCalls: 0,
    usage: {
      promptTokens: calls.reduce((s, c) => s + c.promptTokens, 0),
      cachedTokens: calls.reduce((s, c) => s + (c.cachedTokens ?? 0), 0),
      outputTokens: calls.reduce((s, c) => s + c.outputTokens, 0),
    },
    durationMs: 0,
    retries: 0,
    calls,
    worker: { threadId: 1, decodedPrefix: true },
  };
}

function harness(limits: Partial<SpendingLimits>) {
  const spent: { reason: StopReason; why: string }[] = [];
  const spending = new RunSpending(
    { maxTokens: undefined, maxTokensPerFork: undefined, maxCost: undefined, price: undefined, ...limits },
    (reason, why) => spent.push({ reason, why }),
  );
  return { spending, spent };
}

describe("a run's spending", () => {
  it('counts each call as it returns, and says once that the token budget is spent', () => {
    const h = harness({ maxTokens: 1_000 });
    h.spending.called(0, usage(400, 100));
    expect(h.spending.spent).toBe(false);
    h.spending.called(1, usage(400, 100));
    expect(h.spent).toEqual([{ reason: 'budget', why: "the run's token budget was spent (1000 of 1000 tokens) before it started" }]);
    expect(h.spending.spent).toBe(true);
    expect(h.spending.stopReason).toBe('budget');
    // Calls in flight still return, and count, but the run is told only once.
    h.spending.called(0, usage(400, 100));
    expect(h.spent).toHaveLength(1);
    expect(h.spending.budget(3)).toEqual({ maxTokens: 1_000, spentTokens: 1_500, spent: true, stoppedForks: 3 });
  });

  it("stops at the cost cap at the model's price, and the report says how far past it the calls in flight went", () => {
    const h = harness({ maxCost: 0.01, price: PRICE });
    // 4,000 input tokens ($0.004) and 500 output ($0.005): $0.009.
    h.spending.called(0, usage(4_000, 500));
    expect(h.spending.spent).toBe(false);
    h.spending.called(0, usage(1_000, 100));
    expect(h.spent).toEqual([{ reason: 'cost', why: "the run's cost cap was reached ($0.0110 of $0.01) before it started" }]);
    expect(h.spending.stopReason).toBe('cost');
    const budget = h.spending.budget(0);
    expect(budget).toMatchObject({ maxCost: 0.01, spentTokens: 5_600, spent: true, stoppedForks: 0 });
    expect(budget?.spentUsd).toBeCloseTo(0.011, 12);
    expect(budget?.overshootUsd).toBeCloseTo(0.001, 12);
  });

  it("counts at a fork's result what its turn events did not, and costs it call by call, leaving out the calls it read back from its transcript", () => {
    const h = harness({ price: PRICE });
    const first: CallRecord = usage(1_000, 100);
    const second: CallRecord = usage(2_000, 100, 1_000);
    const restored: CallRecord = { ...usage(50_000, 5_000), restored: true };
    // Only the first call's turn event came before the result.
    h.spending.called(7, first);
    const forkUsd = h.spending.settled(7, completed('f', [restored, first, second]));
    // $0.001 + $0.001 output; the second: 1,000 uncached ($0.001), 1,000 cached ($0.0001), $0.001 output.
    expect(forkUsd).toBeCloseTo(0.002 + 0.0021, 12);
    expect(h.spending.budget(0)).toBeUndefined();
    expect(h.spending.cost(undefined)).toMatchObject({
      model: 'priced-model',
      source: 'https://example.test/prices',
      read: '2026-12-01',
      uncachedPricedCalls: 0,
    });
    expect(h.spending.cost(undefined)?.usd).toBeCloseTo(0.0041, 12);
    // A fork whose turn events counted every call adds nothing at its result.
    const another = harness({ maxTokens: 100_000 });
    another.spending.called(1, first);
    another.spending.settled(1, completed('g', [first]));
    expect(another.spending.budget(0)?.spentTokens).toBe(1_100);
  });

  it('prices a call without cached tokens as uncached and counts it; the storage of explicit caches adds to the cost', () => {
    const h = harness({ price: { model: 'm', price: { input: 1, cachedInput: 0.1, output: 10, cacheStoragePerHour: 4.5 } } });
    h.spending.called(0, usage(1_000_000, 0, null));
    expect(h.spending.storageUsd(1_000_000)).toBeCloseTo(4.5, 12);
    const cost = h.spending.cost({ caches: 1, tokens: 10_000, tokenHours: 1_000_000, ttlSeconds: 3_600, usd: 4.5 });
    expect(cost).toEqual({ usd: 5.5, storageUsd: 4.5, model: 'm', uncachedPricedCalls: 1 });
  });

  it('without a price there is no cost, and without a budget no budget section unless a fork went over its own', () => {
    const h = harness({});
    h.spending.called(0, usage(10, 10));
    expect(h.spending.cost(undefined)).toBeUndefined();
    expect(h.spending.storageUsd(100)).toBeUndefined();
    expect(h.spending.settled(0, completed('x', [usage(10, 10)]))).toBeUndefined();
    expect(h.spending.budget(0)).toBeUndefined();
    expect(h.spending.budget(1)).toEqual({ spentTokens: 20, spent: false, stoppedForks: 1 });
    expect(harness({ maxTokensPerFork: 50 }).spending.budget(0)).toEqual({
      maxTokensPerFork: 50,
      spentTokens: 0,
      spent: false,
      stoppedForks: 0,
    });
  });
});
