// Internal: freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).

import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { linesOf as lines, queueHarness, until, within, type Spawned, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';
import { loadSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';

/*
 * Distributed runs that lose a process: a coordinator SIGKILLed and restarted with --resume, and a
 * large run with injected model faults that loses a worker. Real redis-server (its own, per file),
 * real `forkpool worker` processes and coordinators from the built CLI, the local simulated model.
 * Every wait is bounded; nothing asserts on time.
 */

const KEY = 'fp-test-key-5e02b7a4';

const h = queueHarness(KEY, 'forkpool-queue-resume-');
const { cli, startWorker, modelServer, writeTasks } = h;

/** How many times each id occurs. */
function counts(ids: readonly unknown[]): Map<unknown, number> {
  const m = new Map<unknown, number>();
  for (const id of ids) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
}

describe('a distributed run whose coordinator is SIGKILLed', () => {
  it('restarted with --resume, it re-attaches to the same run: journaled forks stay, finished and running jobs are collected, the rest enqueued; each fork once', async () => {
    const model = await modelServer();
    const worker = await startWorker('r1', model.url, ['--concurrency', '4']);
    // With two forks in the queue at once, "medium" and "long" hold both places while the quick ones wait.
    const tasks = [
      { id: 'lead', directive: `Quote the ticket.\n${RECALL}` },
      { id: 'medium', directive: `MEDIUM-FORK: take a moment, then quote the ticket.\nSLEEP 2500\n${RECALL}` },
      { id: 'long', directive: `LONG-FORK: take your time, then quote the ticket.\nSLEEP 8000\n${RECALL}` },
      ...Array.from({ length: 5 }, (_, i) => ({ id: `quick:${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` })),
    ];
    const tasksPath = writeTasks('resume', tasks);
    const out = join(h.tmp(), 'resume-out.jsonl');
    const args = [
      'run',
      '--session',
      SESSION,
      '--tasks',
      tasksPath,
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--concurrency',
      '2',
      '--output-format',
      'json',
    ];
    const first = cli(args);
    const journalResults = (): Record<string, unknown>[] => lines(`${out}.journal`).filter((e) => e.type === 'result');
    await until('the lead to be journaled', () => journalResults().some((e) => (e.result as { id: string }).id === 'lead'));
    await until('medium and long to reach the model', () =>
      ['MEDIUM-FORK', 'LONG-FORK'].every((m) => model.requests.some((r) => r.body.includes(m))),
    );
    const runId = /distributed run ([0-9a-f]{16})/.exec(first.stderr())?.[1] as string;
    expect(runId).toBeDefined();
    first.child.kill('SIGKILL');
    expect((await within('the first coordinator', first.exited)).signal).toBe('SIGKILL');
    // The run id is on record in the journal; "medium" finishes on the worker with no coordinator listening.
    expect(lines(`${out}.journal`).filter((e) => e.type === 'run')).toEqual([{ type: 'run', runId }]);
    await until('the worker to finish "medium"', () => /fork "medium" of run [0-9a-f]+: completed/.test(worker.stderr()));
    expect(worker.stderr()).not.toMatch(/fork "long" of run [0-9a-f]+: completed/);
    const journaledBefore = journalResults().map((e) => (e.result as { id: string }).id);
    expect(journaledBefore).toEqual(['lead']);

    const second = cli([...args, '--resume']);
    const { code } = await within('the resumed coordinator', second.exited);
    expect(second.stderr()).toContain(`re-attaching to distributed run ${runId}`);
    expect(second.stderr()).toContain(`distributed run ${runId} on`);
    expect(code).toBe(0);

    // Every fork exactly once, in --out and in the journal.
    const ids = tasks.map((t) => t.id).sort();
    const outLines = lines(out);
    expect(outLines.map((l) => l.id).sort()).toEqual(ids);
    for (const line of outLines) {
      expect(line.status).toBe('completed');
      expect(line.text).toBe(MARKER_ANSWER);
    }
    expect(
      journalResults()
        .map((e) => (e.result as { id: string }).id)
        .sort(),
    ).toEqual(ids);
    // The forks in flight at the kill ran once: "medium" was collected from its finished job, "long" from its running one.
    expect(model.requests.filter((r) => r.body.includes('MEDIUM-FORK'))).toHaveLength(1);
    expect(model.requests.filter((r) => r.body.includes('LONG-FORK'))).toHaveLength(1);
    expect(worker.stderr().match(/fork "(medium|long)" of run [0-9a-f]+: completed/g)).toHaveLength(2);
    const summary = JSON.parse(second.stdout()) as { runId: string; resumed: number; forks: { completed: number; total: number } };
    expect(summary).toMatchObject({ runId, resumed: 1, forks: { completed: 7, total: 7 } });

    // A third --resume has nothing left to run, and --out still holds each fork once.
    const third = cli([...args, '--resume']);
    expect((await within('the third coordinator', third.exited)).code).toBe(0);
    expect(third.stderr()).toContain('resuming: the journal holds 8 finished forks');
    expect(JSON.parse(third.stdout())).toMatchObject({ resumed: 8, forks: { total: 0 } });
    expect(
      lines(out)
        .map((l) => l.id)
        .sort(),
    ).toEqual(ids);
  });
});

describe('a distributed run stopped by SIGINT', () => {
  it('--resume runs its cancelled forks again: their cancelled jobs are replaced, and --out ends with each fork once, completed', async () => {
    const model = await modelServer();
    const worker = await startWorker('s1', model.url, ['--concurrency', '4']);
    const tasks = ['one', 'two'].map((id) => ({ id, directive: `STOPPED-${id}: quote the ticket.\nSLEEP 2000\n${RECALL}` }));
    const out = join(h.tmp(), 'sigint-out.jsonl');
    const args = [
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('sigint', tasks),
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--warmup',
      'parent',
    ];
    const first = cli(args);
    await until('both forks to reach the model', () => tasks.every((t) => model.requests.some((r) => r.body.includes(`STOPPED-${t.id}`))));
    first.child.kill('SIGINT');
    expect((await within('the first coordinator', first.exited)).code).toBe(130);
    expect(
      lines(out)
        .map((l) => [l.id, l.status])
        .sort(),
    ).toEqual([
      ['one', 'cancelled'],
      ['two', 'cancelled'],
    ]);
    await until('the worker to cancel both', () => (worker.stderr().match(/: cancelled$/gm) ?? []).length === 2);
    const runId = /distributed run ([0-9a-f]{16})/.exec(first.stderr())?.[1] as string;

    const second = cli([...args, '--resume']);
    expect((await within('the resumed coordinator', second.exited)).code).toBe(0);
    expect(second.stderr()).toContain(`re-attaching to distributed run ${runId}`);
    expect(
      lines(out)
        .map((l) => [l.id, l.status, l.text])
        .sort(),
    ).toEqual([
      ['one', 'completed', MARKER_ANSWER],
      ['two', 'completed', MARKER_ANSWER],
    ]);
    // Each fork ran twice: cancelled, then again under the same job id.
    for (const t of tasks) expect(model.requests.filter((r) => r.body.includes(`STOPPED-${t.id}`))).toHaveLength(2);
  });
});

describe('a large distributed run with model faults and a worker SIGKILLed', () => {
  it('300 forks, 3 workers, injected 429s and 500s, one worker killed: every fork once, one prefix copy, one fetch per worker, warm-up holds', async () => {
    // Fast (not zero) latency: a fork takes long enough that the victim has forks in flight when it dies.
    const model = await modelServer({ faults: { rates: { '429': 0.04, '500': 0.03 }, seed: 16, retryAfterSeconds: 1 }, latency: 'fast' });
    const flags = ['--lock-ms', '1500', '--concurrency', '16', '--max-attempts', '8'];
    const workers = await Promise.all(['big1', 'big2', 'big3'].map((name) => startWorker(name, model.url, flags)));
    const tasks = Array.from({ length: 300 }, (_, i) => ({ id: `fork:${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` }));
    const out = join(h.tmp(), 'big-out.jsonl');
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      writeTasks('big', tasks),
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--output-format',
      'json',
    ]);
    // Mid-run: some forks are done, and the victim has forks of its own.
    const victim = workers[2] as Spawned;
    const finishedBy = (w: Spawned): number => (w.stderr().match(/: completed$/gm) ?? []).length;
    const startedBy = (w: Spawned): number => (w.stderr().match(/: started$/gm) ?? []).length;
    // Killed with forks of its own in flight (they are the orphans the others must take over).
    await until(
      'the victim to finish a few forks and have more running',
      () => finishedBy(victim) >= 3 && startedBy(victim) - finishedBy(victim) >= 2,
    );
    victim.child.kill('SIGKILL');
    expect((await within('the killed worker', victim.exited)).signal).toBe('SIGKILL');

    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    const outLines = lines(out);
    expect(outLines).toHaveLength(300);
    expect([...counts(outLines.map((l) => l.id)).values()].every((n) => n === 1)).toBe(true);
    expect(outLines.every((l) => l.status === 'completed' && l.text === MARKER_ANSWER)).toBe(true);
    const journal = lines(`${out}.journal`).filter((e) => e.type === 'result');
    expect(journal).toHaveLength(300);

    const summary = JSON.parse(run.stdout()) as {
      forks: { completed: number; total: number };
      efficiency: number | null;
      retries: number;
      workers: { id: string; forks: number; prefixFetches: number }[];
    };
    expect(summary.forks).toMatchObject({ completed: 300, total: 300 });
    expect(summary.workers.reduce((n, w) => n + w.forks, 0)).toBe(300);
    for (const w of summary.workers) expect(w.prefixFetches).toBe(1);
    // The survivors took the victim's forks over; the injected faults were retried, not results.
    expect(summary.workers.map((w) => w.id).sort()).toEqual(expect.arrayContaining(['big1', 'big2']));
    expect(model.metrics().faults['429'] ?? 0).toBeGreaterThan(0);
    expect(model.metrics().faults['500'] ?? 0).toBeGreaterThan(0);
    // The forks the victim had started and not finished were taken over by the survivors, each once.
    const forksOf = (w: Spawned, status: string): string[] =>
      [...w.stderr().matchAll(new RegExp(`fork "([^"]+)" of run [0-9a-f]+: ${status}$`, 'gm'))].map((m) => m[1] as string);
    const finishedByVictim = new Set(forksOf(victim, 'completed'));
    const orphans = forksOf(victim, 'started').filter((id) => !finishedByVictim.has(id));
    expect(orphans.length).toBeGreaterThan(0);
    const survivorsFinished = counts(workers.filter((w) => w !== victim).flatMap((w) => forksOf(w, 'completed')));
    for (const id of orphans) expect(survivorsFinished.get(id)).toBe(1);
    expect(summary.efficiency).not.toBeNull();
    expect(summary.efficiency as number).toBeGreaterThanOrEqual(0.95);

    // Redis held one copy of the prefix.
    const client = new Redis(h.queueUrl());
    try {
      const prefix = freezePrefix(await loadSession(join(REPO_ROOT, SESSION)));
      expect(await client.keys('forkpool:prefix:*')).toEqual([`forkpool:prefix:${prefix.id}`]);
    } finally {
      client.disconnect();
    }
  });
});
