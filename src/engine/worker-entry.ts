import { fileURLToPath } from 'node:url';

/**
 * Where a worker entry point lives, and how to start it.
 *
 * Compiled: dist/src/engine/worker-entry.js → dist/workers/NAME.js, plain Node.
 * From source (vitest, tsx): src/engine/worker-entry.ts → workers/NAME.ts, loaded through tsx,
 * because worker threads run outside the test runner's module graph.
 */
export interface WorkerEntry {
  filename: string;
  execArgv: string[];
  /** For a plain `new Worker`: from source, the entry is passed to the ts-entry trampoline. */
  argv: string[];
}

const fromSource = import.meta.url.endsWith('.ts');

/** For Piscina, which imports `filename` itself once the worker (and tsx) is up. */
export function workerEntry(name: string): WorkerEntry {
  const filename = fileURLToPath(new URL(`../../workers/${name}${fromSource ? '.ts' : '.js'}`, import.meta.url));
  return { filename, execArgv: fromSource ? ['--import', 'tsx'] : [], argv: [] };
}

/** For a plain `new Worker(filename, { execArgv, argv })`. */
export function plainWorkerEntry(name: string): WorkerEntry {
  const entry = workerEntry(name);
  if (!fromSource) return entry;
  return {
    filename: fileURLToPath(new URL('../../workers/ts-entry.mjs', import.meta.url)),
    execArgv: entry.execArgv,
    argv: [entry.filename],
  };
}
