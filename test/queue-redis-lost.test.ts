// Internal: the Redis wire (src/queue/redis-wire.ts) and store (src/queue/store.ts), to enqueue jobs as a coordinator would: `forkpool run --queue` and `forkpool worker` are their public face; freezePrefix (src/prefix/freeze.ts) freezes the prefix without an engine (its public face is engine.freeze); loadSession comes through forkpool.
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { FORK_JOB, QUEUE_NAME, jobIdOf, type QueueJobData, type QueueJobReturn } from '../src/queue/redis-wire.js';
import { storePrefix, storeRun } from '../src/queue/store.js';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { linesOf as lines, queueHarness, until, within, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';

/*
 * A distributed run whose Redis loses its data: a real redis-server (the file's own) SIGKILLed and
 * started again empty on the same port mid-run, real `forkpool worker` processes and a real
 * coordinator from the built CLI, the local simulated model. Every wait is bounded.
 */

const KEY = 'fp-test-key-3b81c6f2';

const h = queueHarness(KEY, 'forkpool-queue-lost-');
const { cli, startWorker, modelServer, writeTasks } = h;

describe('a distributed run whose Redis restarts without its data', () => {
  it('the coordinator stores the prefix again and enqueues the lost jobs under their ids: each fork ends once, completed', async () => {
    const model = await modelServer();
    const first = await startWorker('l1', model.url, ['--concurrency', '2']);
    // The two slow forks hold the worker's two places while the quick ones wait in the queue.
    const tasks = [
      ...['a', 'b'].map((id) => ({
        id: `slow-${id}`,
        directive: `SLOW-${id}: take a moment, then quote the ticket.\nSLEEP 2500\n${RECALL}`,
      })),
      ...Array.from({ length: 4 }, (_, i) => ({ id: `quick:${i}`, directive: `QUICK-${i}: quote the ticket.\n${RECALL}` })),
    ];
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
      '--warmup',
      'parent',
    ]);
    await until('both slow forks to reach the model', () =>
      ['SLOW-a', 'SLOW-b'].every((m) => model.requests.some((r) => r.body.includes(m))),
    );
    // Every job, the prefix and the run record are gone; the slow forks go on on the worker.
    await h.server().restart();
    const second = await startWorker('l2', model.url, ['--concurrency', '2']);

    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    expect(run.stderr()).toMatch(
      /lost data of run [0-9a-f]{16} \(its run record is gone: restarted without its data, or flushed\); the prefix and the run record are stored again and 6 forks in the queue enqueued again under the same ids/,
    );
    const outLines = lines(out);
    expect(outLines.map((l) => l.id).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const line of outLines) {
      expect(line.status).toBe('completed');
      expect(line.text).toBe(MARKER_ANSWER);
    }
    expect(lines(`${out}.journal`).filter((e) => e.type === 'result')).toHaveLength(tasks.length);
    // The slow forks ran again (their first runs could not complete their lost jobs); the waiting ones once.
    for (const id of ['a', 'b']) expect(model.requests.filter((r) => r.body.includes(`SLOW-${id}`))).toHaveLength(2);
    for (let i = 0; i < 4; i++) expect(model.requests.filter((r) => r.body.includes(`QUICK-${i}`))).toHaveLength(1);
    // Both workers are still serving, and the prefix is in Redis again.
    expect(first.child.exitCode).toBeNull();
    expect(second.child.exitCode).toBeNull();
    const client = new Redis(h.queueUrl());
    try {
      const prefix = freezePrefix(await loadSession(join(REPO_ROOT, SESSION)));
      expect(await client.keys('forkpool:prefix:*')).toEqual([`forkpool:prefix:${prefix.id}`]);
    } finally {
      client.disconnect();
    }
  });

  it('a worker whose job comes before its prefix and run record (stored again a moment later) waits for them and runs the fork', async () => {
    const model = await modelServer();
    await startWorker('p1', model.url);
    const prefix = freezePrefix(await loadSession(join(REPO_ROOT, SESSION)));
    const runId = '0123456789abcdef';
    const jobId = jobIdOf(runId, 'early');
    const connection = { url: h.queueUrl() };
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    const client = new Redis(h.queueUrl());
    try {
      await events.waitUntilReady();
      const data: QueueJobData = { runId, prefixId: prefix.id, task: { id: 'early', directive: `Quote the ticket.\n${RECALL}` } };
      const job = await queue.add(FORK_JOB, data, { jobId });
      // Taken, so the worker is fetching the prefix when it is stored.
      for (let i = 0; i < 1_800 && (await job.getState()) === 'waiting'; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await job.getState()).toBe('active');
      await storePrefix(client, prefix, 600);
      await storeRun(client, runId, { version: 1, prefixId: prefix.id, settings: {} }, 600);
      const ret = (await within('the job to finish', job.waitUntilFinished(events))) as QueueJobReturn;
      expect(ret.result).toMatchObject({ id: 'early', status: 'completed', text: MARKER_ANSWER });
    } finally {
      await Promise.allSettled([events.close(), queue.close()]);
      client.disconnect();
    }
  });
});
