/**
 * Where the time goes: CPU profiles of two fan-outs, summarized by area (package or source file).
 *   1. the fork loop's side at 8 MiB: the `clone` variant's workers run the same loop as the
 *      engine's (the engine's own workers take no extra flags), 16 forks, server latency as in the sweep;
 *   2. the main thread of `sab` at 16 KiB, 400 forks, zero latency (what the engine does per fork).
 * Writes bench/results/profile-*.cpuprofile (not committed) and prints the summaries.
 * Run: npx tsx bench/profile.ts
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freezePrefix } from '../dist/src/prefix/index.js';
import { SWEEP_LATENCY } from './config.js';
import { runJobChild } from './lib/child.js';
import { primeCache } from './lib/prime.js';
import { withServer } from './lib/server.js';
import { MIB, KIB, makeSession } from './lib/session.js';
import { summarize } from './profile-summary.js';

const results = join(dirname(fileURLToPath(import.meta.url)), 'results');
const scratch = join(results, '.profile-tmp');

function print(title: string, file: string): void {
  const s = summarize(file, 14);
  console.log(`\n## ${title}\n\nbusy ${(s.totalMs - s.idleMs).toFixed(0)} ms of ${s.totalMs.toFixed(0)} ms sampled\n`);
  console.log('| self ms | area |\n| ---: | --- |');
  for (const a of s.byArea) console.log(`| ${a.selfMs.toFixed(0)} | ${a.area} |`);
  console.log('\n| self ms | function |\n| ---: | --- |');
  for (const f of s.byFunction.slice(0, 10)) console.log(`| ${f.selfMs.toFixed(0)} | \`${f.name}\` |`);
}

mkdirSync(scratch, { recursive: true });
try {
  await withServer(SWEEP_LATENCY, async (server) => {
    await primeCache(server.url, freezePrefix(makeSession(8 * MIB)));
    process.env.FORKPOOL_BENCH_WORKER_PROF = scratch;
    await runJobChild(
      {
        variant: 'clone',
        concurrency: 16,
        threads: 2,
        warmup: 'none',
        url: server.url,
        latency: SWEEP_LATENCY,
        timeoutMs: 300_000,
        scenarios: [{ prefixBytes: 8 * MIB, n: 16 }],
      },
      600_000,
    );
    delete process.env.FORKPOOL_BENCH_WORKER_PROF;
  });
  const workers = readdirSync(scratch).filter((f) => f.endsWith('.cpuprofile'));
  workers.forEach((f, i) => {
    renameSync(join(scratch, f), join(results, `profile-fork-loop-8MiB-worker${i + 1}.cpuprofile`));
  });

  await withServer('zero', async (server) => {
    await primeCache(server.url, freezePrefix(makeSession(16 * KIB)));
    await runJobChild(
      {
        variant: 'sab',
        concurrency: 64,
        threads: 2,
        warmup: 'none',
        url: server.url,
        latency: 'zero',
        timeoutMs: 300_000,
        profileDir: scratch,
        scenarios: [{ prefixBytes: 16 * KIB, n: 400 }],
      },
      600_000,
    );
  });
  const main = readdirSync(scratch).filter((f) => f.startsWith('main-'));
  for (const f of main) renameSync(join(scratch, f), join(results, 'profile-sab-main-16KiB.cpuprofile'));

  console.log('# CPU profiles');
  workers.forEach((_, i) => {
    print(
      `Fork loop in a worker, 8 MiB prefix, 16 forks × 3 calls (worker ${i + 1} of 2)`,
      join(results, `profile-fork-loop-8MiB-worker${i + 1}.cpuprofile`),
    );
  });
  if (main.length > 0)
    print('sab main thread over a fan-out of 400 forks, 16 KiB prefix, zero latency', join(results, 'profile-sab-main-16KiB.cpuprofile'));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
