import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, jsonLines, offlineEnv, runCli } from './fixtures/cli/run-cli.js';
import { until, within } from './support/queue-harness.js';

/*
 * `forkpool run` reads its tasks as a stream: forks start before the task input ends, and a bad
 * line stops the reading (the forks before it run and are written) with exit 2 naming the line.
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
    const result = jsonLines(stdout).find((l) => l.type === 'result') as { report: { forks: { total: number; completed: number; totalKnown: boolean } } };
    expect(result.report.forks).toMatchObject({ total: 3, completed: 3, totalKnown: true });
  });

  it('a repeated id mid-stream names both lines; the forks before it keep their results; exit 2', async () => {
    const out = join(tmp, 'dup.jsonl');
    const input = [line('a'), line('x'), '', line('b'), line('x', 'REPLY again'), line('c')].join('\n');
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--out', out, '--output-format', 'json'], { input });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('forkpool: <stdin>:5: id: "x" repeats line 2; task ids must be unique');
    expect(jsonLines(readFileSync(out, 'utf8')).map((r) => r.id).sort()).toEqual(['a', 'b', 'x']);
    const summary = JSON.parse(run.stdout) as { is_error: boolean; forks: { total: number; completed: number } };
    expect(summary).toMatchObject({ is_error: true, forks: { total: 3, completed: 3 } });
  });
});

describe('forkpool run --tasks FILE: a bad line mid-file', () => {
  it('stops the reading at the line: earlier forks run and are journaled, none after it; fixed, --resume runs only the rest', async () => {
    const tasks = join(tmp, 'tasks.jsonl');
    const good = Array.from({ length: 6 }, (_, i) => line(`t${i}`));
    writeFileSync(tasks, `${[...good, '{"id":"t6","directive":"REPLY 6","forkTurns":0}', line('t7')].join('\n')}\n`);
    const out = join(tmp, 'out.jsonl');
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'text']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(`forkpool: ${tasks}:7: forkTurns: must be "all" or a positive integer`);
    expect(run.stdout).toMatch(/forks {6}6 completed, 0 failed, 0 cancelled of 6/);
    expect(jsonLines(readFileSync(out, 'utf8')).map((r) => r.id).sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);

    writeFileSync(tasks, `${[...good, line('t6'), line('t7')].join('\n')}\n`);
    const resumed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed: 6, forks: { total: 2, completed: 2 } });
    // --out is rebuilt as the tasks pass: the journaled results in task order, then the new ones.
    const ids = jsonLines(readFileSync(out, 'utf8')).map((r) => r.id as string);
    expect(ids.slice(0, 6)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(ids.slice(6).sort()).toEqual(['t6', 't7']);
  });
});
