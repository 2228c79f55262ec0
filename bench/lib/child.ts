/** Runs one job (a runner and its scenarios) in a child process (bench/scenario.ts). */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DispatchResult, JobSpec, ScenarioResult } from '../scenario.js';
import { measuringProcess } from './build-under-test.js';

const ENTRY = fileURLToPath(new URL('../scenario.ts', import.meta.url));
/** Children still running, so an interrupted benchmark can end them. */
export const runningJobs = new Set<ChildProcess>();
/** After its last message, a child that does not exit by itself is ended. */
const EXIT_GRACE_MS = 15_000;

/** `onFanOut`: with `job.askBeforeFanOut`, runs before each scenario's fan-out, which waits for it. */
export function runJobChild(job: JobSpec & { dispatchBursts: number }, boundMs: number): Promise<DispatchResult[]>;
export function runJobChild(job: JobSpec, boundMs: number, onFanOut?: () => Promise<void>): Promise<ScenarioResult[]>;
export function runJobChild(job: JobSpec, boundMs: number, onFanOut?: () => Promise<void>): Promise<(ScenarioResult | DispatchResult)[]> {
  return new Promise((resolve, reject) => {
    const child = fork(ENTRY, [], {
      // A big heap limit: inprocess at 8 MiB holds many request bodies at once.
      ...measuringProcess(['--import', 'tsx', '--expose-gc', '--max-old-space-size=8192']),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    runningJobs.add(child);
    const results: (ScenarioResult | DispatchResult)[] = [];
    let failure: Error | undefined;
    let finished = false;
    let exitGrace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      failure ??= new Error(`job ${job.variant} exceeded ${Math.round(boundMs / 1000)} s: killed`);
      child.kill('SIGKILL');
    }, boundMs);
    const endSoon = (): void => {
      exitGrace ??= setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    };
    child.on('message', (m: { type: string; result?: ScenarioResult | DispatchResult; message?: string }) => {
      if (m.type === 'result' && m.result) results.push(m.result);
      else if (m.type === 'fan-out') {
        void (onFanOut?.() ?? Promise.resolve()).then(
          () => child.connected && child.send({ type: 'go' }),
          (err: unknown) => {
            failure ??= err instanceof Error ? err : new Error(String(err));
            child.kill('SIGKILL');
          },
        );
      } else if (m.type === 'done') {
        finished = true;
        endSoon();
      } else if (m.type === 'error') {
        failure ??= new Error(m.message ?? 'job failed');
        endSoon();
      }
    });
    child.once('exit', (code, signal) => {
      runningJobs.delete(child);
      clearTimeout(timer);
      clearTimeout(exitGrace);
      if (failure) return reject(failure);
      if (!finished) return reject(new Error(`job process exited (code ${code}, signal ${signal}) before it was done`));
      resolve(results);
    });
    child.send({ type: 'job', job });
  });
}
