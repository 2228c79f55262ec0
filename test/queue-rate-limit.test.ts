import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCallGate } from '../src/engine/call-gate.js';
import type { RateLimits } from '../src/engine/call-gate.js';
import { rateKey } from '../src/queue/protocol.js';
import { createSharedGate, type SharedGate } from '../src/queue/shared-gate.js';
import { startRedis, type TestRedis } from './support/redis.js';

/*
 * The shared rate limit of a distributed run, on a real redis-server (its own, per file): two
 * gates on one Redis stand for two workers. Time is a clock the test moves (the gate passes it to
 * the Lua script), so nothing here asserts on how long anything took.
 */

let server: TestRedis;
let db = 0;
const clients: Redis[] = [];
const controllers: AbortController[] = [];

beforeAll(async () => {
  server = await startRedis();
});

afterEach(async () => {
  for (const c of controllers.splice(0)) c.abort();
  await Promise.all(clients.splice(0).map((c) => c.quit()));
});

afterAll(async () => {
  await server?.stop();
});

/** A Redis database of its own per test, and a clock the test moves. */
function setup() {
  db++;
  const clock = { t: 1_000_000 };
  const gate = (limits: RateLimits, runId = 'abcdef0123456789'): SharedGate => {
    const redis = new Redis(`${server.url}/${db}`);
    clients.push(redis);
    const local = createCallGate({ maxInFlight: 1_000 });
    return createSharedGate({ redis, runId, limits, local, now: () => clock.t, pollMs: 2 });
  };
  return { clock, gate };
}

interface Pending {
  gate: SharedGate;
  admitted: boolean | undefined;
  /** The clock when the gate admitted the call. */
  at: number | undefined;
  done: Promise<boolean>;
  controller: AbortController;
}

function ask(gate: SharedGate, clock: { t: number }, tokens = 0): Pending {
  const controller = new AbortController();
  controllers.push(controller);
  const p: Pending = { gate, admitted: undefined, at: undefined, controller, done: Promise.resolve(false) };
  p.done = gate.acquire(tokens, controller.signal).then((ok) => {
    p.admitted = ok;
    if (ok) p.at = clock.t;
    return ok;
  });
  return p;
}

/**
 * Waits (bounded) until every gate with a call still waiting has asked Redis again a few times
 * since now (or has no call waiting any more): by then the window as the clock stands is applied.
 */
async function settle(calls: Pending[], polls = 3): Promise<void> {
  const gates = [...new Set(calls.filter((c) => c.admitted === undefined).map((c) => c.gate))];
  const start = gates.map((g) => g.stats().waits);
  const done = (g: SharedGate, i: number): boolean =>
    g.stats().waits >= (start[i] as number) + polls || calls.every((c) => c.gate !== g || c.admitted !== undefined);
  for (let i = 0; i < 5_000; i++) {
    if (gates.every(done)) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('the gates did not ask Redis again');
}

const admittedCount = (calls: Pending[]): number => calls.filter((c) => c.admitted === true).length;

describe('a run-wide rate limit shared through Redis', () => {
  it('two workers together never admit more than the requests per minute in a window', async () => {
    const { clock, gate } = setup();
    const a = gate({ requestsPerMinute: 5 });
    const b = gate({ requestsPerMinute: 5 });
    const calls = [...Array.from({ length: 8 }, () => ask(a, clock)), ...Array.from({ length: 8 }, () => ask(b, clock))];
    await settle(calls);
    // The first window: five calls between the two workers, whichever got them.
    expect(admittedCount(calls)).toBe(5);
    expect(a.stats().admitted + b.stats().admitted).toBe(5);

    // Half a window on: still no room.
    clock.t += 30_000;
    await settle(calls);
    expect(admittedCount(calls)).toBe(5);

    // The first five leave the window: five more, no more.
    clock.t += 30_000;
    await settle(calls);
    expect(admittedCount(calls)).toBe(10);

    clock.t += 60_000;
    await settle(calls);
    expect(admittedCount(calls)).toBe(15);

    // Per window of the clock: never more than five.
    const perWindow = new Map<number, number>();
    for (const c of calls) if (c.at !== undefined) perWindow.set(c.at, (perWindow.get(c.at) ?? 0) + 1);
    expect([...perWindow.values()].every((n) => n <= 5)).toBe(true);
    expect([...perWindow.keys()].sort()).toEqual([1_000_000, 1_060_000, 1_120_000]);
  });

  it('a 429 reported by one worker makes the other wait too, until the shared back-off ends', async () => {
    const { clock, gate } = setup();
    const a = gate({ requestsPerMinute: 1_000 });
    const b = gate({ requestsPerMinute: 1_000 });
    expect(await a.acquire(10)).toBe(true);
    // Released only once the back-off is in Redis: the retry (anywhere) that follows sees it.
    expect(await a.release('rate_limited', true)).toBe(true);
    const backoff = new Redis(`${server.url}/${db}`);
    clients.push(backoff);
    const until = Number(await backoff.get(rateKey('abcdef0123456789', 'backoff')));
    expect(until).toBe(clock.t + 1_000);

    const other = ask(b, clock);
    const same = ask(a, clock);
    await settle([other, same]);
    expect(other.admitted).toBeUndefined();
    expect(same.admitted).toBeUndefined();

    clock.t = until - 1;
    await settle([other, same]);
    expect(other.admitted).toBeUndefined();

    clock.t = until;
    await expect(other.done).resolves.toBe(true);
    await expect(same.done).resolves.toBe(true);
    expect(a.stats().rateLimited).toBe(1);
  });

  it('429s answered to calls sent before the back-off do not lengthen it; a later one doubles it', async () => {
    const { clock, gate } = setup();
    const a = gate({});
    const b = gate({});
    const key = rateKey('abcdef0123456789', 'backoff');
    const r = new Redis(`${server.url}/${db}`);
    clients.push(r);
    // Three calls in flight at once, all answered 429: one back-off, not three doubled.
    for (const g of [a, b, a]) expect(await g.acquire(0)).toBe(true);
    for (const g of [a, b, a]) await g.release('rate_limited', false);
    expect(Number(await r.get(key))).toBe(clock.t + 1_000);
    clock.t += 1_000;
    await a.acquire(0);
    await a.release('rate_limited', false);
    expect(Number(await r.get(key))).toBe(clock.t + 2_000);
  });

  it('an abort ends a wait, and the call is not counted', async () => {
    const { clock, gate } = setup();
    const a = gate({ requestsPerMinute: 1 });
    const b = gate({ requestsPerMinute: 1 });
    expect(await a.acquire(0)).toBe(true);
    const waiting = ask(b, clock);
    await settle([waiting]);
    waiting.controller.abort();
    await expect(waiting.done).resolves.toBe(false);
    // The window still holds one call only: the next window admits one, from either worker.
    clock.t += 60_000;
    expect(await b.acquire(0)).toBe(true);
    const third = ask(a, clock);
    await settle([third]);
    expect(third.admitted).toBeUndefined();
  });

  it('an abort before the wait begins admits nothing', async () => {
    const { gate } = setup();
    const a = gate({ requestsPerMinute: 10 });
    const controller = new AbortController();
    controller.abort();
    expect(await a.acquire(0, controller.signal)).toBe(false);
    expect(a.stats().admitted).toBe(0);
  });

  it('a tokens-per-minute limit counts the tokens of both workers', async () => {
    const { clock, gate } = setup();
    const a = gate({ tokensPerMinute: 100 });
    const b = gate({ tokensPerMinute: 100 });
    expect(await a.acquire(40)).toBe(true);
    expect(await b.acquire(40)).toBe(true);
    // 80 + 40 > 100: both workers wait; a small one still fits.
    const big = [ask(a, clock, 40), ask(b, clock, 40)];
    await settle(big);
    expect(admittedCount(big)).toBe(0);
    expect(await b.acquire(20)).toBe(true);
    await settle(big);
    expect(admittedCount(big)).toBe(0);

    clock.t += 60_000;
    await settle(big);
    expect(admittedCount(big)).toBe(2);
    const tokens = new Redis(`${server.url}/${db}`);
    clients.push(tokens);
    expect(Number(await tokens.get(rateKey('abcdef0123456789', 'tokens')))).toBe(80);
  });

  it('a call larger than the whole token budget still runs, alone in its window', async () => {
    const { clock, gate } = setup();
    const a = gate({ tokensPerMinute: 100 });
    expect(await a.acquire(500)).toBe(true);
    const next = ask(a, clock, 1);
    await settle([next]);
    expect(next.admitted).toBeUndefined();
    clock.t += 60_000;
    await expect(next.done).resolves.toBe(true);
  });

  it("without a clock of the caller's, the window is on Redis's own clock", async () => {
    db++;
    const redis = new Redis(`${server.url}/${db}`);
    clients.push(redis);
    const a = createSharedGate({ redis, runId: 'abcdef0123456789', limits: { requestsPerMinute: 2 }, local: createCallGate({ maxInFlight: 10 }), pollMs: 2 });
    const clock = { t: 0 };
    const calls = [ask(a, clock), ask(a, clock), ask(a, clock)];
    await settle(calls);
    expect(admittedCount(calls)).toBe(2);
    const [, score] = await redis.zrange(rateKey('abcdef0123456789', 'calls'), 0, 0, 'WITHSCORES');
    const [seconds] = await redis.time();
    expect(Math.abs(Number(score) - Number(seconds) * 1000)).toBeLessThan(60_000);
  });

  it('runs are apart: one run full does not hold another', async () => {
    const { gate } = setup();
    const a = gate({ requestsPerMinute: 1 }, '1111111111111111');
    const b = gate({ requestsPerMinute: 1 }, '2222222222222222');
    expect(await a.acquire(0)).toBe(true);
    expect(await b.acquire(0)).toBe(true);
  });
});
