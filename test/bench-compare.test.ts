import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { judge } from '../bench/lib/verdict.js';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';

/*
 * `npm run bench -- --against <commit>` (bench/compare.ts): the verdict on each figure, and the
 * redirect that makes the bench's measuring code load another build's dist/.
 */

describe('the verdict on a figure, base against change', () => {
  it('takes the medians and their spread (min–max) of each build’s runs', () => {
    const v = judge([10, 14, 12], [11, 13, 12.5], 'lower');
    expect(v.base).toEqual({ median: 12, min: 10, max: 14, n: 3 });
    expect(v.change).toEqual({ median: 12.5, min: 11, max: 13, n: 3 });
    expect(v.ratio).toBeCloseTo(12.5 / 12);
  });

  it('is "no worse" within 5 % of the base’s median when the runs agree', () => {
    expect(judge([100, 100, 100], [104.9, 105, 104.9], 'lower').verdict).toBe('no worse');
    expect(judge([100, 100, 100], [106, 106, 106], 'lower').verdict).toBe('worse');
  });

  it('allows the larger run-to-run spread when it is larger than 5 %', () => {
    // 20 % worse, but the base's own runs spread over 30.
    const loose = judge([90, 100, 120], [119, 120, 121], 'lower');
    expect(loose.allowance).toBe(30);
    expect(loose.verdict).toBe('no worse');
    // The same medians with tight runs: worse.
    expect(judge([99, 100, 101], [119, 120, 121], 'lower').verdict).toBe('worse');
  });

  it('turns round for figures where higher is better (forks per second)', () => {
    expect(judge([1000, 1000, 1000], [940, 940, 940], 'higher').verdict).toBe('worse');
    expect(judge([1000, 1000, 1000], [960, 960, 960], 'higher').verdict).toBe('no worse');
    expect(judge([1000, 1000, 1000], [2000, 2000, 2000], 'higher').verdict).toBe('no worse');
    expect(judge([1000, 1000, 1000], [2000, 2000, 2000], 'lower').verdict).toBe('worse');
  });

  it('says "not measured" when a build has no runs', () => {
    expect(judge([], [1, 2, 3], 'lower').verdict).toBe('not measured');
    expect(judge([1, 2, 3], [Number.NaN], 'lower').verdict).toBe('not measured');
  });
});

describe("the redirect of the bench's dist/ imports to another build", () => {
  const other = mkdtempSync(join(tmpdir(), 'forkpool-bench-other-'));
  mkdirSync(join(other, 'dist/src'), { recursive: true });
  writeFileSync(join(other, 'dist/src/index.js'), "export const build = 'other';\n");
  afterAll(() => rmSync(other, { recursive: true, force: true }));

  /** Imports `module` of this checkout's dist/ in a node process with the redirect to `other`; its stdout and stderr. */
  const importIn = (module: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const url = pathToFileURL(join(REPO_ROOT, 'dist/src', module)).href;
      const script = `const m = await import(${JSON.stringify(url)}); console.log(m.build ?? 'this checkout')`;
      const child = execFile(
        process.execPath,
        ['--import', join(REPO_ROOT, 'bench/lib/build-redirect-register.mjs'), '--input-type=module', '-e', script],
        { env: { ...process.env, FORKPOOL_BENCH_BUILD: other }, timeout: 20_000 },
        (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });

  it("loads the other build's module in place of this checkout's", async () => {
    const run = await importIn('index.js');
    expect(run.stdout.trim()).toBe('other');
    expect(run.code).toBe(0);
  });

  it('fails naming the module when the other build does not have it', async () => {
    const run = await importIn('protocol.js');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the build at ${join(other, 'dist')}/ has no src/protocol.js`);
    expect(run.stderr).toContain('this measurement cannot run against that build');
  });
});
