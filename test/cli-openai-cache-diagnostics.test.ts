import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * OpenAI's prompt cache diagnostics as users read them: the built CLI and `forkpool serve` each in a
 * process of their own. The parent's last response is stored on the server (through the official
 * openai SDK) with tools other than those its session file declares, as when a session is saved
 * from an agent that changed its tools since; the forks name it (--previous-response) and are
 * compared with it: each miss the run cannot explain itself is the provider's, in OpenAI's words,
 * on the fork's result line and in the summary.
 */

const KEY = 'sk-test-diagnostics-never-printed';
const MODEL = 'gpt-5.6-sol';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-diagnostics-'));
const TASKS = join(tmp, 'tasks.jsonl');
/** Other directives: a fork asking what one of the first run's asked is served the entry that one wrote. */
const MORE_TASKS = join(tmp, 'more-tasks.jsonl');
let serve: ServeProcess;
let sessionFile: string;
let stored: string;

beforeAll(async () => {
  serve = await startServe(['--usage', 'openai']);
  const example = JSON.parse(readFileSync('examples/responses-session.json', 'utf8')) as Record<string, unknown> & {
    input: unknown[];
    tools: unknown[];
  };
  const { format: _format, ...body } = example;
  const input = [...example.input, { role: 'user', content: 'REPLY Mapped.' }];
  const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: KEY });
  // The parent's request, with its tools in another order than the session file has them.
  const parent = await client.responses.create({
    ...(body as unknown as ResponseCreateParamsNonStreaming),
    model: MODEL,
    prompt_cache_key: 'repo-agent',
    tools: [...example.tools].reverse() as ResponseCreateParamsNonStreaming['tools'],
    input: input as ResponseCreateParamsNonStreaming['input'],
    store: true,
  });
  stored = parent.id;
  sessionFile = join(tmp, 'session.json');
  writeFileSync(
    sessionFile,
    JSON.stringify({ ...example, model: MODEL, prompt_cache_key: 'repo-agent', input: [...input, ...parent.output] }),
  );
  const tasks = (from: number) =>
    [0, 1, 2, 3].map((i) => JSON.stringify({ id: `t${i + 1}`, directive: `Part ${from + i}.\nREPLY done` })).join('\n');
  writeFileSync(TASKS, tasks(1));
  writeFileSync(MORE_TASKS, tasks(5));
});
afterAll(async () => {
  await serve?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

interface Miss {
  reason: string;
  tokens: number;
  detail: string;
}

describe('a miss OpenAI explains', () => {
  it('is the provider’s, with its reason, on the fork’s result line and in the summary', async () => {
    // One fork at a time: every fork after the first goes once a response with its prefix has been answered, however slow the machine.
    const args = (tasks: string) => [
      'run',
      '--session',
      sessionFile,
      '--tasks',
      tasks,
      '--provider',
      'openai',
      '--base-url',
      `${serve.url}/v1`,
      '--cache',
      'explicit',
      '--previous-response',
      stored,
      '--concurrency',
      '1',
    ];
    const out = join(tmp, 'out.jsonl');
    const json = await runCli([...args(TASKS), '--out', out, '--output-format', 'json'], { env: { OPENAI_API_KEY: KEY } });
    expect(json.code, json.stderr).toBe(0);
    const lines = new Map(
      jsonLines(readFileSync(out, 'utf8')).map((line) => [line.id as string, line as { cacheMiss?: Miss; sent?: unknown }]),
    );
    expect(lines.size).toBe(4);
    // The first fork went before any response with its prefix had been answered: the run explains that one itself.
    const first = [...lines.values()].filter((line) => line.cacheMiss?.reason === 'cold-start');
    expect(first).toHaveLength(1);
    const explained = [...lines.values()].filter((line) => line.cacheMiss?.reason === 'provider');
    expect(explained).toHaveLength(3);
    for (const line of explained) {
      expect(line.sent).toEqual({ storedResponse: stored, items: 1 });
      expect(line.cacheMiss?.detail).toMatch(/^the provider says tools_changed \([\d,]+ tokens\)$/);
      expect(line.cacheMiss?.tokens).toBeGreaterThan(1024);
    }
    const report = JSON.parse(json.stdout) as { cacheMisses: { reason: string; forks: number; tokens: number }[] };
    expect(report.cacheMisses.find((m) => m.reason === 'provider')).toMatchObject({ forks: 3 });

    // The text summary: each fork's row names its reason, and the misses line sums them.
    const text = await runCli(args(MORE_TASKS), { env: { OPENAI_API_KEY: KEY } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^t\d +completed .* provider \([\d,]+\)$/m);
    expect(text.stdout).toMatch(/^misses {5}.*provider 3 forks \([\d,]+ tokens\)/m);
    expect(`${json.stdout}${json.stderr}${text.stdout}${text.stderr}${readFileSync(out, 'utf8')}`).not.toContain(KEY);
  });
});
