import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';

/*
 * SIGINT mid-run: the first fork answers at once, the others sleep in the model for 5 s. The
 * signal is sent once the first fork's task_notification is on stdout; the run must cancel the
 * sleepers, keep the finished result in --out, and exit non-zero.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-signals-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TASKS = [
  '{"id":"quick","directive":"REPLY done quickly"}',
  '{"id":"slow-1","directive":"SLEEP 5000\\nREPLY too late"}',
  '{"id":"slow-2","directive":"SLEEP 5000\\nREPLY too late"}',
].join('\n');

describe('forkpool run: SIGINT', () => {
  it('cancels the forks in flight, keeps finished results in --out, exits non-zero', async () => {
    const out = join(tmp, 'results.jsonl');
    let signalled = false;
    const run = await runCli(
      ['run', '--session', 'test/fixtures/cli/session.json', '--tasks', '-', '--output-format', 'stream-json', '--out', out],
      {
        input: TASKS,
        onStdout: (child, soFar) => {
          if (!signalled && soFar.includes('"subtype":"task_notification"')) {
            signalled = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(signalled).toBe(true);
    expect(run.code).not.toBe(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('forkpool: stopped by SIGINT; finished results were kept');

    const results = new Map(jsonLines(readFileSync(out, 'utf8')).map((r) => [r.id, r]));
    expect(results.get('quick')).toMatchObject({ status: 'completed', text: 'done quickly' });
    // Every fork still gets its line: the sleepers as cancelled, never as a late answer.
    for (const id of ['slow-1', 'slow-2']) {
      expect(results.get(id)).toMatchObject({ status: 'cancelled', error: { kind: 'cancelled' } });
      expect(results.get(id)?.text).not.toContain('too late');
    }

    const events = jsonLines(run.stdout) as Record<string, any>[];
    const notified = events.filter((e) => e.subtype === 'task_notification').map((e) => [e.data.task_id, e.data.status]);
    expect(notified.sort()).toEqual([
      ['quick', 'completed'],
      ['slow-1', 'cancelled'],
      ['slow-2', 'cancelled'],
    ]);
    const result = events[events.length - 1] as Record<string, any>;
    expect(result.type).toBe('result');
    expect(result.is_error).toBe(true);
    expect(result.report.forks).toMatchObject({ total: 3, completed: 1, cancelled: 2 });
  });

  it('forkpool prompt: SIGINT cancels the sleeping fork, reports the finished one, exits non-zero', async () => {
    let signalled = false;
    const run = await runCli(
      [
        'prompt',
        'FORK REPLY quick answer\nFORK SLEEP 5000',
        '--session',
        'test/fixtures/cli/session.json',
        '--output-format',
        'stream-json',
      ],
      {
        onStdout: (child, soFar) => {
          if (!signalled && soFar.includes('"subtype":"task_notification"')) {
            signalled = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(signalled).toBe(true);
    expect(run.code).toBe(130);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    expect(events.filter((e) => e.subtype === 'task_started')).toHaveLength(2);
    const notified = events.filter((e) => e.subtype === 'task_notification').map((e) => [e.data.result.text, e.data.status]);
    expect(notified.sort()).toEqual([
      ['', 'cancelled'],
      ['quick answer', 'completed'],
    ]);
    const result = events[events.length - 1] as Record<string, any>;
    expect(result).toMatchObject({ type: 'result', is_error: true });
    expect(result.forks.map((f: { status: string }) => f.status).sort()).toEqual(['cancelled', 'completed']);
  });
});
