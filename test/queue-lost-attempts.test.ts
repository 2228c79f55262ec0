import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { workersText } from '../src/cli/queue-run.js';
import { jsonLines } from './fixtures/cli/run-cli.js';
import { queueHarness, until, within, type Spawned, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';

/*
 * What a distributed run pays for when a worker dies mid-fork: the attempt it ran is lost (another
 * worker runs the fork again, whose result is the fork's), but its calls were billed. A real
 * redis-server, real workers and coordinator from the built CLI, the local simulated model (which
 * counts every request it got and the tokens of every answer it gave); a worker SIGKILLed while
 * its fork's second call is in flight.
 */

const KEY = 'fp-test-key-3b9e61a4';
const h = queueHarness(KEY, 'forkpool-queue-lost-');
const { cli, startWorker, modelServer, writeTasks } = h;

/** USD per million tokens: the run's price, so that its cost and the lost attempts' are figured. */
const PRICE = { input: 0.3, cachedInput: 0.03, output: 2.5 };

interface Usage {
  promptTokens: number;
  cachedTokens: number | null;
  outputTokens: number;
}

interface Summary {
  subtype: string;
  runId: string;
  modelCalls: number;
  toolCalls: number;
  promptTokens: number;
  cachedTokens: number | null;
  outputTokens: number;
  cost: { usd: number };
  workers: { id: string; forks: number; modelCalls: number; lostAttempts: number; prefixFetches?: number }[];
  lostAttempts: {
    forks: number;
    attempts: number;
    modelCalls: number;
    unknownCalls: number;
    toolCalls: number;
    usage: Usage;
    costUsd: number;
  };
}

/** The progress BullMQ holds for a job: the last event its worker sent. */
async function progressOf(url: string, jobId: string): Promise<unknown> {
  const client = new Redis(url);
  try {
    const text = await client.hget(`bull:forkpool:${jobId}`, 'progress');
    return text === null ? undefined : JSON.parse(text);
  } finally {
    client.disconnect();
  }
}

const usd = (u: { prompt: number; cached: number; output: number }): number =>
  ((u.prompt - u.cached) * PRICE.input + u.cached * PRICE.cachedInput + u.output * PRICE.output) / 1e6;

describe('a distributed run whose worker dies mid-call', () => {
  it('counts every attempt paid for: the dead worker’s calls, tokens, tool calls and cost are in the totals and on a line of their own, its call in flight of unknown usage', async () => {
    const model = await modelServer();
    const flags = ['--lock-ms', '1500', '--concurrency', '4'];
    const workers = await Promise.all([startWorker('d1', model.url, flags), startWorker('d2', model.url, flags)]);
    const tasks = [
      ...Array.from({ length: 3 }, (_, i) => ({ id: `quick-${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` })),
      // Two calls, each slow: a tool call first, then the answer.
      { id: 'slow', directive: `SLOW-FORK: list the folder, then quote the ticket.\nCALL list_dir {"path": "."}\nSLEEP 2000\n${RECALL}` },
    ];
    const prices = join(h.tmp(), 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'gemini-2.5-flash': PRICE }));
    const out = join(h.tmp(), 'lost-out.jsonl');
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('lost', tasks),
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--prices',
      prices,
      '--output-format',
      'json',
    ]);

    const started = (w: Spawned): boolean => w.stderr().includes('fork "slow" of run');
    await until('a worker to start the slow fork', () => workers.some(started));
    const victim = workers.find(started) as Spawned;
    const survivor = workers.find((w) => w !== victim) as Spawned;
    const runId = /distributed run ([0-9a-f]{16})/.exec(run.stderr())?.[1] as string;
    // Its first call answered (a tool call, run), its second sent and in flight, as its worker last said.
    await until(
      'the slow fork’s second call to reach the model',
      () => model.requests.filter((r) => r.body.includes('SLOW-FORK')).length === 2,
    );
    let progress: unknown;
    while (JSON.stringify(progress) !== JSON.stringify({ type: 'calls', inFlight: 1 })) {
      progress = await within('the worker’s progress', progressOf(h.queueUrl(), `${runId}.slow`));
    }
    victim.child.kill('SIGKILL');
    expect((await within('the killed worker', victim.exited)).signal).toBe('SIGKILL');

    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(survivor.stderr()).toMatch(/fork "slow" of run [0-9a-f]+: completed/);
    const results = jsonLines(readFileSync(out, 'utf8'));
    expect(results.map((l) => [l.id, l.status, l.text]).sort()).toEqual(tasks.map((t) => [t.id, 'completed', MARKER_ANSWER]).sort());
    const summary = JSON.parse(run.stdout()) as Summary;
    const billed = model.metrics();

    // The dead worker's attempt: one call answered (a tool call), one in flight, one tool run.
    expect(summary.lostAttempts).toMatchObject({ forks: 1, attempts: 1, modelCalls: 2, unknownCalls: 1, toolCalls: 1 });
    expect(summary.lostAttempts.usage.promptTokens).toBeGreaterThan(0);
    // Every request the model got is a model call of the run; every token it billed is in the totals.
    expect(model.requests.length).toBe(tasks.length + 1 + 2);
    expect(summary.modelCalls).toBe(model.requests.length);
    expect({ prompt: summary.promptTokens, cached: summary.cachedTokens, output: summary.outputTokens }).toEqual({
      prompt: billed.promptTokens,
      cached: billed.cachedTokens,
      output: billed.candidatesTokens,
    });
    // The results hold the last attempts only; the lost one is the difference.
    const sum = (f: (u: Usage) => number): number => results.reduce((n, l) => n + f(l.usage as Usage), 0);
    expect(summary.promptTokens).toBe(sum((u) => u.promptTokens) + summary.lostAttempts.usage.promptTokens);
    expect(summary.outputTokens).toBe(sum((u) => u.outputTokens) + summary.lostAttempts.usage.outputTokens);
    expect(summary.toolCalls).toBe(results.reduce((n, l) => n + (l.toolCalls as number), 0) + 1);
    // The cost is the model's bill at the price, the lost attempt's part included.
    expect(summary.cost.usd).toBeCloseTo(
      usd({ prompt: billed.promptTokens, cached: billed.cachedTokens, output: billed.candidatesTokens }),
      12,
    );
    const lost = summary.lostAttempts.usage;
    expect(summary.lostAttempts.costUsd).toBeCloseTo(
      usd({ prompt: lost.promptTokens, cached: lost.cachedTokens ?? 0, output: lost.outputTokens }),
      12,
    );

    // Both workers are in the workers lines, the dead one with its lost attempt and its calls.
    const byId = new Map(summary.workers.map((w) => [w.id, w]));
    const victimName = victim === workers[0] ? 'd1' : 'd2';
    const survivorName = victimName === 'd1' ? 'd2' : 'd1';
    expect([...byId.keys()].sort()).toEqual(['d1', 'd2']);
    const dead = byId.get(victimName) as Summary['workers'][number];
    expect(dead.lostAttempts).toBe(1);
    expect(dead.modelCalls).toBe(dead.forks + 2);
    expect(byId.get(survivorName)?.lostAttempts).toBe(0);
    expect(summary.workers.reduce((n, w) => n + w.forks, 0)).toBe(tasks.length);
  });
});

describe('the text summary of a distributed run', () => {
  it('lists every worker that took a fork, dead or alive, and the attempts lost to dead workers on a line of their own', () => {
    const text = workersText(
      [
        { id: 'host-a:11', forks: 3, modelCalls: 5, lostAttempts: 0, prefixFetches: 1, cpuMs: 1250 },
        { id: 'host-b:7', forks: 0, modelCalls: 9, lostAttempts: 5 },
      ],
      {
        forks: 4,
        attempts: 5,
        modelCalls: 9,
        unknownCalls: 2,
        toolCalls: 12,
        usage: { promptTokens: 40_000, cachedTokens: 30_000, outputTokens: 1_200 },
        costUsd: 0.0123,
      },
    );
    expect(text.split('\n')).toEqual([
      'workers    2 processes',
      'worker     host-a:11  3 forks · 5 model calls · prefix fetches 1 · cpu 1.25 s',
      "worker     host-b:7   0 forks · 9 model calls · 5 attempts lost (its job's lock ran out: it died or stalled)",
      "lost       attempts lost to dead workers: 4 forks (5 attempts), 41 k tokens, 7 model calls and 2 of unknown usage (in flight when the worker died), 12 tool calls, $0.01 (in the totals above; each fork's result is its last attempt's)",
    ]);
    expect(
      workersText([], {
        forks: 0,
        attempts: 0,
        modelCalls: 0,
        unknownCalls: 0,
        toolCalls: 0,
        usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
      }),
    ).toBe('workers    none took a fork');
  });
});
