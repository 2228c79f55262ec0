// Internal: createCallGate (src/engine/call-gate.ts): the engine builds its gate; ForkEngine's rateLimit and concurrency options (and fanOut's callGate, typed by EngineCallGate) are its public face.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallGate } from '../src/engine/call-gate.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe('the call gate', () => {
  it('holds the request over the per-minute limit until the window moves on', async () => {
    const gate = createCallGate({ maxInFlight: 10, requestsPerMinute: 3, now: () => Date.now() });
    for (let i = 0; i < 3; i++) {
      expect(await gate.acquire(1)).toBe(true);
      gate.release('ok', false);
    }
    const fourth = gate.acquire(1);
    expect(await settled(fourth)).toBe(false);
    expect(gate.stats().waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(await settled(fourth)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(await fourth).toBe(true);
  });

  it('counts tokens per minute, and lets a call larger than the budget run alone', async () => {
    const gate = createCallGate({ maxInFlight: 10, tokensPerMinute: 1_000, now: () => Date.now() });
    expect(await gate.acquire(600)).toBe(true);
    const second = gate.acquire(600);
    expect(await settled(second)).toBe(false);
    await vi.advanceTimersByTimeAsync(60_001);
    expect(await second).toBe(true);
    await vi.advanceTimersByTimeAsync(60_001);
    expect(await gate.acquire(5_000)).toBe(true);
  });

  it('halves the calls in flight when most calls sent lately got 429, once per second, and grows back after successes', async () => {
    const gate = createCallGate({ maxInFlight: 8, now: () => Date.now() });
    const answer = async (status: 'ok' | 'rate_limited', times: number): Promise<void> => {
      for (let i = 0; i < times; i++) {
        await gate.acquire(0);
        gate.release(status, false);
      }
    };
    await answer('rate_limited', 9);
    expect(gate.stats().limit).toBe(8); // too few calls to judge yet
    await answer('rate_limited', 1);
    expect(gate.stats().limit).toBe(4);
    await answer('rate_limited', 5);
    expect(gate.stats().limit).toBe(4); // within the cooldown: the calls in flight answer for the old bound
    await vi.advanceTimersByTimeAsync(1_000);
    await answer('rate_limited', 1);
    expect(gate.stats()).toMatchObject({ limit: 2, rateLimited: 16 });
    await answer('ok', 8);
    expect(gate.stats().limit).toBe(3);
  });

  it('does not slow down when the 429s come back before the many calls still in flight', async () => {
    const gate = createCallGate({ maxInFlight: 64, now: () => Date.now() });
    for (let i = 0; i < 64; i++) await gate.acquire(0);
    // 10% of the calls sent are refused at once; the rest are still running.
    for (let i = 0; i < 6; i++) gate.release('rate_limited', true);
    expect(gate.stats().limit).toBe(64);
  });

  it('does not slow down for a 429 now and then among successes', async () => {
    const gate = createCallGate({ maxInFlight: 8, now: () => Date.now() });
    for (let i = 0; i < 100; i++) {
      await gate.acquire(0);
      gate.release(i % 10 === 0 ? 'rate_limited' : 'ok', false);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(gate.stats()).toMatchObject({ limit: 8, rateLimited: 10 });
  });

  it('admits no more than the adaptive bound at once, and wakes a waiter on release', async () => {
    const gate = createCallGate({ maxInFlight: 2 });
    await gate.acquire(0);
    await gate.acquire(0);
    const third = gate.acquire(0);
    expect(await settled(third)).toBe(false);
    gate.release('ok', false);
    expect(await third).toBe(true);
    expect(gate.stats().inFlight).toBe(2);
  });

  it('drops an aborted waiter without admitting it', async () => {
    const gate = createCallGate({ maxInFlight: 1 });
    await gate.acquire(0);
    const controller = new AbortController();
    const waiting = gate.acquire(0, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(gate.stats()).toMatchObject({ inFlight: 1, waiting: 0 });
  });

  it('spends a global retry budget and then refuses retries', async () => {
    const gate = createCallGate({ maxInFlight: 4, globalRetryBudget: 2 });
    const answers: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      await gate.acquire(0);
      answers.push(gate.release('failed', true));
    }
    expect(answers).toEqual([true, true, false]);
    expect(gate.stats().retriesSpent).toBe(2);
  });
});
