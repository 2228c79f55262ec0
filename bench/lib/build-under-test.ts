/**
 * Which build the measuring processes (bench/lib/child.ts, bench/lib/script.ts) measure: this
 * checkout's dist/ (the default), or another checkout's (bench/compare.ts), whose dist/ the bench's
 * imports of dist/ are redirected to (bench/lib/build-redirect.mjs). The servers the bench starts
 * (bench/lib/server.ts) stay this checkout's, so both builds meet the same server.
 */
import { fileURLToPath } from 'node:url';

const REGISTER = fileURLToPath(new URL('./build-redirect-register.mjs', import.meta.url));

let other: string | undefined;

/** `root`: the checkout whose dist/ the next measuring processes load; undefined: this one. */
export function measureBuild(root: string | undefined): void {
  other = root;
}

/** The execArgv and environment of a measuring process, after the ones it asks for. */
export function measuringProcess(execArgv: readonly string[]): { execArgv: string[]; env: NodeJS.ProcessEnv } {
  if (other === undefined) return { execArgv: [...execArgv], env: process.env };
  return { execArgv: [...execArgv, '--import', REGISTER], env: { ...process.env, FORKPOOL_BENCH_BUILD: other } };
}
