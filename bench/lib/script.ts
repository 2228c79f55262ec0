import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuringProcess } from './build-under-test.js';
import { runningJobs } from './child.js';

/*
 * The measuring scripts of bench/ (retention.ts, task-stream.ts): each runs in a process of its own
 * with GC exposed, takes its job as JSON in argv[2] and prints its result as its last stdout line.
 */

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Runs a bench/ script on a job in a child process, killed after `boundMs`. `onAsk`: answers the
 * script's askRunner() (what only this process can see, such as its server's counters).
 */
export function runScriptChild<J, R>(script: string, job: J, boundMs: number, onAsk?: () => Promise<unknown>): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = fork(join(benchDir, script), [JSON.stringify(job)], {
      ...measuringProcess(['--import', 'tsx', '--expose-gc']),
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    runningJobs.add(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('message', (m: { type?: string; seq?: number }) => {
      if (m.type !== 'ask' || onAsk === undefined) return;
      onAsk().then(
        (value) => child.connected && child.send({ type: 'answer', seq: m.seq, value }),
        () => child.kill('SIGKILL'),
      );
    });
    child.once('exit', (code) => {
      runningJobs.delete(child);
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${script} exited with code ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as R);
    });
  });
}

let asked = 0;

/** In a script run by runScriptChild with `onAsk`: the runner's answer. */
export function askRunner<T>(): Promise<T> {
  const seq = ++asked;
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('askRunner: not run by runScriptChild (no IPC channel)'));
    const onMessage = (m: { type?: string; seq?: number; value?: T }): void => {
      if (m.type !== 'answer' || m.seq !== seq) return;
      process.off('message', onMessage);
      resolve(m.value as T);
    };
    process.on('message', onMessage);
    process.send({ type: 'ask', seq });
  });
}

/** When node was started on `script`: measures the job in argv[2], prints the result, exits 0 (1 on failure). */
export function runIfMain<J, R>(script: string, measure: (job: J) => Promise<R>): void {
  if (!process.argv[1]?.endsWith(script)) return;
  measure(JSON.parse(process.argv[2] ?? '{}') as J).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
