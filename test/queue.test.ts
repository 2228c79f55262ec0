// Internal: freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonLines } from './fixtures/cli/run-cli.js';
import { everythingIn, queueHarness, until, within, type Spawned, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';
import { loadSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';

/*
 * Distributed runs end to end: a real redis-server (its own, per file), real `forkpool worker`
 * processes and a real coordinator (`forkpool run --queue`), all spawned from the built CLI, and
 * the local simulated model started per test. Every wait is bounded; nothing asserts on time.
 */

const KEY = 'fp-test-key-7c31d9e0';

const h = queueHarness(KEY, 'forkpool-queue-');
const { cli, startWorker, modelServer, writeTasks } = h;

interface ProxyEvent {
  kind: 'request' | 'response';
  id: number;
  body: string;
}

/**
 * A pass-through in front of the model server that records, in order, when each request arrived
 * and when its response began (upstream headers): the order of those two is what warm-up is about.
 */
async function recordingProxy(upstream: string): Promise<{ url: string; events: ProxyEvent[] }> {
  const target = new URL(upstream);
  const events: ProxyEvent[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const id = next++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      events.push({ kind: 'request', id, body: body.toString('utf8') });
      const up = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (upRes) => {
          events.push({ kind: 'response', id, body: '' });
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.closeAfter({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, events };
}

/** The examples' marker tasks plus three more inherited recalls: 8 forks. */
function markerTasks(): object[] {
  const lines = readFileSync(join(REPO_ROOT, 'examples/marker.jsonl'), 'utf8').trim().split('\n');
  const extra = [1, 2, 3].map((i) => ({ id: `recall-again:${i}`, directive: `Quote the onboarding ticket once more (${i}).\n${RECALL}` }));
  return [...lines.map((l) => JSON.parse(l) as object), ...extra];
}

describe('forkpool run --queue with forkpool worker processes', () => {
  it('a coordinator and two workers run 8 marker forks: every result arrives exactly once, the prefix is stored once, no key is in Redis', async () => {
    const model = await modelServer();
    await Promise.all([startWorker('w1', model.url, ['--concurrency', '2']), startWorker('w2', model.url, ['--concurrency', '2'])]);
    const tasks = markerTasks();
    const out = join(h.tmp(), 'marker-out.jsonl');
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('marker', tasks),
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--output-format',
      'json',
    ]);
    const { code } = await within('the coordinator', run.exited);
    expect(run.stderr()).toMatch(/distributed run [0-9a-f]{16} on redis:\/\/127\.0\.0\.1:\d+\/\d+/);
    expect(code).toBe(0);

    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id).sort()).toEqual(tasks.map((t) => (t as { id: string }).id).sort());
    const byId = new Map(lines.map((l) => [l.id, l]));
    for (const id of [
      'recall-ticket',
      'recall-completed-turns',
      'recall-read-only',
      'recall-again:1',
      'recall-again:2',
      'recall-again:3',
    ]) {
      expect(byId.get(id)?.status).toBe('completed');
      expect(byId.get(id)?.text).toBe(MARKER_ANSWER);
    }
    expect(byId.get('last-turn-only')?.text).toBe(`${RECALL}: no match`);
    expect(byId.get('no-tools')?.text).toContain('Tool list_dir is not allowed in this fork. This fork may not execute any tool.');
    // The journal, as for a local run: one result per fork.
    const journal = jsonLines(readFileSync(`${out}.journal`, 'utf8'));
    expect(journal.filter((e) => e.type === 'result')).toHaveLength(8);

    // The summary: the local run's report, plus each worker process's figures.
    const summary = JSON.parse(run.stdout()) as {
      subtype: string;
      runId: string;
      forks: { completed: number; total: number };
      workers: { id: string; forks: number; modelCalls: number; prefixFetches: number }[];
    };
    expect(summary.subtype).toBe('success');
    expect(summary.forks).toMatchObject({ completed: 8, total: 8 });
    expect(summary.workers.length).toBeGreaterThanOrEqual(1);
    expect(summary.workers.map((w) => w.id).every((id) => id === 'w1' || id === 'w2')).toBe(true);
    expect(summary.workers.reduce((n, w) => n + w.forks, 0)).toBe(8);
    for (const w of summary.workers) expect(w.prefixFetches).toBe(1);
    // Each worker called the model with its own key (the server refuses any other).
    expect(model.requests.length).toBe(summary.workers.reduce((n, w) => n + w.modelCalls, 0));

    const stored = await everythingIn(h.queueUrl());
    const prefix = freezePrefix(await loadSession(join(REPO_ROOT, SESSION)));
    expect(stored.keys.filter((k) => k.startsWith('forkpool:prefix:'))).toEqual([`forkpool:prefix:${prefix.id}`]);
    const client = new Redis(h.queueUrl());
    try {
      const bytes = await client.getBuffer(`forkpool:prefix:${prefix.id}`);
      expect(bytes?.equals(Buffer.from(new Uint8Array(prefix.buffer, 0, prefix.byteLength)))).toBe(true);
      // Job ids: the run id and the task id, ':' encoded.
      expect(await client.exists(`bull:forkpool:${summary.runId}.recall-again%3A1`)).toBe(1);
    } finally {
      client.disconnect();
    }
    // The values were read (the session and the results are there), and the key is in none of them.
    expect(stored.text).toContain('MARKER-1F0C');
    expect(stored.text).not.toContain(KEY);
  });

  it('a worker SIGKILLed mid-fork: the other takes its fork over once the lock runs out, and the fork ends exactly once', async () => {
    const model = await modelServer();
    const lock = ['--lock-ms', '1500', '--concurrency', '4'];
    const workers = await Promise.all([startWorker('k1', model.url, lock), startWorker('k2', model.url, lock)]);
    const tasks = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `quick-${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` })),
      { id: 'sleepy', directive: `Take your time, then quote the ticket.\nSLEEP 3000\n${RECALL}` },
    ];
    const out = join(h.tmp(), 'kill-out.jsonl');
    const run = cli(['run', '--session', SESSION, '--tasks', writeTasks('kill', tasks), '--queue', h.queueUrl(), '--out', out]);
    const started = (w: Spawned): boolean => w.stderr().includes('fork "sleepy" of run');
    await until('a worker to start the sleepy fork', () => workers.some(started));
    await until('the sleepy fork to reach the model', () => model.requests.some((r) => r.body.includes('Take your time')));
    const victim = workers.find(started) as Spawned;
    const survivor = workers.find((w) => w !== victim) as Spawned;
    victim.child.kill('SIGKILL');
    expect((await within('the killed worker', victim.exited)).signal).toBe('SIGKILL');

    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    // The survivor ran the sleepy fork again, after the victim had started it.
    expect(survivor.stderr()).toMatch(/fork "sleepy" of run [0-9a-f]+: completed/);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const line of lines) {
      expect(line.status).toBe('completed');
      expect(line.text).toBe(MARKER_ANSWER);
    }
    const journal = jsonLines(readFileSync(`${out}.journal`, 'utf8')).filter((e) => e.type === 'result');
    expect(journal).toHaveLength(tasks.length);
    // The sleepy fork's request reached the model twice: delivered twice, one result.
    expect(model.requests.filter((r) => r.body.includes('Take your time')).length).toBe(2);
    expect(run.stdout()).toContain('forks      7 completed, 0 failed, 0 cancelled of 7');
  });

  it('a worker SIGTERMed with a fork in flight finishes it, completes its job and exits 0; the run ends with it', async () => {
    const model = await modelServer();
    const worker = await startWorker('g1', model.url);
    const tasks = [{ id: 'slow', directive: `Take a moment, then quote the ticket.\nSLEEP 1500\n${RECALL}` }];
    const out = join(h.tmp(), 'term-out.jsonl');
    const run = cli(['run', '--session', SESSION, '--tasks', writeTasks('term', tasks), '--queue', h.queueUrl(), '--out', out]);
    await until('the slow fork to reach the model', () => model.requests.some((r) => r.body.includes('Take a moment')));
    worker.child.kill('SIGTERM');
    expect((await within('the worker to stop', worker.exited)).code).toBe(0);
    const log = worker.stderr();
    expect(log.indexOf('fork "slow" of run')).toBeLessThan(log.indexOf('SIGTERM: finishing the forks in flight'));
    expect(log.indexOf('SIGTERM: finishing the forks in flight')).toBeLessThan(log.search(/fork "slow" of run [0-9a-f]+: completed/));
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(jsonLines(readFileSync(out, 'utf8')).map((l) => [l.id, l.status, l.text])).toEqual([['slow', 'completed', MARKER_ANSWER]]);
    expect(model.requests.filter((r) => r.body.includes('Take a moment'))).toHaveLength(1);
  });

  /** Two forks that sleep on the model, sent at once (--warmup parent), and a worker running both. */
  async function sleepingRun(name: string, sleeps: Record<string, number>, extra: readonly string[] = []) {
    const model = await modelServer();
    const worker = await startWorker(name, model.url);
    const tasks = Object.entries(sleeps).map(([id, ms]) => ({ id, directive: `SLEEPER-${id}: quote the ticket.\nSLEEP ${ms}\n${RECALL}` }));
    const out = join(h.tmp(), `${name}-out.jsonl`);
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks(name, tasks),
      '--queue',
      h.queueUrl(),
      '--warmup',
      'parent',
      '--out',
      out,
      ...extra,
    ]);
    await until('every fork to reach the model', () => tasks.every((t) => model.requests.some((r) => r.body.includes(`SLEEPER-${t.id}`))));
    const runId = /distributed run ([0-9a-f]+)/.exec(run.stderr())?.[1] as string;
    return { worker, run, out, runId };
  }

  /** A cancel the worker confirmed: the fork loop's own words, not the coordinator's grace-period stand-in. */
  function cancelledByWorker(line: Record<string, unknown>): void {
    expect(line.status).toBe('cancelled');
    expect((line.error as { message: string }).message).not.toContain('did not confirm in time');
  }

  it('SIGINT at the coordinator reaches the worker: its running forks end cancelled there, and the run exits 130', async () => {
    const { worker, run, out } = await sleepingRun('int', { one: 60_000, two: 60_000 });
    run.child.kill('SIGINT');
    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(130);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id).sort()).toEqual(['one', 'two']);
    for (const line of lines) cancelledByWorker(line);
    await until('the worker to log both cancels', () => (worker.stderr().match(/: cancelled$/gm) ?? []).length === 2);
    expect(worker.stderr()).toContain('fork "one" of run');
    expect(worker.child.exitCode).toBeNull();
  });

  it('forkpool cancel RUN TASK stops one fork wherever it runs; RUN alone stops the rest; the coordinator records them', async () => {
    const { worker, run, out, runId } = await sleepingRun('cnl', { keep: 60_000, drop: 60_000 });
    const one = cli(['cancel', '--queue', h.queueUrl(), runId, 'drop']);
    expect((await within('forkpool cancel TASK', one.exited)).code).toBe(0);
    expect(one.stdout()).toMatch(new RegExp(`cancel of fork "drop" of run ${runId} sent: 0 waiting jobs removed, [2-9] processes told`));
    await until('the worker to cancel "drop"', () => /fork "drop" of run [0-9a-f]+: cancelled/.test(worker.stderr()));
    expect(worker.stderr()).not.toMatch(/fork "keep" of run [0-9a-f]+: cancelled/);
    const all = cli(['cancel', '--queue', h.queueUrl(), runId]);
    expect((await within('forkpool cancel RUN', all.exited)).code).toBe(0);
    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(1);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id)).toEqual(['drop', 'keep']);
    for (const line of lines) cancelledByWorker(line);
    expect(run.stdout()).toContain('forks      0 completed, 0 failed, 2 cancelled of 2');
  });

  it("forkpool cancel RUN with no worker up: the lead's waiting job is removed, the forks warm-up held back never go out", async () => {
    const out = join(h.tmp(), 'idle-out.jsonl');
    const tasks = ['a', 'b', 'c'].map((id) => ({ id, directive: `Quote the ticket.\n${RECALL}` }));
    const run = cli(['run', '--session', SESSION, '--tasks', writeTasks('idle', tasks), '--queue', h.queueUrl(), '--out', out]);
    await until('the coordinator to enqueue', () => /distributed run [0-9a-f]+/.test(run.stderr()));
    const runId = /distributed run ([0-9a-f]+)/.exec(run.stderr())?.[1] as string;
    const client = new Redis(h.queueUrl());
    try {
      for (let i = 0; i < 400 && (await client.exists(`bull:forkpool:${runId}.a`)) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      client.disconnect();
    }
    const cancel = cli(['cancel', '--queue', h.queueUrl(), runId]);
    expect((await within('forkpool cancel', cancel.exited)).code).toBe(0);
    expect(cancel.stdout()).toContain('1 waiting job removed');
    expect((await within('the coordinator', run.exited)).code).toBe(1);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => [l.id, l.status]).sort()).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
      ['c', 'cancelled'],
    ]);
  });

  /** The forks' first requests, in arrival order, against when the lead's first response began. */
  function warmupOrder(events: readonly ProxyEvent[], lead: string, others: readonly string[]) {
    const leadRequest = events.find((e) => e.kind === 'request' && e.body.includes(lead));
    const leadResponse = events.findIndex((e) => e.kind === 'response' && e.id === leadRequest?.id);
    const firstOf = (marker: string): number => events.findIndex((e) => e.kind === 'request' && e.body.includes(marker));
    return { leadResponse, others: others.map(firstOf) };
  }

  const warmTasks = [
    { id: 'lead', directive: `WARM-LEAD: quote the ticket.\nSLEEP 1500\n${RECALL}` },
    ...Array.from({ length: 5 }, (_, i) => ({ id: `sibling-${i}`, directive: `WARM-SIBLING-${i}: quote the ticket.\n${RECALL}` })),
  ];

  it('warm-up: the lead fork goes alone; the others are enqueued once a worker reports its first response began', async () => {
    const model = await modelServer();
    const proxy = await recordingProxy(model.url);
    await Promise.all([startWorker('a1', proxy.url), startWorker('a2', proxy.url)]);
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('warm', warmTasks),
      '--queue',
      h.queueUrl(),
      '--output-format',
      'json',
    ]);
    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    const order = warmupOrder(
      proxy.events,
      'WARM-LEAD',
      warmTasks.slice(1).map((_, i) => `WARM-SIBLING-${i}`),
    );
    expect(order.leadResponse).toBeGreaterThan(0);
    for (const index of order.others) expect(index).toBeGreaterThan(order.leadResponse);
    const summary = JSON.parse(run.stdout()) as { warmup: string; forks: { completed: number } };
    expect(summary).toMatchObject({ warmup: 'auto', forks: { completed: 6 } });
  });

  it('--warmup parent releases every fork at once: siblings reach the model while the lead still waits for its response', async () => {
    const model = await modelServer();
    const proxy = await recordingProxy(model.url);
    await Promise.all([startWorker('p1', proxy.url), startWorker('p2', proxy.url)]);
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('parent', warmTasks),
      '--queue',
      h.queueUrl(),
      '--warmup',
      'parent',
      '--output-format',
      'json',
    ]);
    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    const order = warmupOrder(
      proxy.events,
      'WARM-LEAD',
      warmTasks.slice(1).map((_, i) => `WARM-SIBLING-${i}`),
    );
    expect(order.others.every((index) => index >= 0)).toBe(true);
    // The lead's response is held back by its SLEEP; nothing holds the siblings back.
    expect(Math.min(...order.others)).toBeLessThan(order.leadResponse);
    expect((JSON.parse(run.stdout()) as { warmup: string }).warmup).toBe('parent');
  });
});

describe('forkpool worker and run --queue: usage', () => {
  it('refuses a bad address and the flags that belong to the workers, before anything runs', async () => {
    const bad = cli(['run', '--session', SESSION, '--tasks', 'examples/marker.jsonl', '--queue', 'http://127.0.0.1:1']);
    const workerFlag = cli(['run', '--session', SESSION, '--tasks', 'examples/marker.jsonl', '--queue', h.queueUrl(), '--workspace', '.']);
    const noQueue = cli(['worker']);
    const results = await within('the usage errors', Promise.all([bad.exited, workerFlag.exited, noQueue.exited]));
    expect(results.map((r) => r.code)).toEqual([2, 2, 2]);
    expect(bad.stderr()).toContain('--queue: expected redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB] (got the scheme "http:")');
    expect(workerFlag.stderr()).toContain('--workspace goes to each forkpool worker');
    expect(noQueue.stderr()).toContain('worker: --queue redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB] is required');
  });

  it('forkpool cancel of a run Redis does not know says so and exits 1, having published nothing', async () => {
    const listener = new Redis(h.queueUrl());
    const heard: string[] = [];
    try {
      await listener.subscribe('forkpool:cancel');
      listener.on('message', (_channel: string, text: string) => heard.push(text));
      const run = cli(['cancel', '--queue', h.queueUrl(), '0123456789abcdef']);
      const task = cli(['cancel', '--queue', h.queueUrl(), '0123456789abcdef', 'some-task']);
      const [runExit, taskExit] = await within('forkpool cancel', Promise.all([run.exited, task.exited]));
      expect([runExit.code, taskExit.code]).toEqual([1, 1]);
      expect(run.stderr()).toMatch(
        /cancel of run 0123456789abcdef: Redis at redis:\/\/127\.0\.0\.1:\d+\/\d+ has no such run \(never started there, or ended more than an hour ago\); nothing was cancelled/,
      );
      expect(task.stderr()).toContain('cancel of fork "some-task" of run 0123456789abcdef: Redis at');
      expect(run.stdout() + task.stdout()).toBe('');
      // A round trip on the listener's connection: a message published before it would have arrived by now.
      await listener.ping();
      expect(heard).toEqual([]);
    } finally {
      listener.disconnect();
    }
  });

  it('a worker stops on SIGTERM and says so; an address nobody answers at is an error at once', async () => {
    const model = await modelServer();
    const w = await startWorker('t1', model.url);
    w.child.kill('SIGTERM');
    expect((await within('the worker to stop', w.exited)).code).toBe(0);
    expect(w.stderr()).toContain('SIGTERM: finishing the forks in flight');
    const nobody = cli(['worker', '--queue', 'redis://127.0.0.1:1']);
    expect((await within('the unreachable worker', nobody.exited)).code).toBe(1);
    expect(nobody.stderr()).toContain('cannot reach Redis at redis://127.0.0.1:1');
  });
});
