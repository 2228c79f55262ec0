import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';

/*
 * Bad usage and bad input: exit 2, one message naming the file, line and field, and nothing run
 * (no local server started, no fork, no --out file created).
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-errors-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

const GOOD_TASKS = file('good.jsonl', '{"id":"a","directive":"REPLY a"}\n');

/** Runs `forkpool run` with an --out file, and checks nothing ran: exit 2, no output, no --out. */
async function expectRejected(args: string[], input?: string): Promise<string> {
  const out = join(tmp, `never-${Math.random().toString(36).slice(2)}.jsonl`);
  const run = await runCli([...args, '--out', out], input === undefined ? {} : { input });
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).not.toContain('using the built-in local server');
  expect(existsSync(out)).toBe(false);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^forkpool: /);
  return lines[0] as string;
}

describe('forkpool run: bad input exits 2 and runs nothing', () => {
  it('a bad session file names the file and the path of the bad field', async () => {
    const session = file(
      'bad-role.json',
      JSON.stringify({
        model: 'gemini-2.5-flash',
        history: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'assistant', parts: [{ text: 'hello' }] },
        ],
      }),
    );
    const message = await expectRejected(['run', '--session', session, '--tasks', GOOD_TASKS]);
    expect(message).toBe(`forkpool: ${session}: history[1].role: must be "user" or "model"`);
  });

  it('a session that is not JSON names the file and line', async () => {
    const session = file('truncated.json', '{\n  "model": "gemini-2.5-flash",\n  "history": [\n');
    const message = await expectRejected(['run', '--session', session, '--tasks', GOOD_TASKS]);
    expect(message).toContain(`forkpool: ${session}:4: invalid JSON`);
  });

  // A bad line after good ones stops a run that has started: test/cli-stream.test.ts.
  it('a bad first task line names file:line (blank lines counted) and the field', async () => {
    const tasks = file('bad-line.jsonl', ['', '  ', '{"id":"b","directive":"REPLY b","forkTurns":0}'].join('\n'));
    const message = await expectRejected(['run', '--session', SESSION, '--tasks', tasks]);
    expect(message).toBe(`forkpool: ${tasks}:3: forkTurns: must be "all" or a positive integer`);
  });

  it('a task that asks for another model is refused with the reason', async () => {
    const tasks = file('model.jsonl', '{"id":"a","directive":"REPLY a","model":"gemini-2.5-pro"}\n');
    const message = await expectRejected(['run', '--session', SESSION, '--tasks', tasks]);
    expect(message).toMatch(
      new RegExp(`^forkpool: ${tasks.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: model: a fork cannot change the model`),
    );
  });

  it('a bad line on stdin is located as <stdin>:line', async () => {
    const message = await expectRejected(
      ['run', '--session', SESSION, '--tasks', '-'],
      '\n{"id":"a","directive":"REPLY again","maxTurns":0}\n',
    );
    expect(message).toBe('forkpool: <stdin>:2: maxTurns: must be a positive integer');
  });

  it('a missing session or tasks file is named', async () => {
    const missing = join(tmp, 'no-such-session.json');
    expect(await expectRejected(['run', '--session', missing, '--tasks', GOOD_TASKS])).toBe(`forkpool: ${missing}: file not found`);
    const missingTasks = join(tmp, 'no-such-tasks.jsonl');
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', missingTasks])).toBe(`forkpool: ${missingTasks}: file not found`);
  });

  it('an unknown flag, a missing required flag and a bad flag value are usage errors', async () => {
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--frobnicate'])).toBe(
      'forkpool: unknown flag --frobnicate; see forkpool run --help',
    );
    expect(await expectRejected(['run', '--tasks', GOOD_TASKS])).toBe('forkpool: run: --session FILE is required');
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--output-format', 'yaml'])).toBe(
      'forkpool: --output-format: must be one of text, json, stream-json (got "yaml")',
    );
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--max-turns', '0'])).toBe(
      'forkpool: --max-turns: must be a positive integer (got "0")',
    );
  });

  it('a missing workspace or tools module is named', async () => {
    const noDir = join(tmp, 'no-such-dir');
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--workspace', noDir])).toBe(
      `forkpool: --workspace: ${noDir} is not a directory`,
    );
    const noModule = join(tmp, 'no-such-tools.mjs');
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--tools', noModule])).toContain(
      `forkpool: --tools: tools module ${JSON.stringify(noModule)}: file not found`,
    );
  });

  it('an unknown command exits 2', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('forkpool: unknown command "frobnicate"; run forkpool --help');
    expect(run.stdout).toBe('');
  });
});

describe('numeric flags: a negative number is a value, refused with the same message as 0', () => {
  const POSITIVE = [
    'threads',
    'concurrency',
    'max-turns',
    'max-tokens',
    'max-tokens-per-fork',
    'timeout-ms',
    'cache-block-tokens',
    'call-timeout-ms',
    'max-attempts',
    'rpm',
    'tpm',
  ];
  const NON_NEGATIVE = ['min-cache-tokens', 'cache-build-ms', 'retry-budget'];

  it('run and prompt: every numeric engine flag', async () => {
    for (const flag of POSITIVE) {
      const [zero, negative] = await Promise.all(
        ['0', '-1'].map((value) => expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, `--${flag}`, value])),
      );
      expect(zero).toBe(`forkpool: --${flag}: must be a positive integer (got "0")`);
      expect(negative).toBe(`forkpool: --${flag}: must be a positive integer (got "-1")`);
    }
    for (const flag of NON_NEGATIVE) {
      expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, `--${flag}`, '-1'])).toBe(
        `forkpool: --${flag}: must be a non-negative integer (got "-1")`,
      );
    }
    const prompt = await runCli(['prompt', 'hello', '--concurrency', '-1']);
    expect(prompt).toMatchObject({ code: 2, stdout: '', stderr: 'forkpool: --concurrency: must be a positive integer (got "-1")\n' });
  });

  it('worker --lock-ms and serve --port, --block-tokens, --min-cache-tokens', async () => {
    const [lockZero, lockNegative] = await Promise.all(
      ['0', '-5'].map((value) => runCli(['worker', '--queue', 'redis://127.0.0.1:9', '--lock-ms', value])),
    );
    expect(lockZero).toMatchObject({ code: 2, stderr: 'forkpool: --lock-ms: must be an integer from 100 to 86400000 (got "0")\n' });
    expect(lockNegative).toMatchObject({ code: 2, stderr: 'forkpool: --lock-ms: must be an integer from 100 to 86400000 (got "-5")\n' });
    const serve = async (args: string[]): Promise<string> => {
      const run = await runCli(['serve', ...args]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      return run.stderr.split('\n')[0] as string;
    };
    expect(await serve(['--port', '-1'])).toBe('forkpool serve: --port must be a non-negative integer, got "-1"');
    expect(await serve(['--min-cache-tokens', '-1'])).toBe('forkpool serve: --min-cache-tokens must be a non-negative integer, got "-1"');
    expect(await serve(['--block-tokens', '0'])).toBe('forkpool serve: --block-tokens must be a positive integer, got "0"');
    expect(await serve(['--block-tokens', '-1'])).toBe('forkpool serve: --block-tokens must be a positive integer, got "-1"');
  });
});

describe('a missing API key: exit 2 naming the variable and the flag, before anything runs', () => {
  const OPENAI_SESSION = 'examples/openai-session.json';
  const ANTHROPIC_SESSION = 'examples/anthropic-session.json';
  const cases: [provider: string, session: string, variable: string][] = [
    ['openai', OPENAI_SESSION, 'OPENAI_API_KEY'],
    ['deepseek', OPENAI_SESSION, 'DEEPSEEK_API_KEY'],
    ['dashscope', OPENAI_SESSION, 'DASHSCOPE_API_KEY'],
    ['anthropic', ANTHROPIC_SESSION, 'ANTHROPIC_API_KEY'],
  ];

  it('run, prompt and worker, for every provider that reads a key', async () => {
    for (const [provider, session, variable] of cases) {
      const expected = `forkpool: ${variable} is not set: export it, or pass --api-key-env NAME to read the key from another variable`;
      expect(await expectRejected(['run', '--session', session, '--tasks', GOOD_TASKS, '--provider', provider])).toBe(expected);
      const [prompt, worker] = await Promise.all([
        runCli(['prompt', 'hello', '--session', session, '--provider', provider]),
        runCli(['worker', '--queue', 'redis://127.0.0.1:9', '--provider', provider]),
      ]);
      expect(prompt).toMatchObject({ code: 2, stdout: '', stderr: `${expected}\n` });
      expect(worker).toMatchObject({ code: 2, stdout: '', stderr: `${expected}\n` });
    }
    expect(await expectRejected(['run', '--session', SESSION, '--tasks', GOOD_TASKS, '--provider', 'gemini'])).toBe(
      'forkpool: GEMINI_API_KEY is not set: export it (or GOOGLE_API_KEY), or leave out --provider gemini to run on the local simulator',
    );
  });

  it('a variable named by --api-key-env that is not set is named, and no key in the environment is printed', async () => {
    const secret = 'sk-forkpool-test-secret-0123456789';
    const run = await runCli(
      [
        'run',
        '--session',
        OPENAI_SESSION,
        '--tasks',
        GOOD_TASKS,
        '--provider',
        'openai-compatible',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--api-key-env',
        'MY_FORKPOOL_KEY',
      ],
      {
        env: { OPENAI_API_KEY: secret, DEEPSEEK_API_KEY: secret },
      },
    );
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'forkpool: --api-key-env MY_FORKPOOL_KEY: that variable is not set (export it)\n',
    });
    expect(run.stderr).not.toContain(secret.slice(0, 10));
  });

  it("a distributed run's coordinator calls no model, so it needs no key: it gets as far as Redis", async () => {
    const run = await runCli([
      'run',
      '--session',
      OPENAI_SESSION,
      '--tasks',
      GOOD_TASKS,
      '--provider',
      'openai',
      '--queue',
      'redis://127.0.0.1:9',
    ]);
    expect(run.stderr).not.toContain('OPENAI_API_KEY is not set');
    expect(run.stderr).toContain('cannot reach Redis at redis://127.0.0.1:9');
  });
});
