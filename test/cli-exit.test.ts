import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, offlineEnv } from './fixtures/cli/run-cli.js';

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
