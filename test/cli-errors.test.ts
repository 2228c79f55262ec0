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
    const session = file('bad-role.json', JSON.stringify({ model: 'gemini-2.5-flash', history: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'assistant', parts: [{ text: 'hello' }] }] }));
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
    expect(message).toMatch(new RegExp(`^forkpool: ${tasks.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: model: a fork cannot change the model`));
  });

  it('a bad line on stdin is located as <stdin>:line', async () => {
    const message = await expectRejected(['run', '--session', SESSION, '--tasks', '-'], '\n{"id":"a","directive":"REPLY again","maxTurns":0}\n');
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
      "forkpool: Unknown option '--frobnicate'; see forkpool run --help",
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
