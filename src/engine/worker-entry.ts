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
}

export function workerEntry(name: string): WorkerEntry {
  const fromSource = import.meta.url.endsWith('.ts');
  const ext = fromSource ? '.ts' : '.js';
  const filename = fileURLToPath(new URL(`../../workers/${name}${ext}`, import.meta.url));
  return { filename, execArgv: fromSource ? ['--import', 'tsx'] : [] };
}
