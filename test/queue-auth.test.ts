import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines } from './fixtures/cli/run-cli.js';
import { everythingIn, queueHarness, within, type Spawned, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';
import { makeTestCertificate, type TestCertificate } from './support/tls-certificate.js';

/*
 * A Redis as deployed: a password on the default user (requirepass), an ACL user, and a TLS port
 * whose certificate a CA of the test's own signed. The coordinator, the workers and forkpool cancel
 * from the built CLI, against the file's own redis-server; every output and everything written
 * (stdout, stderr, --out, the journal, stream-json, Redis's keys and values) is searched for the
 * passwords. Every wait is bounded.
 */

const KEY = 'fp-test-key-9a4d27c5';
const PASSWORD = 'redis-pw-8d2e4b71';
const USER = 'forkpool-user';
/** With a '/' (written %2F in a URL): the address is decoded before it reaches Redis. */
const USER_PASSWORD = 'acl-pw/51c3e9d0';

let certificate: TestCertificate | undefined;
const h = queueHarness(KEY, 'forkpool-queue-auth-', (tmp) => ({
  password: PASSWORD,
  user: { name: USER, password: USER_PASSWORD },
  tls: (certificate = makeTestCertificate(tmp)),
}));
const { cli, startWorker, modelServer } = h;

/** `count` quick forks named NAME-i. */
function quickTasks(name: string, count: number): string {
  return h.writeTasks(
    name,
    Array.from({ length: count }, (_, i) => ({ id: `${name}-${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` })),
  );
}

/** This test's database on the TLS port, as the ACL user. */
function tlsUserUrl(): string {
  const db = new URL(h.queueUrl()).pathname;
  return `rediss://${USER}:${encodeURIComponent(USER_PASSWORD)}@127.0.0.1:${h.server().tlsPort}${db}`;
}

/** Everything the processes printed, the files they wrote and what is in Redis: none of it holds the secret, raw or URL-encoded. */
async function expectNowhere(secret: string, processes: readonly Spawned[], files: readonly string[]): Promise<void> {
  const stored = await everythingIn(h.queueUrl());
  const texts = [
    ...processes.flatMap((p) => [p.stdout(), p.stderr()]),
    ...files.map((f) => readFileSync(f, 'utf8')),
    stored.text,
    ...stored.keys,
  ];
  expect(stored.keys.length).toBeGreaterThan(0);
  for (const text of texts) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(encodeURIComponent(secret));
  }
}

describe('a distributed run on a Redis with a password, an ACL user and TLS', () => {
  it('redis://:PASSWORD@…: the coordinator, a worker and forkpool cancel work, and the password is in nothing they print or write', async () => {
    const model = await modelServer();
    const worker = await startWorker('pw1', model.url);
    const out = join(h.tmp(), 'pw-out.jsonl');
    const run = cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      quickTasks('pw', 3),
      '--queue',
      h.queueUrl(),
      '--out',
      out,
      '--output-format',
      'stream-json',
    ]);
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(run.stderr()).toMatch(/distributed run [0-9a-f]{16} on redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/\d+/);
    const results = jsonLines(readFileSync(out, 'utf8'));
    expect(results.map((l) => [l.id, l.status, l.text]).sort()).toEqual([0, 1, 2].map((i) => [`pw-${i}`, 'completed', MARKER_ANSWER]));
    const events = jsonLines(run.stdout());
    expect(events.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    const runId = /distributed run ([0-9a-f]{16})/.exec(run.stderr())?.[1] as string;

    // forkpool cancel of the run and of a run Redis does not know; a worker with a wrong password; a URL too broken to parse.
    const cancel = cli(['cancel', '--queue', h.queueUrl(), runId]);
    const unknown = cli(['cancel', '--queue', h.queueUrl(), 'fedcba9876543210']);
    const wrong = cli([
      'worker',
      '--queue',
      h.queueUrl().replace(PASSWORD, 'not-the-pw-1'),
      '--provider',
      'gemini',
      '--base-url',
      model.url,
    ]);
    const broken = cli(['cancel', '--queue', `redis://:${PASSWORD}@127.0.0.1:bad/1`, runId]);
    const exits = await within('the other commands', Promise.all([cancel, unknown, wrong, broken].map((p) => p.exited)));
    expect(exits.map((e) => e.code)).toEqual([0, 1, 1, 2]);
    expect(cancel.stdout()).toContain(`cancel of run ${runId} sent: 0 waiting jobs removed`);
    expect(unknown.stderr()).toMatch(/Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/\d+ has no such run/);
    // Redis refuses the wrong password, and neither password is printed.
    expect(wrong.stderr()).toMatch(/cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/\d+: WRONGPASS/);
    expect(wrong.stderr()).not.toContain('not-the-pw-1');
    expect(broken.stderr()).toContain('--queue: not a URL');

    await expectNowhere(PASSWORD, [worker, run, cancel, unknown, wrong, broken], [out, `${out}.journal`]);
  });

  it('rediss://USER:PASSWORD@… (TLS, an ACL user): with the test CA in NODE_EXTRA_CA_CERTS every process works; without it, a clear error', async () => {
    const model = await modelServer();
    const url = tlsUserUrl();
    const env = { NODE_EXTRA_CA_CERTS: (certificate as TestCertificate).caFile };
    const worker = await startWorker('tls1', model.url, [], { queue: url, env });
    expect(worker.stderr()).toMatch(new RegExp(`tls1 ready on rediss://${USER}:\\*\\*\\*@127\\.0\\.0\\.1:${h.server().tlsPort}/\\d+`));
    const out = join(h.tmp(), 'tls-out.jsonl');
    const run = cli(
      ['run', '--session', SESSION, '--tasks', quickTasks('tls', 3), '--queue', url, '--out', out, '--output-format', 'json'],
      env,
    );
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    const summary = JSON.parse(run.stdout()) as { runId: string; forks: { completed: number }; workers: { id: string }[] };
    expect(summary).toMatchObject({ forks: { completed: 3 }, workers: [{ id: 'tls1' }] });
    const cancel = cli(['cancel', '--queue', url, summary.runId], env);
    // Without the CA, Node refuses the server's certificate, and the error says where a CA goes.
    const untrusting = cli(['worker', '--queue', url, '--provider', 'gemini', '--base-url', model.url]);
    const exits = await within('forkpool cancel and the worker without the CA', Promise.all([cancel.exited, untrusting.exited]));
    expect(exits.map((e) => e.code)).toEqual([0, 1]);
    expect(cancel.stdout()).toContain(`cancel of run ${summary.runId} sent`);
    expect(untrusting.stderr()).toContain('self-signed certificate in certificate chain');
    expect(untrusting.stderr()).toContain('NODE_EXTRA_CA_CERTS');

    await expectNowhere(USER_PASSWORD, [worker, run, cancel, untrusting], [out, `${out}.journal`]);
  });
});
