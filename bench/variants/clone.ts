/**
 * `clone`: a Piscina pool like the engine's, but the whole session goes into every task and is
 * structured-cloned into the worker per fork (no SharedArrayBuffer, no per-worker parse cache).
 * Tools still run on the main thread behind the same channel as in the engine.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AGENT_TOOL_NAME } from '../../dist/src/fork/index.js';
import { createCallGate } from '../../dist/src/engine/call-gate.js';
import { openForkChannel } from '../../dist/src/engine/host-end.js';
import { linkThreads, openLink } from '../../dist/src/engine/thread-channels.js';
import type { ForkResult } from '../../dist/src/result/fork-result.js';
import { emptyFailure } from '../../dist/src/result/results.js';
import { DEFAULT_RETRY, type ProviderConfig } from '../../dist/src/model/types.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';
import type { ForkTask, ParentSession } from '../../dist/src/index.js';
import type { Tool } from '../../dist/src/tools/define.js';
import { declaredToolNames } from '../../dist/src/shapes/tool-names.js';
import { createToolHost } from '../../dist/src/tools/host.js';
import type { CloneJob } from './clone-worker.js';
import { schedule, type Runner, type RunnerOptions } from './common.js';
import { localPlan } from '../lib/plan.js';

const ENTRY = fileURLToPath(new URL('./clone-worker.ts', import.meta.url));
/** Set to a directory to get a CPU profile of each worker (the fork loop's side; the engine's own workers cannot take flags). */
const PROFILE_DIR = process.env.FORKPOOL_BENCH_WORKER_PROF;

export function createCloneRunner(options: RunnerOptions, tools: readonly Tool[]): Runner {
  const pool = new Piscina({
    filename: ENTRY,
    execArgv: ['--import', 'tsx', ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
    minThreads: options.threads,
    maxThreads: options.threads,
    concurrentTasksPerWorker: Math.max(1, Math.ceil(options.concurrency / options.threads)),
    atomics: 'disabled',
    idleTimeout: 30_000,
  });
  linkThreads(pool);
  const host = createToolHost(tools);
  const gate = createCallGate({ maxInFlight: options.concurrency });
  const provider: ProviderConfig = {
    kind: 'local',
    baseUrl: options.url,
    ...(options.maxAttempts !== undefined ? { retry: { ...DEFAULT_RETRY, maxAttempts: options.maxAttempts } } : {}),
  };
  return {
    fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[]) {
      const declaredTools = declaredToolNames(prefix.session.tools);
      const plan = localPlan(prefix);
      const spawnTools = new Set([AGENT_TOOL_NAME]);
      return schedule(prefix, tasks, options, (task, onFirstResponse): Promise<ForkResult> => {
        const { end, link, transferList } = openLink(pool);
        const channel = openForkChannel({
          port: end,
          host,
          gate,
          policy: { forkId: task.id, declaredTools, spawnTools },
          onEvent: (event) => {
            if (event.type === 'response_start') onFirstResponse();
          },
          onToolCall: () => undefined,
          admit: () => true,
        });
        const job: CloneJob = {
          task,
          session: prefix.session as ParentSession,
          prefixId: prefix.id,
          prefixTokens: prefix.tokenEstimate,
          retry: undefined,
          toolTimeoutMs: host.longestTimeoutMs,
          provider,
          history: 'inherit',
          spawnTools: [AGENT_TOOL_NAME],
          maxTokensPerFork: undefined,
          maxTurns: 20,
          timeoutMs: options.timeoutMs,
          plan,
          link,
        };
        // The result comes back on the fork's channel, behind its events, as in the engine.
        return ((transferList ? pool.run(job, { transferList: transferList as never }) : pool.run(job)) as Promise<void>)
          .then(
            async (): Promise<ForkResult> => (await channel.result) ?? emptyFailure(task.id, 'worker_crash', 'the thread sent no result'),
            (err: unknown): ForkResult => emptyFailure(task.id, 'worker_crash', err instanceof Error ? err.message : String(err)),
          )
          .finally(() => channel.close());
      });
    },
    async close() {
      await pool.close();
    },
  };
}
