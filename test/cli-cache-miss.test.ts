import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * Why a fork missed, as users read it: the built CLI against `forkpool serve` in another process.
 * Every fork whose first call was served less than its siblings share names its reason on its
 * --out line and in the report, which sums them by reason. The TTL and the provider's own reason
 * are in cache-miss.test.ts and anthropic-cache-diagnostics.test.ts.
 */

const KEYS = { OPENAI_API_KEY: 'k', DEEPSEEK_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
const WORKSPACE = 'test/fixtures/report-workspace';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-miss-'));

interface Miss {
  reason: string;
  tokens: number;
  detail: string;
}
interface JsonReport {
  cacheMisses: { reason: string; forks: number; tokens: number }[];
  efficiency: number | null;
}

let server: ServeProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let runs = 0;
/** Runs the CLI with --out and --output-format json: the report, and each fork's --out line by id. */
async function run(
  session: string,
  tasks: string,
  args: readonly string[],
): Promise<{ report: JsonReport; lines: Map<string, Record<string, unknown>> }> {
  const out = join(tmp, `out-${++runs}.jsonl`);
  const done = await runCli(
    ['run', '--session', session, '--tasks', tasks, '--workspace', WORKSPACE, '--output-format', 'json', '--out', out, ...args],
    { env: KEYS },
  );
  expect(done.stderr).not.toContain('Error');
  expect(done.code).toBe(0);
  const lines = new Map(jsonLines(readFileSync(out, 'utf8')).map((line) => [line.id as string, line]));
  return { report: JSON.parse(done.stdout) as JsonReport, lines };
}

const reasons = (report: JsonReport): string[] => report.cacheMisses.map((m) => m.reason).sort();
const missOf = (line: Record<string, unknown> | undefined): Miss | undefined => line?.cacheMiss as Miss | undefined;
const replies = (n: number, extra: object = {}) =>
  Array.from({ length: n }, (_, i) => ({ id: `f${i}`, directive: `Part ${i}.\nREPLY done`, ...extra }));

describe('why a fork missed', () => {
  it('a warmed-up fan-out misses once: its first fork, a cold start, on its --out line, in the report and in the summary', async () => {
    server = await startServe(['--usage', 'openai']);
    const args = ['--provider', 'openai', '--base-url', `${server.url}/v1`];
    const tasks = writeTasks(tmp, replies(6));
    const { report, lines } = await run('examples/openai-session.json', tasks, args);
    expect(report.cacheMisses).toHaveLength(1);
    expect(report.cacheMisses[0]).toMatchObject({ reason: 'cold-start', forks: 1 });
    expect(missOf(lines.get('f0'))).toMatchObject({ reason: 'cold-start', tokens: report.cacheMisses[0]?.tokens });
    for (const id of ['f1', 'f2', 'f3', 'f4', 'f5']) expect(missOf(lines.get(id))).toBeUndefined();

    // A second run finds the first's entries: nothing missed, and no line about it.
    const again = await runCli(['run', '--session', 'examples/openai-session.json', '--tasks', tasks, ...args], { env: KEYS });
    expect(again.stdout).toMatch(/^cache {6}hit rate/m);
    expect(again.stdout).not.toMatch(/^misses/m);
    expect(again.stdout).not.toMatch(/ missed$/m);
    // On a cold server the summary's rows say which fork missed, and the line sums it.
    const cold = await startServe(['--usage', 'openai']);
    try {
      const text = await runCli(
        ['run', '--session', 'examples/openai-session.json', '--tasks', tasks, '--provider', 'openai', '--base-url', `${cold.url}/v1`],
        { env: KEYS },
      );
      expect(text.stdout).toMatch(/ missed$/m);
      expect(text.stdout).toMatch(/^f0 +completed .* cold-start \([\d,]+\)$/m);
      expect(text.stdout).toMatch(/^misses {5}cold-start 1 fork \([\d,]+ tokens\): first calls served less than their siblings share$/m);
    } finally {
      await cold.stop();
    }
  });

  it('warm-up none: the forks of the opening wave that the cache could not serve are cold starts', async () => {
    // Every request takes a while to prefill, so the wave's requests overlap.
    server = await startServe(['--usage', 'openai', '--latency', 'realistic']);
    const { report, lines } = await run('examples/openai-session.json', writeTasks(tmp, replies(6)), [
      '--provider',
      'openai',
      '--base-url',
      `${server.url}/v1`,
      '--warmup',
      'none',
    ]);
    expect(reasons(report)).toEqual(['cold-start']);
    expect(report.cacheMisses[0]?.forks).toBeGreaterThan(1);
    const missed = [...lines.values()].filter((line) => missOf(line) !== undefined);
    expect(missed).toHaveLength(report.cacheMisses[0]?.forks ?? -1);
    for (const line of missed) expect(missOf(line)?.detail).toMatch(/^sent before any request with its prefix had been answered/);
  });

  it('on DeepSeek, two staggered warm-up forks: the second is served whole units only, every later one the shared prefix', async () => {
    server = await startServe(['--usage', 'deepseek']);
    const args = ['--provider', 'deepseek', '--base-url', `${server.url}/v1`];
    const { report, lines } = await run('examples/openai-session.json', writeTasks(tmp, replies(6)), args);
    expect(report.cacheMisses).toEqual([expect.objectContaining({ reason: 'cold-start', forks: 2 })]);
    expect(missOf(lines.get('f0'))?.detail).toContain('sent before any request');
    expect(missOf(lines.get('f1'))?.detail).toContain('prefix units');
    for (const id of ['f2', 'f3', 'f4', 'f5']) expect(missOf(lines.get(id))).toBeUndefined();
    // The maximum follows the units that existed: the run earned what it could.
    expect(report.efficiency).toBeGreaterThan(0.95);

    // Without the second lead, the siblings sent with the first fork's release find only its whole intervals.
    const fresh = await startServe(['--usage', 'deepseek']);
    try {
      const single = await run('examples/openai-session.json', writeTasks(tmp, replies(6)), [
        '--provider',
        'deepseek',
        '--base-url',
        `${fresh.url}/v1`,
        '--warmup',
        'none',
      ]);
      expect(reasons(single.report)).toEqual(['cold-start']);
      expect(single.report.cacheMisses[0]?.forks).toBeGreaterThan(2);
    } finally {
      await fresh.stop();
    }
  });

  it('a prefix shorter than the provider caches: every fork is below the minimum', async () => {
    server = await startServe([]);
    const { report, lines } = await run('examples/notes-session.json', writeTasks(tmp, replies(4)), [
      '--provider',
      'local',
      '--base-url',
      server.url,
    ]);
    expect(report.cacheMisses).toEqual([expect.objectContaining({ reason: 'below-minimum', forks: 4 })]);
    expect(missOf(lines.get('f2'))?.detail).toMatch(/under the provider's minimum of 1,024/);
  });

  it('the first fork of a trimmed window is served only what every window shares', async () => {
    server = await startServe(['--usage', 'openai']);
    // One fork at a time, so that the window's first fork is the first of it to reach the provider.
    const tasks = writeTasks(tmp, [...replies(3), ...replies(3, { forkTurns: 2 }).map((t, i) => ({ ...t, id: `t${i}` }))]);
    const { report, lines } = await run('examples/openai-session.json', tasks, [
      '--provider',
      'openai',
      '--base-url',
      `${server.url}/v1`,
      '--concurrency',
      '1',
    ]);
    expect(reasons(report)).toEqual(['cold-start', 'trimmed-window']);
    expect(missOf(lines.get('t0'))).toMatchObject({ reason: 'trimmed-window' });
    expect(missOf(lines.get('t0'))?.detail).toContain('the first fork of its seed window');
    for (const id of ['t1', 't2', 'f1', 'f2']) expect(missOf(lines.get(id))).toBeUndefined();
  });

  it('Anthropic with the cache off: no request carries a breakpoint, so every fork names it', async () => {
    server = await startServe([]);
    const { report } = await run('examples/anthropic-session.json', writeTasks(tmp, replies(3)), [
      '--provider',
      'anthropic',
      '--base-url',
      server.url,
      '--cache',
      'off',
    ]);
    expect(report.cacheMisses).toEqual([expect.objectContaining({ reason: 'no-breakpoint', forks: 3 })]);
  });
});
