import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';

/* The built CLI on Anthropic-shaped sessions: offline, --provider anthropic against the local server, and the errors. */

const SESSION = 'examples/anthropic-session.json';
const TASKS = 'examples/research.jsonl';
const SECRET = 'sk-ant-test-0123456789-never-printed';
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

describe('forkpool run with an Anthropic-shaped session', () => {
  it('runs offline by default, places the breakpoints and reports the input cost', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--workspace', '.']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('pass --provider anthropic (ANTHROPIC_API_KEY) to use the real API');
    expect(run.stdout).toContain(
      "Anthropic breakpoints: forkpool adds two (the end of the inherited history and each request's latest message) to the parent's 0, TTL 5m",
    );
    expect(run.stdout).toMatch(/cost {7}input ≈ \d+\.\d% of an uncached run/);
  });

  it('--provider anthropic with the key in the environment talks to --base-url; --cache-ttl 1h reaches the requests; the key appears nowhere', async () => {
    const start = server.requests.length;
    const run = await runCli(
      [
        'run',
        '--session',
        SESSION,
        '--tasks',
        TASKS,
        '--workspace',
        '.',
        '--provider',
        'anthropic',
        '--base-url',
        server.url,
        '--cache-ttl',
        '1h',
        '--output-format',
        'json',
      ],
      { env: { ANTHROPIC_API_KEY: SECRET } },
    );
    expect(run.code).toBe(0);
    const sent = server.requests.slice(start).filter((r) => r.route === 'messages');
    expect(sent.length).toBeGreaterThanOrEqual(8);
    for (const r of sent) expect(r.body).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    const report = JSON.parse(run.stdout) as { inputCost: { relative: number; pricing: { write1h: number } } };
    expect(report.inputCost.pricing.write1h).toBe(2);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
  });

  it('a missing key names ANTHROPIC_API_KEY; a provider of another shape is a usage error', async () => {
    const missing = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'anthropic']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('ANTHROPIC_API_KEY');
    const openai = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--provider', 'openai']);
    expect(openai.code).toBe(2);
    expect(openai.stderr).toContain("--provider openai speaks OpenAI Chat Completions, but the session is in Anthropic Messages' shape");
    const anthropicOnGemini = await runCli(['run', '--session', 'examples/session.json', '--tasks', TASKS, '--provider', 'anthropic']);
    expect(anthropicOnGemini.code).toBe(2);
    expect(anthropicOnGemini.stderr).toContain(
      "--provider anthropic speaks Anthropic's Messages API, but the session is in Gemini's shape",
    );
  });

  it('--cache-ttl takes 5m or 1h', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', TASKS, '--cache-ttl', '2h']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--cache-ttl: must be one of 5m, 1h (got "2h")');
  });
});

describe('forkpool prompt with an Anthropic-shaped session', () => {
  it('runs the headless parent loop', async () => {
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
    expect(lines.filter((l) => l.subtype === 'task_notification')).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false, result: expect.stringContaining('second fork') });
  });
});
