import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';

/*
 * `forkpool run --cache explicit --previous-response ID` on a Responses session, the CLI and
 * `forkpool serve` each in a process of their own: the parent's last response stored on the server
 * through the official openai SDK, the forks naming it, the result lines and the summary saying what
 * each fork sent and what was cached.
 */

const KEY = 'sk-test-stored-response-never-printed';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-stored-'));
const TASKS = join(tmp, 'tasks.jsonl');
let serve: ServeProcess;
let sessionFile: string;
let stored: string;

beforeAll(async () => {
  serve = await startServe(['--usage', 'openai']);
  const example = JSON.parse(readFileSync('examples/responses-session.json', 'utf8')) as Record<string, unknown> & {
    input: OpenAI.Responses.ResponseInputItem[];
  };
  const { format: _format, ...body } = example;
  const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: KEY });
  // The parent's last request, stored (OpenAI's default); the session is its input and the response's output.
  const parent = await client.responses.create({
    ...(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming),
    input: [...example.input, { role: 'user' as const, content: 'REPLY Mapped.' }],
    store: true,
  });
  stored = parent.id;
  sessionFile = join(tmp, 'session.json');
  writeFileSync(
    sessionFile,
    JSON.stringify({ ...example, input: [...example.input, { role: 'user', content: 'REPLY Mapped.' }, ...parent.output] }),
  );
  writeFileSync(
    TASKS,
    ['RECALL MARKER-[0-9A-F]{4}', 'REPLY second', 'REPLY third']
      .map((directive, i) => JSON.stringify({ id: `t${i + 1}`, directive }))
      .join('\n'),
  );
});
afterAll(async () => {
  await serve?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const base = (): string[] => ['run', '--session', sessionFile, '--tasks', TASKS, '--provider', 'openai', '--base-url', `${serve.url}/v1`];

describe('forkpool run --previous-response', () => {
  it('forks name the stored response and send their own items; the result lines and the summary say so, with what was cached', async () => {
    const out = join(tmp, 'out.jsonl');
    const run = await runCli([...base(), '--cache', 'explicit', '--previous-response', stored, '--out', out], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(readFileSync(out, 'utf8')) as {
      id: string;
      text: string;
      sent?: unknown;
      usage: { promptTokens: number; cachedTokens: number };
    }[];
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.sent).toEqual({ storedResponse: stored, items: 1 });
      expect(line.usage.cachedTokens / line.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    }
    // The conversation the stored response holds reached the model.
    expect(lines.find((l) => l.id === 't1')?.text).toContain('MARKER-1F0C');
    expect(run.stdout).toContain(`names its stored response ${stored} (previous_response_id)`);
    // With the results kept (no --out), the summary's rows say what each fork sent.
    const shown = await runCli([...base(), '--cache', 'explicit', '--previous-response', stored, '--warmup', 'parent'], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(shown.code, shown.stderr).toBe(0);
    // The table's rows (each fork's answer above them reads `t1 · completed`).
    const rows = shown.stdout.split('\n').filter((line) => /^t\d +completed /.test(line));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toContain(`1 item after ${stored}`);
    expect(`${run.stdout}${run.stderr}${shown.stdout}${shown.stderr}`).not.toContain(KEY);
  });

  it('a response the server does not hold fails each fork with the API’s own error, named', async () => {
    const run = await runCli(
      [...base(), '--cache', 'explicit', '--previous-response', 'resp_not_stored_anywhere', '--output-format', 'json'],
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { forks: { failed: number }; failures: { message: string }[] };
    expect(report.forks.failed).toBe(3);
    expect(report.failures[0]?.message).toMatch(/resp_not_stored_anywhere/);
  });

  it('is a usage error without --cache explicit, or on a session of another shape', async () => {
    const implicit = await runCli([...base(), '--previous-response', stored], { env: { OPENAI_API_KEY: KEY } });
    expect(implicit.code).toBe(2);
    expect(implicit.stderr).toContain('--previous-response: forks name a stored response only with --cache explicit');
    const chat = await runCli([
      'run',
      '--session',
      'examples/openai-session.json',
      '--tasks',
      TASKS,
      '--cache',
      'explicit',
      '--previous-response',
      stored,
    ]);
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain(
      'only a Responses session ("format": "openai-responses") names a stored response; this session is openai-chat',
    );
  });
});
