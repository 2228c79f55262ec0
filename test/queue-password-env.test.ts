import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines } from './fixtures/cli/run-cli.js';
import { everythingIn, queueHarness, within, type Spawned, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';

/*
 * A Redis password kept off the command line (where ps shows it to every user of the machine): the
 * coordinator, a worker and forkpool cancel read it from the variable --redis-password-env names,
 * against the file's own redis-server started with --requirepass. Everything they print and write,
 * and everything in Redis, is searched for it.
 */

const KEY = 'fp-test-key-5e0d8c27';
const PASSWORD = 'redis-env-pw-61f0a9b3';
const h = queueHarness(KEY, 'forkpool-queue-pw-env-', () => ({ password: PASSWORD }));
const { cli, startWorker, modelServer } = h;

/** This test's database, with no password in its URL. */
function bareUrl(): string {
  const url = new URL(h.queueUrl());
  url.password = '';
  return url.toString();
}

function quickTasks(name: string, count: number): string {
  return h.writeTasks(
    name,
    Array.from({ length: count }, (_, i) => ({ id: `${name}-${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` })),
  );
}

const ENV = { FP_REDIS_PW: PASSWORD };
const FLAG = ['--redis-password-env', 'FP_REDIS_PW'];

describe('--redis-password-env', () => {
  it('the coordinator, a worker and forkpool cancel read the password from the environment: it is on no command line, in nothing they print or write; a wrong one blocks nothing', async () => {
    const model = await modelServer();
    const url = bareUrl();
    const worker = await startWorker('env1', model.url, FLAG, { queue: url, env: ENV });
    // What ps shows of the worker: its command line, without the password.
    const cmdline = readFileSync(`/proc/${worker.child.pid}/cmdline`, 'utf8');
    expect(cmdline).toContain('--redis-password-env\0FP_REDIS_PW');
    expect(cmdline).not.toContain(PASSWORD);
    expect(worker.stderr()).toMatch(/env1 ready on redis:\/\/127\.0\.0\.1:\d+\/\d+ /);

    const out = join(h.tmp(), 'env-out.jsonl');
    const args = [
      'run',
      '--session',
      SESSION,
      '--tasks',
      quickTasks('env', 3),
      '--queue',
      url,
      ...FLAG,
      '--out',
      out,
      '--output-format',
      'json',
    ];
    // A wrong password: Redis refuses it, nothing prints it, and nothing it leaves blocks the corrected command.
    const wrong = cli(args, { FP_REDIS_PW: 'not-the-pw-7a1c' });
    expect((await within('the coordinator with a wrong password', wrong.exited)).code).toBe(1);
    expect(wrong.stderr()).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+\/\d+: WRONGPASS/);
    expect(wrong.stderr()).not.toContain('not-the-pw-7a1c');

    const run = cli(args, ENV);
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(run.stderr()).not.toContain('not starting');
    // How to start more workers, as the coordinator says it: with the flag, not the password.
    expect(run.stderr()).toMatch(/\(forkpool worker --queue redis:\/\/127\.0\.0\.1:\d+\/\d+ --redis-password-env FP_REDIS_PW\)/);
    expect(
      jsonLines(readFileSync(out, 'utf8'))
        .map((l) => [l.id, l.status, l.text])
        .sort(),
    ).toEqual([0, 1, 2].map((i) => [`env-${i}`, 'completed', MARKER_ANSWER]));
    const { runId } = JSON.parse(run.stdout()) as { runId: string };
    const cancel = cli(['cancel', '--queue', url, ...FLAG, runId], ENV);
    expect((await within('forkpool cancel', cancel.exited)).code).toBe(0);
    expect(cancel.stdout()).toContain(`cancel of run ${runId} sent`);

    const stored = await everythingIn(h.queueUrl());
    expect(stored.keys.length).toBeGreaterThan(0);
    for (const text of [
      ...[worker, wrong, run, cancel].flatMap((p) => [p.stdout(), p.stderr()]),
      readFileSync(out, 'utf8'),
      readFileSync(`${out}.journal`, 'utf8'),
      stored.text,
      ...stored.keys,
    ]) {
      expect(text).not.toContain(PASSWORD);
    }
  });

  it('is checked before anything runs: an unset variable, a password in the URL as well, or the flag without --queue is a usage error naming it', async () => {
    const url = bareUrl();
    const tasks = quickTasks('usage', 1);
    const runs: [Spawned, string][] = [
      [
        cli(['run', '--session', SESSION, '--tasks', tasks, '--queue', url, '--redis-password-env', 'FP_NOT_SET']),
        '--redis-password-env FP_NOT_SET: that variable is not set (export it)',
      ],
      [
        cli(['worker', '--queue', url, '--redis-password-env', 'FP_NOT_SET']),
        '--redis-password-env FP_NOT_SET: that variable is not set (export it)',
      ],
      [
        cli(['cancel', '--queue', url, '--redis-password-env', 'FP_NOT_SET', '0123456789abcdef']),
        '--redis-password-env FP_NOT_SET: that variable is not set (export it)',
      ],
      [
        cli(['cancel', '--queue', h.queueUrl(), ...FLAG, '0123456789abcdef'], ENV),
        '--redis-password-env: the --queue URL holds a password too',
      ],
      [
        cli(['worker', '--queue', url, '--redis-password-env', 'FP REDIS'], ENV),
        '--redis-password-env: expected the name of an environment variable',
      ],
      [
        cli(['run', '--session', SESSION, '--tasks', tasks, ...FLAG], ENV),
        "--redis-password-env: only with --queue (the distributed run's Redis)",
      ],
    ];
    const exits = await within('the commands', Promise.all(runs.map(([p]) => p.exited)));
    for (const [i, [p, message]] of runs.entries()) {
      expect(exits[i]?.code).toBe(2);
      expect(p.stderr()).toContain(message);
      expect(p.stderr()).not.toContain(PASSWORD);
    }
  });
});
