// Internal: the Redis wire (src/queue/redis-wire.ts), to write run records as a coordinator of another version would: `forkpool run --queue` and `forkpool worker` are their public face; freezePrefix (src/prefix/freeze.ts) freezes the prefix without an engine (its public face is engine.freeze); loadSession comes through forkpool.
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { queueHarness, within, RECALL, SESSION } from './support/queue-harness.js';
import { loadSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { FORK_JOB, QUEUE_NAME, RUN_RECORD_VERSION, jobIdOf, prefixKey, runKey, type QueueJobData } from '../src/queue/redis-wire.js';

/*
 * The run record is a format that coordinators and workers of different forkpool versions share:
 * a worker refuses a record of another version, naming both, and a record whose settings are not
 * the engine's options (a field renamed by another version) names the field. A real redis-server
 * and a real `forkpool worker` process; the job's failure is what the coordinator would read.
 */

const h = queueHarness('fp-test-key-record-version', 'forkpool-queue-version-');

async function failureOf(record: unknown, runId: string): Promise<string> {
  const model = await h.modelServer();
  await h.startWorker('v', model.url);
  const prefix = freezePrefix(await loadSession(join(REPO_ROOT, SESSION)));
  const connection = { url: h.queueUrl() };
  const queue = new Queue(QUEUE_NAME, { connection });
  const events = new QueueEvents(QUEUE_NAME, { connection });
  const client = new Redis(h.queueUrl());
  try {
    await events.waitUntilReady();
    await client.set(prefixKey(prefix.id), Buffer.from(new Uint8Array(prefix.buffer, 0, prefix.byteLength)), 'EX', 600);
    await client.set(runKey(runId), JSON.stringify({ ...(record as object), prefixId: prefix.id }), 'EX', 600);
    const data: QueueJobData = { runId, prefixId: prefix.id, task: { id: 'a', directive: `Quote the ticket.\n${RECALL}` } };
    const job = await queue.add(FORK_JOB, data, { jobId: jobIdOf(runId, 'a') });
    const outcome = await within(
      'the job to finish',
      job.waitUntilFinished(events).then(
        () => 'completed',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      ),
    );
    return outcome;
  } finally {
    await Promise.allSettled([events.close(), queue.close()]);
    client.disconnect();
  }
}

describe('a run record of another forkpool version', () => {
  it("is refused by the worker, naming the record's version and its own", async () => {
    const runId = '00000000000000a2';
    const message = await failureOf({ version: RUN_RECORD_VERSION + 1, settings: {} }, runId);
    expect(message).toBe(
      `the record of run ${runId} is version ${RUN_RECORD_VERSION + 1}, and this forkpool reads version ${RUN_RECORD_VERSION}: run the coordinator and its workers on the same forkpool version`,
    );
  });

  it('whose settings hold a field this version does not name so is refused, naming the field', async () => {
    const runId = '00000000000000a3';
    const message = await failureOf({ version: RUN_RECORD_VERSION, settings: { maxTokens: 500 } }, runId);
    expect(message).toBe(
      `the record of run ${runId}: settings.maxTokens is not an option (known: maxTurns, timeoutMs, history, cache, cacheTtl, maxTokensPerFork, rateLimit)`,
    );
  });
});
