import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';

/* The built CLI on OpenAI-shaped sessions: the offline default, real providers against the local server, and the errors. */

const SESSION = 'examples/openai-session.json';
const TASKS = 'examples/research.jsonl';
const SECRET = 'sk-test-0123456789-never-printed';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-openai-'));
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ usage: 'openai', captureRequests: true });
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('forkpool run with an OpenAI-shaped session', () => {
  it('runs offline on the built-in local server by default and says how to use a real API', async () => {
    const out = join(tmp, 'offline.jsonl');
    const run = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--workspace', '.', '--out', out, '--output-format', 'json']);
    expect(run.stderr).toContain('pass --provider openai, deepseek, dashscope or openai-compatible to use a real API');
    expect(run.code).toBe(0);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.status)).toEqual(Array(8).fill('completed'));
    const report = JSON.parse(run.stdout) as { cachedTokens: number; efficiency: number };
    expect(report.cachedTokens).toBeGreaterThan(0);
    expect(report.efficiency).toBeGreaterThan(0.95);
  });

  it('--provider openai with the key in the environment talks to --base-url, and the key appears nowhere', async () => {
    const start = server.requests.length;
    const run = await runCli(
      ['run', '--session', SESSION, '--tasks', TASKS, '--workspace', '.', '--provider', 'openai', '--base-url', `${server.url}/v1`],
      {
        env: { OPENAI_API_KEY: SECRET },
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('forkpool run · OpenAI ·');
    expect(server.requests.slice(start).filter((r) => r.route === 'chat.completions').length).toBeGreaterThanOrEqual(8);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
  });

  it('--api-key-env names the variable to read; an unset one is a usage error naming it', async () => {
    const unset = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'openai', '--api-key-env', 'MY_FORKPOOL_KEY']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('--api-key-env MY_FORKPOOL_KEY: that variable is not set');
    const set = await runCli(
      [
        'run',
        '--session',
        SESSION,
        '--tasks',
        TASKS,
        '--workspace',
        '.',
        '--provider',
        'openai',
        '--api-key-env',
        'MY_FORKPOOL_KEY',
        '--base-url',
        `${server.url}/v1`,
      ],
      { env: { MY_FORKPOOL_KEY: SECRET } },
    );
    expect(set.code).toBe(0);
    expect(`${set.stdout}${set.stderr}`).not.toContain(SECRET);
  });

  it('a provider without its key stops before anything runs, naming the variable', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'deepseek']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('DEEPSEEK_API_KEY');
  });

  it("a provider that does not speak the session's shape is a usage error that names forkpool convert", async () => {
    const gemini = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'gemini'], {
      env: { GEMINI_API_KEY: SECRET },
    });
    expect(gemini.code).toBe(2);
    expect(gemini.stderr).toContain("--provider gemini speaks Gemini's API, but the session is in OpenAI Chat Completions' shape");
    expect(gemini.stderr).toContain('forkpool convert');
    const deepseek = await runCli(['run', '--session', 'examples/session.json', '--tasks', TASKS, '--provider', 'deepseek']);
    expect(deepseek.code).toBe(2);
    expect(deepseek.stderr).toContain("--provider deepseek speaks OpenAI Chat Completions, but the session is in Gemini's shape");
  });

  it('openai-compatible needs --base-url', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'openai-compatible']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--provider openai-compatible needs --base-url');
  });
});

describe('forkpool prompt with an OpenAI-shaped session', () => {
  it('runs the headless parent loop: forks start, report back, and the parent answers', async () => {
    const run = await runCli([
      'prompt',
      '--session',
      SESSION,
      '--output-format',
      'stream-json',
      'FORK RECALL read_file\nFORK REPLY second fork',
    ]);
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines.filter((l) => l.subtype === 'task_started')).toHaveLength(2);
    expect(lines.filter((l) => l.subtype === 'task_notification')).toHaveLength(2);
    const result = lines.at(-1) as { type: string; is_error: boolean; result: string };
    expect(result).toMatchObject({ type: 'result', is_error: false });
    expect(result.result).toContain('second fork');
  });
});
