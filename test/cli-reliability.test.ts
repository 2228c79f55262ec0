import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, writeTasks } from './fixtures/cli/run-cli.js';

const SESSION = 'test/fixtures/cli/session.json';

function tasksFile(lines: object[]): string {
  return writeTasks(mkdtempSync(join(tmpdir(), 'forkpool-rel-')), lines);
}

interface Summary {
  forks: { completed: number; failed: number };
  retries: number;
  failures: { id: string; kind: string; message: string }[];
}

describe('retry flags', () => {
  const tasks = tasksFile([
    { id: 'a', directive: 'FAIL 503 x2\nREPLY a' },
    { id: 'b', directive: 'FAIL 503 x2\nREPLY b' },
  ]);

  it('--max-attempts bounds the attempts of each model call', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--max-attempts', '2', '--output-format', 'json']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as Summary;
    expect(summary.forks).toMatchObject({ completed: 0, failed: 2 });
    expect(summary.retries).toBe(2);
    expect(summary.failures.map((f) => f.message)).toEqual([expect.stringMatching(/HTTP 503/), expect.stringMatching(/HTTP 503/)]);
  });

  it('--retry-budget caps the retries of the whole run', async () => {
    const run = await runCli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      tasks,
      '--retry-budget',
      '3',
      '--concurrency',
      '1',
      '--output-format',
      'json',
    ]);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as Summary;
    expect(summary.forks).toMatchObject({ completed: 1, failed: 1 });
    expect(summary.retries).toBe(3);
    expect(summary.failures[0]?.message).toMatch(/retry budget exhausted/);
  });

  it('rejects a bad rate limit before running anything', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--rpm', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('forkpool: --rpm: must be a positive integer (got "0")');
  });
});
