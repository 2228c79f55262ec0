import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { offlineEnv, REPO_ROOT } from '../fixtures/cli/run-cli.js';

/* The docs' runnable examples: the block a document shows, and the example run as written in a process of its own. */

/** The first ```ts block of `doc` (a path under the checkout: `README.md`, `docs/embedding.md`) after `marker`. */
export function blockAfter(doc: string, marker: string): string {
  const text = readFileSync(`${REPO_ROOT}${doc}`, 'utf8');
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${doc} has no ${JSON.stringify(marker)}`);
  const start = text.indexOf('```ts\n', at) + '```ts\n'.length;
  return text.slice(start, text.indexOf('```\n', start));
}

/** Runs an example file with tsx from the checkout's root, offline. */
export function runExample(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNode(['--import', 'tsx', file]);
}

/**
 * Node with these arguments, offline (plus `env`), in `cwd` (default: the checkout's root); its output once it exits.
 * Past `timeoutMs` it is killed, and its stderr says so.
 */
export function runNode(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...offlineEnv(), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            stderr += `(killed: still running after ${options.timeoutMs} ms)\n`;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
