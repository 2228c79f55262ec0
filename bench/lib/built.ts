/**
 * The benchmark measures the built package, as users run it (dist/, plain JavaScript in every
 * process and worker thread; from source, each worker thread would spend about a second of CPU
 * loading TypeScript through tsx). When src/ or workers/ changed since the last build, it builds first.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAtMs(root: string): number {
  try {
    return statSync(join(root, 'dist/src/index.js')).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds (npm run build) when dist/ is missing or older than any file under src/ or workers/. */
export function ensureBuilt(root: string, log: (line: string) => void): void {
  const sources = Math.max(newestMtimeMs(join(root, 'src')), newestMtimeMs(join(root, 'workers')));
  if (builtAtMs(root) >= sources) return;
  log('bench: src/ changed since the last build: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
