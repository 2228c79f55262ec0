// Internal: ForkJob (src/wire/protocol.ts), what a pool is handed: ForkEngine.createRemote's pool is internal (forkpool worker's); the options are public.
import { describe, expect, it } from 'vitest';
import type { ForkJob } from '../src/wire/protocol.js';
import { ForkEngine, freezePrefix, loadSession, type ForkResult } from '../src/index.js';
import { emptyFailure } from '../src/result/results.js';

/*
 * One way to build a fork's job: a fan-out's forks and a single fork (runFork, which `forkpool
 * worker` runs every queued fork with) are handed the same run-wide part, read from the engine's
 * options under their own names.
 */

/** A pool that records each job and ends its fork at once. */
function recordingPool() {
  const jobs: ForkJob[] = [];
  return {
    jobs,
    run(job: ForkJob): Promise<ForkResult> {
      jobs.push(job);
      if (!('port' in job.link)) throw new TypeError('a remote pool job brings its own port');
      job.link.port.close();
      return Promise.resolve(emptyFailure(job.task.id, 'error', 'recorded, not run'));
    },
    async close() {},
  };
}

describe("a fork's job", () => {
  it("is the same from a fan-out and from runFork, with the engine's options under their names", async () => {
    const pool = recordingPool();
    const engine = await ForkEngine.createRemote(
      {
        provider: { kind: 'gemini' },
        maxTurns: 7,
        timeoutMs: 60_000,
        history: 'completed-turns',
        retry: { maxAttempts: 4, forkBudget: 3 },
        maxTokensPerFork: 9_000,
        maxTokens: 50_000,
        spawnTools: ['spawn_worker'],
        telemetry: { captureContent: true },
        warmup: 'none',
      },
      pool,
    );
    try {
      const prefix = freezePrefix(await loadSession('examples/session.json'));
      await engine.fanOut(prefix, [{ id: 'fanned', directive: 'one' }]).settled();
      await engine.runFork(prefix, { id: 'single', directive: 'one' }).result;
      const [fanned, single] = pool.jobs.map(({ task: _task, link: _link, ...rest }) => rest);
      expect(pool.jobs.map((j) => j.task.id)).toEqual(['fanned', 'single']);
      expect(fanned).toMatchObject({
        maxTurns: 7,
        timeoutMs: 60_000,
        history: 'completed-turns',
        retry: { maxAttempts: 4, forkBudget: 3 },
        maxTokensPerFork: 9_000,
        spawnTools: ['agent', 'spawn_worker'],
        prefixTokens: prefix.tokenEstimate,
        prefix: { id: prefix.id, byteLength: prefix.byteLength },
      });
      // The run's budget is the run's, not a job's.
      expect(Object.keys(fanned ?? {})).not.toContain('maxTokens');
      // A fan-out records its forks' model calls in spans, with their content when asked; a single
      // fork's events go to its caller (a queue worker's into Redis), without content.
      const { captureContent, ...fannedRest } = fanned ?? {};
      expect(captureContent).toBe(true);
      expect(Object.keys(single ?? {})).not.toContain('captureContent');
      expect(single).toEqual(fannedRest);
    } finally {
      await engine.close();
    }
  });
});
