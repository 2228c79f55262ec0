import { describe, expect, it } from 'vitest';
import { AttemptLedger, type ForkAttempts } from '../src/queue/attempt-ledger.js';

/*
 * The coordinator's accounts of a distributed run's attempts, told event by event as the job
 * progress tells them: per worker, the forks it finished, its calls and its lost attempts; in all,
 * what the lost attempts spent. The end-to-end figures (real workers killed mid-fork) are in
 * queue-lost-attempts.test.ts; these are the rules the ledger keeps.
 */

const PRICE = { input: 2, cachedInput: 0.5, output: 10 };
const call = (promptTokens: number, cachedTokens: number, outputTokens: number) => ({ promptTokens, cachedTokens, outputTokens });
const figures = (id: string, prefixFetches: number, cpuMs: number) => ({ id, prefixFetches, cpuMs });
const fork = (): ForkAttempts => ({ lostBefore: false });

describe('AttemptLedger', () => {
  it('counts nothing lost when each fork finishes on the worker that took it', () => {
    const ledger = new AttemptLedger(PRICE);
    const a = fork();
    ledger.taken(a, 'w1');
    ledger.answered(a, call(1000, 800, 50), 2);
    ledger.finished(figures('w1', 1, 120), 1);
    expect(ledger.workers()).toEqual([{ id: 'w1', forks: 1, modelCalls: 1, lostAttempts: 0, prefixFetches: 1, cpuMs: 120 }]);
    expect(ledger.lostAttempts()).toEqual({
      forks: 0,
      attempts: 0,
      modelCalls: 0,
      unknownCalls: 0,
      toolCalls: 0,
      usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
    });
  });

  it("charges a lost attempt's answered calls, its calls in flight and its tool calls to the run and to its worker, priced call by call", () => {
    const ledger = new AttemptLedger(PRICE);
    const a = fork();
    ledger.taken(a, 'dead');
    ledger.answered(a, call(1000, 0, 100), 1);
    ledger.answered(a, call(2000, 1000, 200), 3);
    ledger.callsInFlight(a, 2);
    ledger.callsInFlight(a, 1);
    ledger.lose(a);
    // Taken again by another worker, which finishes it: that attempt is not lost.
    ledger.taken(a, 'alive');
    ledger.answered(a, call(500, 0, 10), 0);
    ledger.finished(figures('alive', 1, 80), 1);

    const lost = ledger.lostAttempts();
    expect(lost).toMatchObject({
      forks: 1,
      attempts: 1,
      modelCalls: 3,
      unknownCalls: 1,
      toolCalls: 4,
      usage: { promptTokens: 3000, cachedTokens: 1000, outputTokens: 300 },
    });
    // (1000 × 2 + 100 × 10) + (1000 × 2 + 1000 × 0.5 + 200 × 10), per million tokens.
    expect(lost.costUsd).toBeCloseTo(7500 / 1e6, 12);
    expect(ledger.workers()).toEqual([
      { id: 'dead', forks: 0, modelCalls: 3, lostAttempts: 1 },
      { id: 'alive', forks: 1, modelCalls: 1, lostAttempts: 0, prefixFetches: 1, cpuMs: 80 },
    ]);
  });

  it('counts a fork once however many of its attempts are lost, and a taken-again job as the loss of the run before it', () => {
    const ledger = new AttemptLedger(undefined);
    const a = fork();
    const b = fork();
    ledger.taken(a, 'w1');
    ledger.answered(a, call(10, 0, 1), 0);
    // No stall event came: the job taken again tells that its earlier run ended with no result.
    ledger.taken(a, 'w2');
    ledger.answered(a, call(10, 0, 1), 0);
    ledger.lose(a);
    ledger.taken(b, 'w2');
    ledger.lose(b);
    // An attempt already lost is not lost twice (a stall event, then the job's failure).
    ledger.lose(b);
    const lost = ledger.lostAttempts();
    expect(lost).toMatchObject({ forks: 2, attempts: 3, modelCalls: 2, unknownCalls: 0 });
    // No price known: no cost, rather than a cost of 0.
    expect(lost.costUsd).toBeUndefined();
    expect(ledger.workers().map((w) => [w.id, w.lostAttempts])).toEqual([
      ['w1', 1],
      ['w2', 2],
    ]);
  });

  it("keeps the largest process figures a worker sent (they come with each fork's result, in any order)", () => {
    const ledger = new AttemptLedger(undefined);
    ledger.finished(figures('w1', 2, 900), 3);
    ledger.finished(figures('w1', 1, 400), 2);
    expect(ledger.workers()).toEqual([{ id: 'w1', forks: 2, modelCalls: 5, lostAttempts: 0, prefixFetches: 2, cpuMs: 900 }]);
  });

  it('lists each worker with the forks it runs now, those that only run one included', () => {
    const ledger = new AttemptLedger(undefined);
    ledger.finished(figures('w1', 1, 10), 1);
    ledger.taken(fork(), 'w2');
    expect(
      ledger.workersNow([
        { worker: 'w1', taskId: 't3' },
        { worker: 'w3', taskId: 't4' },
        { worker: 'w1', taskId: 't5' },
      ]),
    ).toEqual([
      { id: 'w1', forks: 1, running: ['t3', 't5'] },
      { id: 'w2', forks: 0, running: [] },
      { id: 'w3', forks: 0, running: ['t4'] },
    ]);
  });

  it('hands out copies: what a caller does with them does not change the accounts', () => {
    const ledger = new AttemptLedger(undefined);
    const a = fork();
    ledger.taken(a, 'w1');
    ledger.answered(a, call(10, 0, 1), 0);
    ledger.lose(a);
    const lost = ledger.lostAttempts();
    lost.usage.promptTokens = 0;
    lost.attempts = 99;
    const [worker] = ledger.workers();
    if (worker) worker.lostAttempts = 99;
    expect(ledger.lostAttempts()).toMatchObject({ attempts: 1, usage: { promptTokens: 10 } });
    expect(ledger.workers()[0]?.lostAttempts).toBe(1);
  });
});
