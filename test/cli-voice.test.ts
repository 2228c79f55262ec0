import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';

/*
 * The CLI speaks in one voice: a misspelt flag gets the nearest one, forkpool's warnings are one
 * line of its own, a bad line is named in words, one wording per kind of error, and every help fits
 * 100 columns and ends with examples. The built CLI, in its own process.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-voice-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const COMMANDS = ['run', 'prompt', 'serve', 'worker', 'cancel', 'convert', 'import', 'report', 'transcript'];

describe('help texts', () => {
  it('every help fits 100 columns, starts with Usage: and ends with examples', async () => {
    const helps = await Promise.all([runCli(['--help']), ...COMMANDS.map((command) => runCli([command, '--help']))]);
    for (const [i, help] of helps.entries()) {
      const name = i === 0 ? 'forkpool --help' : `forkpool ${COMMANDS[i - 1]} --help`;
      expect(help.code, name).toBe(0);
      const wide = help.stdout.split('\n').filter((line) => [...line].length > 100);
      expect(wide, name).toEqual([]);
      if (i > 0) expect(help.stdout, name).toMatch(new RegExp(`^Usage: forkpool ${COMMANDS[i - 1]} `));
      // The last section: each example a command line, and under it what it does.
      expect(help.stdout, name).toMatch(/\nExamples:\n( {2}forkpool .+\n {6}\S.*\n|( {2}\S.+\n {6}\S.*\n))+$/);
    }
  });
});

describe('a misspelt flag', () => {
  it('gets the nearest flag of the command; a misspelt command the nearest command', async () => {
    const [task, to, far, command] = await Promise.all([
      runCli(['run', '--session', 'test/fixtures/cli/session.json', '--task', 'x.jsonl']),
      runCli(['convert', 'examples/session.json', '--ot', 'openai-chat']),
      runCli(['run', '--frobnicate']),
      runCli(['rn', '--session', 's.json']),
    ]);
    expect(task).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'forkpool: unknown flag --task (did you mean --tasks?); see forkpool run --help\n',
    });
    expect(to).toMatchObject({ code: 2, stderr: 'forkpool: unknown flag --ot (did you mean --to?); see forkpool convert --help\n' });
    expect(far).toMatchObject({ code: 2, stderr: 'forkpool: unknown flag --frobnicate; see forkpool run --help\n' });
    expect(command).toMatchObject({ code: 2, stderr: 'forkpool: unknown command "rn" (did you mean run?); run forkpool --help\n' });
  });
});

describe('messages', () => {
  it("a warning of forkpool's is one line in its voice, not Node's", async () => {
    const session = JSON.parse(readFileSync('test/fixtures/cli/session.json', 'utf8')) as Record<string, unknown>;
    delete session.tools;
    const file = join(tmp, 'no-tools.json');
    writeFileSync(file, JSON.stringify(session));
    const run = await runCli(['run', '--session', file, '--tasks', '-', '--tools', 'test/fixtures/cli/tools.mjs', '--quiet'], {
      input: '{"id":"a","directive":"REPLY ok"}\n',
    });
    expect(run.code).toBe(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('does not declare'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^forkpool: warning: the session does not declare the tool "lookup_ticket" given to the engine/);
    expect(run.stderr).not.toMatch(/\(node:\d+\)|--trace-warnings|FORKPOOL_/);
  });

  it('a bad transcript line is named by file, line and field, in words', async () => {
    const noKind = join(tmp, 'no-kind.jsonl');
    const badKind = join(tmp, 'bad-kind.jsonl');
    writeFileSync(noKind, '{"typ":"header"}\n');
    writeFileSync(badKind, '{"type":5}\n');
    const [none, bad] = await Promise.all([runCli(['transcript', noKind]), runCli(['transcript', badKind])]);
    const kinds = '"header", "seed", "message", "resumed", "end"';
    expect(none).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: ${noKind}:1: type: is required (one of ${kinds})\n` });
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: ${badKind}:1: type: must be one of ${kinds}, not the number 5\n` });
  });

  it('a directory where a file belongs: one wording in every command', async () => {
    const dir = join(tmp, 'a-folder');
    mkdirSync(dir);
    const runs = await Promise.all([
      runCli(['run', '--session', dir, '--tasks', '-']),
      runCli(['prompt', 'hi', '--session', dir]),
      runCli(['convert', dir, '--to', 'openai-chat']),
      runCli(['import', dir]),
      runCli(['transcript', dir]),
      runCli(['report', dir]),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^forkpool: (report )?${dir}: is a directory, not a file\\n$`));
    }
  });
});
