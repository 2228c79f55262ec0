import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './io.js';

/** Benchmarks live in the source checkout (bench/), run through tsx; this forwards to them. */
export async function benchCommand(argv: string[], io: CliIo): Promise<number> {
  const script = ['../../bench/run.ts', '../../../bench/run.ts']
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((path) => existsSync(path));
  if (!script) {
    io.stderr.write('forkpool bench: the benchmarks ship with the source checkout; run `npm run bench` there\n');
    return 2;
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...argv], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
