import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, jsonLines, offlineEnv, runCli, writeTasks, type CliOptions } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { within } from './support/queue-harness.js';

/*
 * The CLI never forces its exit: after every command the process ends by itself, because every
 * command closes what it opened. A command that left a handle open would not end; the bound below
 * only turns such a hang into a failure that says so.
 */

const HANG_BOUND_MS = 30_000;

function ends(args: string[], opts: { input?: string; stopWhen?: RegExp } = {}): Promise<{ code: number | null; ended: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: offlineEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let stopping = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      // One SIGTERM, as a supervisor sends it: the output goes on matching after the first, and a
      // second signal after the first was handled would end the process by the signal's default.
      if (!stopping && opts.stopWhen?.test(out)) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.resume();
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, ended: false });
    }, HANG_BOUND_MS);
    child.on('close', (code) => {
      clearTimeout(bound);
      resolve({ code, ended: true });
    });
    child.stdin.end(opts.input ?? '');
  });
}

const TASKS = '{"id":"a","directive":"REPLY a"}\n{"id":"b","directive":"CALL read_file {\\"path\\":\\"README.md\\"}\\nREPLY b"}\n';

describe('every command ends by itself', () => {
  it.each<[string, string[], { input?: string; stopWhen?: RegExp }, number]>([
    ['run', ['run', '--session', 'examples/session.json', '--tasks', '-', '--workspace', '.'], { input: TASKS }, 0],
    ['run --cache explicit', ['run', '--session', 'examples/session.json', '--tasks', '-', '--cache', 'explicit'], { input: TASKS }, 0],
    ['prompt', ['prompt', 'FORK REPLY done', '--session', 'examples/session.json'], {}, 0],
    ['serve, stopped by SIGTERM', ['serve', '--port', '0'], { stopWhen: /GOOGLE_GEMINI_BASE_URL/ }, 0],
    ['bench --help', ['bench', '--help'], {}, 0],
    ['convert', ['convert', 'examples/session.json', '--to', 'openai-chat'], {}, 0],
    ['convert from stdin', ['convert', '-', '--to', 'openai-chat'], { input: readFileSync('examples/session.json', 'utf8') }, 0],
    ['--help', ['--help'], {}, 0],
    ['--version', ['--version'], {}, 0],
    ['a usage error', ['run', '--session', 'examples/session.json'], {}, 2],
  ])('%s', async (_name, args, opts, code) => {
    const result = await ends(args, opts);
    expect(result).toEqual({ code, ended: true });
  });
});

/*
 * One exit-code table for every command (src/cli/exit-codes.ts, docs/exit-codes.md), each row pinned
 * here: the CLI in its own process against `forkpool serve` in another.
 */

const SESSION = 'test/fixtures/cli/session.json';
const KEY_ENV = { GEMINI_API_KEY: 'test-key-never-printed' };
let server: ServeProcess;
let tmp: string;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-exit-'));
  server = await startServe();
});
afterAll(async () => {
  await server.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** `forkpool run` on the served model, its tasks a file of their own. */
function runOn(
  name: string,
  tasks: readonly object[],
  args: readonly string[] = [],
  options: Pick<CliOptions, 'onStdout'> & { session?: string } = {},
) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const file = writeTasks(dir, tasks);
  const out = join(dir, 'out.jsonl');
  const run = runCli(
    [
      'run',
      '--session',
      options.session ?? SESSION,
      '--tasks',
      file,
      '--out',
      out,
      '--provider',
      'gemini',
      '--base-url',
      server.url,
      '--warmup',
      'none',
      ...args,
    ],
    { env: KEY_ENV, ...options },
  );
  return { dir, out, run };
}

const replies = (n: number, directive = (i: number) => `REPLY ${i}`): object[] =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i}`, directive: directive(i) }));
const resultsIn = (out: string): Record<string, unknown>[] => jsonLines(readFileSync(out, 'utf8'));

describe('exit codes: one table, each row', () => {
  it('0: every task completed with a whole answer', async () => {
    const { out, run } = runOn('whole', replies(3));
    expect((await run).code).toBe(0);
    expect(resultsIn(out).map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('1: a fork failed', async () => {
    const { run } = runOn('failed', [
      { id: 'ok', directive: 'REPLY ok' },
      { id: 'bad', directive: 'FAIL 400' },
    ]);
    const result = await run;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/forks {6}1 completed, 1 failed, 0 cancelled of 2\n/);
  });

  it('1: an answer cut at the output limit (a completed fork, its text kept)', async () => {
    const session = JSON.parse(readFileSync(SESSION, 'utf8')) as Record<string, unknown>;
    const cutSession = join(tmp, 'cut-session.json');
    writeFileSync(cutSession, JSON.stringify({ ...session, generationConfig: { maxOutputTokens: 8 } }));
    const { out, run } = runOn('cut', [{ id: 'long', directive: 'TOKENS 200' }], [], { session: cutSession });
    const result = await run;
    expect(result.code).toBe(1);
    const [line] = resultsIn(out);
    expect(line).toMatchObject({ id: 'long', status: 'completed' });
    expect(line?.text).toHaveLength(8 * 4);
  });

  it('1: a token budget stopped the run; every task of the file has one result line, those never started cancelled with the reason', async () => {
    const { out, run } = runOn('budget', replies(24), ['--max-tokens', '1', '--concurrency', '1']);
    const result = await run;
    expect(result.code).toBe(1);
    const lines = resultsIn(out);
    expect(lines.map((l) => l.id).sort()).toEqual(
      replies(24)
        .map((t) => (t as { id: string }).id)
        .sort(),
    );
    const never = lines.filter((l) => l.status === 'cancelled');
    expect(never.length).toBeGreaterThanOrEqual(22);
    for (const l of never)
      expect(l.error).toMatchObject({
        kind: 'budget',
        message: expect.stringMatching(/^the run's token budget was spent \(\d+ of 1 tokens\) before it started$/),
      });
    const completed = lines.length - never.length;
    expect(result.stdout).toContain(`forks      ${completed} completed, 0 failed, ${never.length} cancelled of 24\n`);
  });

  it('1: a cost cap stopped the run; every task still has its line', async () => {
    const prices = join(tmp, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'gemini-2.5-flash': { input: 0.3, cachedInput: 0.03, output: 2.5 } }));
    const { out, run } = runOn('cost', replies(24), [
      '--max-cost',
      '0.0000001',
      '--prices',
      prices,
      '--concurrency',
      '1',
      '--output-format',
      'json',
    ]);
    const result = await run;
    expect(result.code).toBe(1);
    const lines = resultsIn(out);
    expect(lines).toHaveLength(24);
    expect(
      lines
        .filter((l) => l.status === 'cancelled')
        .every((l) => String((l.error as { message: string }).message).startsWith("the run's cost cap was reached")),
    ).toBe(true);
    expect(JSON.parse(result.stdout)).toMatchObject({ is_error: true, forks: { total: 24, taken: 24, totalKnown: true } });
  });

  it('1: from a stdin that stays open, a budget ends the run without waiting: how many lines were read, the rest not read', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--session',
        SESSION,
        '--tasks',
        '-',
        '--provider',
        'gemini',
        '--base-url',
        server.url,
        '--warmup',
        'none',
        '--max-tokens',
        '1',
        '--concurrency',
        '1',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...offlineEnv(), ...KEY_ENV },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    // 24 lines, and stdin is never closed: the run must not wait for more.
    child.stdin.write(
      replies(24)
        .map((t) => `${JSON.stringify(t)}\n`)
        .join(''),
    );
    try {
      expect(await within('the run to end with stdin open', exited)).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
    const taken = Number(/forks {6}\d+ completed, 0 failed, \d+ cancelled of (\d+) taken \(the rest was not read\)\n/.exec(stdout)?.[1]);
    expect(taken).toBeGreaterThanOrEqual(1);
    expect(taken).toBeLessThan(24);
    // One task a line: the tasks taken are the lines up to the last one's.
    expect(stdout).toContain(`\ninput      <stdin>: ${taken} tasks taken, through line ${taken}; the rest was not read\n`);
  });

  it('1: a bad line from stdin after forks ran (named; the forks before it keep their results)', async () => {
    const input = `${JSON.stringify({ id: 'a', directive: 'REPLY a' })}\n{"id":"b"}\n`;
    const result = await runCli(
      ['run', '--session', SESSION, '--tasks', '-', '--provider', 'gemini', '--base-url', server.url, '--output-format', 'json'],
      { env: KEY_ENV, input },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('forkpool: <stdin>:2: directive: is required');
    expect(JSON.parse(result.stdout)).toMatchObject({ is_error: true, forks: { completed: 1, taken: 1 } });
  });

  it('2: nothing ran: a bad line at the end of a task file, or a --transcripts folder that cannot be written', async () => {
    const bad = runOn('bad-file', [...replies(5), { id: 't0', directive: 'REPLY again' }]);
    const badResult = await bad.run;
    expect(badResult).toMatchObject({ code: 2, stdout: '' });
    expect(badResult.stderr).toContain(':6: id: "t0" repeats line 1; task ids must be unique');
    expect(existsSync(bad.out)).toBe(false);

    const notADir = join(tmp, 'a-file');
    writeFileSync(notADir, 'not a folder');
    const transcripts = runOn('transcripts', replies(2), ['--transcripts', join(notADir, 'transcripts')]);
    const result = await transcripts.run;
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `forkpool: --transcripts: cannot write into ${join(notADir, 'transcripts')}: a parent in the path is not a directory\n`,
    );
    expect(existsSync(transcripts.out)).toBe(false);
    const prompt = await runCli(['prompt', 'REPLY hi', '--transcripts', join(notADir, 'transcripts')]);
    expect(prompt).toMatchObject({ code: 2, stdout: '' });
  });

  it.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('128 + N: stopped by %s (%i); the tasks never started still get their cancelled lines', async (signal, code) => {
    let sent = false;
    const { out, run } = runOn(
      `signal-${signal}`,
      replies(6, () => 'SLEEP 30000\nREPLY late'),
      ['--concurrency', '2', '--output-format', 'stream-json'],
      {
        onStdout: (child, soFar) => {
          if (!sent && soFar.includes('"subtype":"task_started"')) {
            sent = true;
            child.kill(signal);
          }
        },
      },
    );
    const result = await run;
    expect(result.code).toBe(code);
    const lines = resultsIn(out);
    expect(lines.map((l) => l.id).sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(lines.every((l) => l.status === 'cancelled')).toBe(true);
  });

  it('prompt: a parent that stops its own task with task_stop and answers exits 0, its result line a success', async () => {
    const prompt = ['FORK SLEEP 30000', 'CALL@2 task_stop {"task_id":"$TASK_ID"}', 'REPLY stopped it'].join('\n');
    const run = await runCli(['prompt', prompt, '--provider', 'gemini', '--base-url', server.url, '--output-format', 'stream-json'], {
      env: KEY_ENV,
    });
    const last = jsonLines(run.stdout).at(-1);
    expect(last).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
    expect(run.code).toBe(0);
  });

  it('prompt: a fork that failed on its own is exit 1, and the result line says error, naming it', async () => {
    const run = await runCli(['prompt', 'FORK FAIL 400', '--provider', 'gemini', '--base-url', server.url, '--output-format', 'json'], {
      env: KEY_ENV,
    });
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as { is_error: boolean; error: { message: string } };
    expect(summary.is_error).toBe(true);
    expect(summary.error.message).toMatch(/^1 task did not complete with a whole answer: fork-\S+ \(failed: /);
  });
});
