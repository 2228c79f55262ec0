import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, jsonLines, offlineEnv, runCli } from './fixtures/cli/run-cli.js';
import { until, within } from './support/queue-harness.js';

/*
 * `forkpool run` reads its tasks as a stream: forks start before the task input ends. A task file
 * is checked whole first: a bad line anywhere is exit 2 naming it, and nothing runs. From stdin, a
 * bad line stops the reading: the forks before it run and are written, and the run exits 1 naming it.
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const line = (id: string, directive = `REPLY ${id}`): string => JSON.stringify({ id, directive });
const notifications = (stdout: string): string[] =>
  jsonLines(stdout)
    .filter((l) => l.subtype === 'task_notification')
    .map((l) => (l.data as { task_id: string }).task_id);

describe('forkpool run --tasks - (a pipe)', () => {
  it('starts forks before stdin ends: each line written after the previous fork finished', async () => {
    const child = spawn(process.execPath, [CLI, 'run', '--session', SESSION, '--tasks', '-', '--output-format', 'stream-json'], {
      cwd: REPO_ROOT,
      env: offlineEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      child.stdin.write(`${line('first')}\n`);
      await until(`the first fork's result (stderr: ${stderr})`, () => notifications(stdout).includes('first'));
      child.stdin.write(`\n${line('second')}\n`);
      await until(`the second fork's result (stderr: ${stderr})`, () => notifications(stdout).includes('second'));
      // Still running: the input has not ended.
      expect(child.exitCode).toBeNull();
      child.stdin.end(`${line('third')}\n`);
      expect(await within('the run to end', exited)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(notifications(stdout)).toEqual(['first', 'second', 'third']);
    const result = jsonLines(stdout).find((l) => l.type === 'result') as {
      report: { forks: { total: number; completed: number; totalKnown: boolean } };
    };
    expect(result.report.forks).toMatchObject({ total: 3, completed: 3, totalKnown: true });
  });

  it('a repeated id mid-stream names both lines; the forks before it keep their results, the line after it is not read; exit 1', async () => {
    const out = join(tmp, 'dup.jsonl');
    const input = [line('a'), line('x'), '', line('b'), line('x', 'REPLY again'), line('c')].join('\n');
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--out', out, '--output-format', 'json'], { input });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('forkpool: <stdin>:5: id: "x" repeats line 2; task ids must be unique');
    // The bad line has no result, nor has the line after it.
    expect(
      jsonLines(readFileSync(out, 'utf8'))
        .map((r) => r.id)
        .sort(),
    ).toEqual(['a', 'b', 'x']);
    const summary = JSON.parse(run.stdout) as { is_error: boolean; forks: { total: number; completed: number } };
    expect(summary).toMatchObject({
      is_error: true,
      input: { source: '<stdin>', throughLine: 4, tasksTaken: 3, restRead: false },
      forks: { total: 3, taken: 3, totalKnown: false, completed: 3 },
    });
  });
});

describe('forkpool run --tasks FILE: checked whole before anything runs', () => {
  it('a bad line or a repeated id near the end: exit 2 naming it, no fork ran, nothing written; fixed, the same command runs', async () => {
    const tasks = join(tmp, 'tasks.jsonl');
    const good = Array.from({ length: 6 }, (_, i) => line(`t${i}`));
    const out = join(tmp, 'out.jsonl');
    const args = ['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'text'];
    writeFileSync(tasks, `${[...good, '{"id":"t6","directive":"REPLY 6","forkTurns":0}', line('t7')].join('\n')}\n`);
    const bad = await runCli(args);
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: ${tasks}:7: forkTurns: must be "all" or a positive integer\n` });
    writeFileSync(tasks, `${[...good, line('t6'), line('t2', 'REPLY again')].join('\n')}\n`);
    const repeated = await runCli(args);
    expect(repeated).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `forkpool: ${tasks}:8: id: "t2" repeats line 3; task ids must be unique\n`,
    });
    // Neither left an --out or a journal that would make the corrected command refuse to start.
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.journal`)).toBe(false);

    writeFileSync(tasks, `${[...good, line('t6'), line('t7')].join('\n')}\n`);
    const fixed = await runCli(args);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/forks {6}8 completed, 0 failed, 0 cancelled of 8\n/);
    expect(
      jsonLines(readFileSync(out, 'utf8'))
        .map((r) => r.id)
        .sort(),
    ).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
  });
});
