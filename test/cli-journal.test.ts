import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli, writeTasks, type CliRun } from './fixtures/cli/run-cli.js';

const SESSION = 'test/fixtures/cli/session.json';

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'forkpool-journal-'));
}

function idsIn(path: string): string[] {
  return jsonLines(readFileSync(path, 'utf8')).map((l) => l.id as string);
}

/** A run of a quick and a slow fork, SIGINTed once the quick one's notification is out: one fork journaled, one cancelled. */
async function interruptedRun(dir: string): Promise<{ tasks: string; out: string; interrupted: CliRun }> {
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
  return { tasks, out, interrupted };
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
    expect(
      journal
        .slice(1)
        .map((e) => [e.type, (e.result as { id: string }).id, (e.result as { status: string }).status])
        .sort(),
    ).toEqual([
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
    expect(resumed.stderr).toMatch(
      new RegExp(`resuming: the journal holds ${journaled} finished forks; a task with the same id and content is not run again`),
    );
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
    const { tasks, out, interrupted } = await interruptedRun(dir);
    expect(interrupted.code).toBe(130);
    expect(jsonLines(readFileSync(out, 'utf8')).map((r) => [r.id, r.status])).toEqual([
      ['quick', 'completed'],
      ['slow', 'cancelled'],
    ]);
    const resumed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/resuming: the journal holds 1 finished fork;/);
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
    const changed = await runCli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      otherTasks,
      '--journal',
      journal,
      '--resume',
      '--output-format',
      'json',
    ]);
    expect(changed.code).toBe(0);
    const summary = JSON.parse(changed.stdout) as { resumed: number; forks: { total: number }; results: { id: string; text: string }[] };
    expect(summary).toMatchObject({ resumed: 1, forks: { total: 1 } });
    expect(summary.results.map((r) => [r.id, r.text])).toEqual([
      ['a', 'a'],
      ['b', 'changed'],
    ]);

    const otherSession = await runCli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      otherTasks,
      '--journal',
      journal,
      '--resume',
    ]);
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
    expect(run.stderr).toContain('Finish that run with forkpool 0.1, or start again with --overwrite instead of --resume');
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

describe('a run never throws away what an earlier run paid for', () => {
  const three = [
    { id: 'a', directive: 'REPLY a' },
    { id: 'b', directive: 'REPLY b' },
    { id: 'c', directive: 'FAIL 400\nREPLY never' },
  ];

  it('re-running with --out but without --resume refuses (exit 2), naming both flags and the finished forks, and changes nothing', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, three);
    const out = join(dir, 'out.jsonl');
    expect((await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'json'])).code).toBe(1);
    const before = { out: readFileSync(out, 'utf8'), journal: readFileSync(`${out}.journal`, 'utf8') };

    const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'json']);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `forkpool: run: not starting: the journal ${out}.journal holds 3 finished forks, and ${out} already holds results (${before.out.length} bytes); ` +
        'pass --resume to run only the tasks not finished (a task with the same id and content is not run again), or --overwrite to discard the 3 finished and run every task again\n',
    );
    expect(again.stderr).not.toContain('using the built-in local server');
    expect(readFileSync(out, 'utf8')).toBe(before.out);
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(before.journal);
  });

  it('an interrupted run: the refusal counts what the journal holds, and --resume then runs only the rest', async () => {
    const dir = workdir();
    const { tasks, out, interrupted } = await interruptedRun(dir);
    expect(interrupted.code).toBe(130);
    const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`the journal ${out}.journal holds 1 finished fork,`);
    expect(again.stderr).toContain(
      'pass --resume to run only the tasks not finished (a task with the same id and content is not run again), or --overwrite to discard the 1 finished and run every task again',
    );
    const resumed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--resume', '--output-format', 'json']);
    expect(resumed.code).toBe(0);
    expect(idsIn(out)).toEqual(['quick', 'slow']);
  });

  it('--overwrite starts again: --out and the journal hold this run only, each fork once', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, three);
    const out = join(dir, 'out.jsonl');
    await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out]);
    const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--overwrite', '--output-format', 'json']);
    expect(again.code).toBe(1);
    expect(idsIn(out).sort()).toEqual(['a', 'b', 'c']);
    expect(jsonLines(readFileSync(`${out}.journal`, 'utf8')).filter((e) => e.type === 'result')).toHaveLength(3);
  });

  it('a journal of other tasks is resumed task by task; --out without its journal can only be overwritten; a file that is not a journal is not replaced unasked', async () => {
    const dir = workdir();
    const out = join(dir, 'out.jsonl');
    await runCli(['run', '--session', SESSION, '--tasks', writeTasks(dir, three), '--out', out]);
    const other = writeTasks(dir, [{ id: 'x', directive: 'REPLY x' }]);
    const changed = await runCli(['run', '--session', SESSION, '--tasks', other, '--out', out]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`the journal ${out}.journal holds 3 finished forks, and ${out} already holds results`);
    expect(changed.stderr).toContain(
      'pass --resume to run only the tasks not finished (a task with the same id and content is not run again), or --overwrite to discard the 3 finished and run every task again',
    );
    // Tasks are matched one by one as they stream in: --resume with other tasks runs the ones it has no result for.
    const resumed = await runCli(['run', '--session', SESSION, '--tasks', other, '--out', out, '--resume']);
    expect(resumed.code).toBe(0);
    expect(idsIn(out)).toEqual(['x']);

    rmSync(`${out}.journal`);
    const bytes = readFileSync(out).length;
    const noJournal = await runCli(['run', '--session', SESSION, '--tasks', other, '--out', out]);
    expect(noJournal.code).toBe(2);
    expect(noJournal.stderr).toBe(
      `forkpool: run: not starting: ${out} already holds results (${bytes} bytes), and there is no journal at ${out}.journal to resume from; pass --overwrite to discard them and start again, or choose another --out\n`,
    );
    const orphan = await runCli(['run', '--session', SESSION, '--tasks', other, '--out', out, '--resume']);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain(`--resume: there is no journal at ${out}.journal, so the results in ${out}`);
    expect(readFileSync(out, 'utf8')).not.toBe('');

    const notJournal = join(dir, 'notes.txt');
    writeFileSync(notJournal, 'my notes\n');
    const wrongFile = await runCli(['run', '--session', SESSION, '--tasks', other, '--journal', notJournal]);
    expect(wrongFile.code).toBe(2);
    expect(wrongFile.stderr).toContain(
      `${notJournal} is not a forkpool journal; pass --overwrite to discard it and start again, or choose another --journal`,
    );
    expect(readFileSync(notJournal, 'utf8')).toBe('my notes\n');
  });

  it('a distributed run refuses too, before it reaches Redis, naming the run the journal holds', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    const journal = join(dir, 'run.journal');
    // A coordinator killed after it enqueued its jobs leaves a journal that names its run and no result.
    await runCli(['run', '--session', SESSION, '--tasks', tasks, '--journal', journal]);
    const header = readFileSync(journal, 'utf8').split('\n')[0];
    writeFileSync(journal, `${header}\n${JSON.stringify({ type: 'run', runId: '0123456789abcdef' })}\n`);
    // Port 9 (discard): nothing listens, so reaching Redis would fail differently.
    const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--journal', journal, '--queue', 'redis://127.0.0.1:9']);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `forkpool: run: not starting: the journal ${journal} holds 0 finished forks of distributed run 0123456789abcdef, whose jobs may still be in the queue; ` +
        'pass --resume to run only the tasks not finished (a task with the same id and content is not run again), or --overwrite to discard it and run every task again\n',
    );
  });

  it('a run that fails before any fork started leaves nothing that blocks the same command: on this machine, and distributed', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    // On this machine: its metrics port is taken, so it stops after the journal and --out were opened.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const out = join(dir, 'local.jsonl');
      const port = String((taken.address() as AddressInfo).port);
      const failed = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--metrics-port', port]);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain(`--metrics-port ${port}: cannot listen on 127.0.0.1: EADDRINUSE`);
      const again = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', out, '--output-format', 'json']);
      expect(again.stderr).not.toContain('not starting');
      expect(again.code).toBe(0);
      expect(idsIn(out)).toEqual(['a']);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    // Distributed: nobody answers at the Redis address (port 9, discard), so no job was ever enqueued.
    const journal = join(dir, 'queue.journal');
    const args = ['run', '--session', SESSION, '--tasks', tasks, '--journal', journal, '--queue', 'redis://127.0.0.1:9'];
    const runs = [await runCli(args), await runCli(args)];
    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('cannot reach Redis at redis://127.0.0.1:9');
      expect(run.stderr).not.toContain('not starting');
    }
    expect(jsonLines(readFileSync(journal, 'utf8')).map((e) => e.type)).toEqual(['journal']);
  });

  it('--resume with --overwrite, or --overwrite without a file, is a usage error', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    const both = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', join(dir, 'o.jsonl'), '--resume', '--overwrite']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'forkpool: --resume and --overwrite exclude each other: --resume keeps the finished forks, --overwrite discards them\n',
    );
    const alone = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--overwrite']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe('forkpool: --overwrite needs --out FILE or --journal FILE (the results it would replace)\n');
  });

  it('--out or --journal in a directory that does not exist is a usage error naming the flag', async () => {
    const dir = workdir();
    const tasks = writeTasks(dir, [{ id: 'a', directive: 'REPLY a' }]);
    const missing = join(dir, 'missing', 'x.jsonl');
    const out = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', missing]);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`forkpool: --out ${missing}: the directory ${join(dir, 'missing')} does not exist\n`);
    const journal = await runCli(['run', '--session', SESSION, '--tasks', tasks, '--out', join(dir, 'o.jsonl'), '--journal', missing]);
    expect(journal.code).toBe(2);
    expect(journal.stderr).toBe(`forkpool: --journal ${missing}: the directory ${join(dir, 'missing')} does not exist\n`);
    expect(existsSync(join(dir, 'o.jsonl'))).toBe(false);
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
          [
            'run',
            '--session',
            SESSION,
            '--tasks',
            tasks,
            '--out',
            out,
            '--overwrite',
            '--provider',
            'gemini',
            '--base-url',
            serve.url,
            '--output-format',
            format,
          ],
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
