// Internal: createSharedGate (src/queue/shared-gate.ts), rateKey (src/queue/redis-wire.ts) and createCallGate (src/engine/call-gate.ts): `forkpool worker`'s shared rate limit and the engine's own gate have no entry point (the CLI and ForkEngine's rateLimit are their public face); RateLimits comes through forkpool.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { createCallGate } from '../src/engine/call-gate.js';
import type { RateLimits } from '../src/index.js';
import { rateKey } from '../src/queue/redis-wire.js';
import { createSharedGate, type SharedGate } from '../src/queue/shared-gate.js';
import { CLI, REPO_ROOT, jsonLines, offlineEnv } from './fixtures/cli/run-cli.js';
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

const KEY = 'fp-test-key-rate-51c0';
const WAIT_MS = 45_000;
const children = new Set<ChildProcess>();
let model: LocalServer | undefined;
let tmp: string | undefined;

afterEach(async () => {
  await Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }),
  );
  children.clear();
  await model?.close();
  model = undefined;
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
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
  // Each waiting call asks on its own, and one may have asked with the clock as it was: count `polls` per waiting call.
  const waiting = gates.map((g) => calls.filter((c) => c.gate === g && c.admitted === undefined).length);
  const done = (g: SharedGate, i: number): boolean =>
    g.stats().waits >= (start[i] as number) + polls * (waiting[i] as number) ||
    calls.every((c) => c.gate !== g || c.admitted !== undefined);
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
    const a = createSharedGate({
      redis,
      runId: 'abcdef0123456789',
      limits: { requestsPerMinute: 2 },
      local: createCallGate({ maxInFlight: 10 }),
      pollMs: 2,
    });
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

/** The built CLI, as a user runs it: the offline environment plus the test's Gemini key. */
function cli(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...offlineEnv(), GEMINI_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let err = '';
  child.stdout?.resume();
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

/** Polls until `ok()` holds; fails with `what` after WAIT_MS. */
async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('forkpool run --queue --rpm with two forkpool worker processes', () => {
  it('the local model sees no more than the run-wide limit in its first minute; SIGINT ends the forks waiting at the shared gate', async () => {
    db++;
    const queueUrl = `${server.url}/${db}`;
    tmp = mkdtempSync(join(tmpdir(), 'forkpool-rate-'));
    model = await startLocalServer({ captureRequests: true, requireApiKey: KEY });
    const workers = ['r1', 'r2'].map((name) =>
      cli([
        'worker',
        '--queue',
        queueUrl,
        '--provider',
        'gemini',
        '--base-url',
        (model as LocalServer).url,
        '--workspace',
        '.',
        '--threads',
        '1',
        '--concurrency',
        '4',
        '--name',
        name,
      ]),
    );
    for (const w of workers)
      await until(`a worker to be ready (stderr: ${w.stderr()})`, () => w.stderr().includes(' ready on ') || w.child.exitCode !== null);
    const tasks = Array.from({ length: 6 }, (_, i) => ({
      id: `t${i}`,
      directive: `Answer in one word: ready (${i}).`,
      tools: [] as string[],
    }));
    const tasksPath = join(tmp, 'tasks.jsonl');
    writeFileSync(tasksPath, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const out = join(tmp, 'out.jsonl');
    // Each worker alone would take 4 forks at once; together they may send 3 requests a minute.
    const run = cli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      tasksPath,
      '--queue',
      queueUrl,
      '--warmup',
      'parent',
      '--rpm',
      '3',
      '--out',
      out,
    ]);
    await until(
      `the run to start (stderr: ${run.stderr()})`,
      () => /distributed run [0-9a-f]+/.test(run.stderr()) || run.child.exitCode !== null,
    );
    const runId = /distributed run ([0-9a-f]+)/.exec(run.stderr())?.[1] as string;

    const started = (): number => workers.reduce((n, w) => n + (w.stderr().match(/: started$/gm) ?? []).length, 0);
    await until('every fork to start on a worker', () => started() === 6);
    await until('three requests at the model', () => (model as LocalServer).requests.length >= 3);
    const redis = new Redis(queueUrl);
    clients.push(redis);
    const key = rateKey(runId, 'calls');
    await until('the window to hold three calls', async () => (await redis.zcard(key)) === 3);
    // The other forks have asked Redis again meanwhile (every second at most): still three.
    const asked = (await redis.zrange(key, 0, 0, 'WITHSCORES'))[1];
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const [seconds] = await redis.time();
    expect(Number(seconds) * 1000 - Number(asked)).toBeLessThan(60_000);
    expect((model as LocalServer).requests).toHaveLength(3);
    expect(await redis.zcard(key)).toBe(3);
    // Both workers were in it: each had forks running (not one worker taking the whole limit by being alone).
    for (const w of workers) expect(w.stderr()).toMatch(/: started$/m);

    run.child.kill('SIGINT');
    const code = await Promise.race([run.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), WAIT_MS))]);
    expect(code).toBe(130);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id).sort()).toEqual(tasks.map((t) => t.id));
    expect(lines.filter((l) => l.status === 'completed')).toHaveLength(3);
    // The forks that waited at the shared gate were cancelled there, by their worker, with no call sent.
    const cancelled = lines.filter((l) => l.status === 'cancelled');
    expect(cancelled).toHaveLength(3);
    for (const l of cancelled) expect((l.error as { message: string }).message).not.toContain('did not confirm in time');
    expect((model as LocalServer).requests).toHaveLength(3);
  });
});
