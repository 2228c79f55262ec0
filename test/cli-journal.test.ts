import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';

const SESSION = 'test/fixtures/cli/session.json';

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'forkpool-journal-'));
}

function idsIn(path: string): string[] {
  return jsonLines(readFileSync(path, 'utf8')).map((l) => l.id as string);
}

describe('the run journal', () => {
  it('records a header and every terminal result, fsync’d beside --out', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [
      { id: 'a', directive: 'REPLY a' },
      { id: 'b', directive: 'REPLY b' },
    ]);
    const out = join(dir, 'out.jsonl');
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'json']);
    expect(run.code).toBe(0);
    const journal = jsonLines(readFileSync(`${out}.journal`, 'utf8'));
    expect(journal[0]).toEqual({ type: 'journal', version: 3, prefixId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(journal.slice(1).map((e) => [e.type, (e.result as { id: string }).id, (e.result as { status: string }).status]).sort()).toEqual([
      ['result', 'a', 'completed'],
      ['result', 'b', 'completed'],
    ]);
  });

  it('after SIGKILL mid-run, --resume runs only what is missing, and every fork is in --out exactly once', async () => {
    const dir = workdir();
    const taskList = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `quick${i}`, directive: `REPLY quick ${i}` })),
      ...Array.from({ length: 3 }, (_, i) => ({ id: `slow${i}`, directive: `SLEEP 1500\nREPLY slow ${i}` })),
    ];
    const tasks = writeTasks(dir, taskList);
    const out = join(dir, 'out.jsonl');
    const killed = await runCli(
      ['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'stream-json', '--warmup', 'none'],
      {
        onStdout: (child, soFar) => {
          // Kill hard once some forks have finished and the slow ones are still running.
          if ((soFar.match(/"task_notification"/g) ?? []).length >= 3) child.kill('SIGKILL');
        },
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    // The journal is written before --out, so a kill between the two leaves --out one line short.
    const journaled = jsonLines(readFileSync(`${out}.journal`, 'utf8')).filter((e) => e.type === 'result').length;
    expect(journaled).toBeGreaterThanOrEqual(3);
    expect(journaled).toBeLessThan(taskList.length);
    expect(idsIn(out).length).toBeLessThanOrEqual(journaled);
    // A kill can also tear the last line of the journal: simulate the worst case.
    appendFileSync(`${out}.journal`, '{"type":"result","prefixId":"tor');

    const resumed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`resuming: the journal holds ${journaled} finished forks; a task with the same id and content is not run again`));
    const summary = JSON.parse(resumed.stdout) as { forks: { total: number }; resumed: number };
    expect(summary.forks.total).toBe(9 - journaled);
    expect(summary.resumed).toBe(journaled);
    const after = idsIn(out);
    expect([...after].sort()).toEqual(taskList.map((t) => t.id).sort());
    const results = jsonLines(readFileSync(out, 'utf8'));
    expect(results.every((r) => r.status === 'completed')).toBe(true);
  });

  it('does not rerun a failed fork on resume', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [
      { id: 'ok', directive: 'REPLY ok' },
      { id: 'bad', directive: 'FAIL 400\nREPLY never' },
    ]);
    const out = join(dir, 'out.jsonl');
    const first = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'json']);
    expect(first.code).toBe(1);
    const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(again.stderr).toMatch(/resuming: the journal holds 2 finished forks/);
    expect(JSON.parse(again.stdout)).toMatchObject({ resumed: 2, resumedFailed: 1, forks: { total: 0 } });
    expect(again.code).toBe(1);
    expect(idsIn(out).sort()).toEqual(['bad', 'ok']);
  });

  it('reruns forks that SIGINT cancelled, and --out ends with each fork once', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [
      { id: 'quick', directive: 'REPLY quick' },
      { id: 'slow', directive: 'SLEEP 1000\nREPLY slow' },
    ]);
    const out = join(dir, 'out.jsonl');
    let sent = false;
    const interrupted = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'stream-json'], {
      onStdout: (child, soFar) => {
        if (!sent && soFar.includes('"task_notification"')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(interrupted.code).toBe(130);
    expect(jsonLines(readFileSync(out, 'utf8')).map((r) => [r.id, r.status])).toEqual([
      ['quick', 'completed'],
      ['slow', 'cancelled'],
    ]);
    const resumed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/resuming: the journal holds 1 finished forks/);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed: 1, forks: { total: 1, completed: 1 } });
    expect(jsonLines(readFileSync(out, 'utf8')).map((r) => [r.id, r.status])).toEqual([
      ['quick', 'completed'],
      ['slow', 'completed'],
    ]);
  });

  it('matches tasks one by one: a task changed since the journal runs again, an unchanged one does not; another session is refused', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [
      { id: 'a', directive: 'REPLY a' },
      { id: 'b', directive: 'REPLY b' },
    ]);
    const journal = join(dir, 'run.journal');
    expect((await runCli(['run', '--session', SESSION, '--tasks', tasks, '--journal', journal, '--output-format', 'json'])).code).toBe(0);

    const otherTasks = writeTasks(dir, [
      { id: 'a', directive: 'REPLY a' },
      { id: 'b', directive: 'REPLY changed' },
    ]);
    const changed = await runCli(['run', '--session', SESSION, '--tasks', otherTasks, '--journal', journal, '--resume', '--output-format', 'json']);
    expect(changed.code).toBe(0);
    const summary = JSON.parse(changed.stdout) as { resumed: number; forks: { total: number }; results: { id: string; text: string }[] };
    expect(summary).toMatchObject({ resumed: 1, forks: { total: 1 } });
    expect(summary.results.map((r) => [r.id, r.text])).toEqual([
      ['a', 'a'],
      ['b', 'changed'],
    ]);

    const otherSession = await runCli(['run', '--session', 'examples/session.json', '--tasks', otherTasks, '--journal', journal, '--resume']);
    expect(otherSession.code).toBe(2);
    expect(otherSession.stderr).toMatch(/the journal was written for a different session/);
    expect(otherSession.stdout).toBe('');
  });

  it('refuses a journal of forkpool 0.1 (sorted-key prefix ids), saying why and what to do', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    const journal = join(dir, 'old.journal');
    appendFileSync(journal, `${JSON.stringify({ type: 'journal', version: 1, prefixId: 'f'.repeat(64), tasksHash: '0'.repeat(64) })}\n`);
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--journal', journal, '--resume']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${journal}: the journal was written by forkpool 0.1, whose prefix ids sorted the session's keys;`);
    expect(run.stderr).toContain('Finish that run with forkpool 0.1, or remove the journal and start again');
  });

  it('--resume without a journal or --out is a usage error', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    const run = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--resume']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--resume needs a journal/);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });
});

describe('secrets', () => {
  it('never prints or writes the API key, even when the provider rejects it', async () => {
    const dir = workdir();
    const key = 'AIzaSy-forkpool-test-key-0123456789';
    const serve = await import('../src/local-server/index.js').then((m) => m.startLocalServer({ requireApiKey: 'the-right-key' }));
    try {
      const tasks = writeTasks(dir, [
        { id: 'a', directive: 'REPLY a' },
        { id: 'b', directive: 'REPLY b' },
      ]);
      const out = join(dir, 'out.jsonl');
      const outputs: string[] = [];
      for (const format of ['text', 'json', 'stream-json']) {
        const run = await runCli(
          ['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--provider', 'gemini', '--base-url', serve.url, '--output-format', format],
          { env: { GEMINI_API_KEY: key } },
        );
        expect(run.code).toBe(1);
        outputs.push(run.stdout, run.stderr);
      }
      outputs.push(readFileSync(out, 'utf8'), readFileSync(`${out}.journal`, 'utf8'));
      const all = outputs.join('\n');
      expect(all).toMatch(/HTTP 403/);
      expect(all).not.toContain(key);
      expect(all).not.toContain(key.slice(0, 12));
    } finally {
      await serve.close();
    }
  });
});
