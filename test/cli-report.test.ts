import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * The cache report as users read it: the built CLI against a `forkpool serve` in another process.
 * Efficiency never passes 1: the maximum comes from the requests and the provider's rules, and what
 * the cache held before the run began (an earlier run, the parent) is reported apart.
 */

const TASKS = 'examples/research.jsonl';
/** The files the tasks read, frozen (its README): the figures pinned here would move with forkpool's own source. */
const WORKSPACE = 'test/fixtures/report-workspace';
const KEYS = { OPENAI_API_KEY: 'k', DEEPSEEK_API_KEY: 'k', DASHSCOPE_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GEMINI_API_KEY: 'k' };

interface JsonReport {
  cachedTokens: number | null;
  theoreticalCachedTokens: number;
  preexistingCachedTokens: number | null;
  efficiency: number | null;
  warmup: string;
  forks: { completed: number; total: number };
}

let server: ServeProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function run(session: string, args: readonly string[], format: 'json' | 'text' = 'json'): Promise<string> {
  const done = await runCli(['run', '--session', session, '--tasks', TASKS, '--workspace', WORKSPACE, '--output-format', format, ...args], {
    env: KEYS,
  });
  expect(done.stderr).not.toContain('Error');
  expect(done.code).toBe(0);
  return done.stdout;
}

const report = (stdout: string): JsonReport => JSON.parse(stdout) as JsonReport;
/** The figures a test pins: cached, maximum, held before the run, efficiency. */
const figures = (r: JsonReport) => [r.cachedTokens, r.theoreticalCachedTokens, r.preexistingCachedTokens, r.efficiency];

describe('runs in a row against one server', () => {
  it('the second run finds the first run in the cache: reported apart, efficiency 1, never above', async () => {
    server = await startServe(['--usage', 'openai']);
    const args = ['--provider', 'openai', '--base-url', `${server.url}/v1`];
    const first = report(await run('examples/openai-session.json', args));
    expect(figures(first)).toEqual([85_888, 85_888, 0, 1]);
    // Same maximum (from the requests, not from what was served); 7,552 tokens were the first run's.
    const second = report(await run('examples/openai-session.json', args));
    expect(figures(second)).toEqual([93_440, 85_888, 7_552, 1]);
    const text = await run('examples/openai-session.json', args, 'text');
    expect(text).toMatch(/^cache {6}hit rate 98\.6% · 93,440 of 85,888 cacheable \(efficiency 100\.0%\) · warmup auto · implicit$/m);
    expect(text).toContain('the cache already held 7,552 tokens of this prefix when the run began');
    // Per fork: the column of what the cache held before; the first fork was served it all.
    expect(text).toMatch(/fork +status +prompt +cached +held before +max cacheable +efficiency/);
    expect(text).toMatch(/engine-loop +completed +15,574 +15,360 +5,504 +9,856 +100\.0%/);
  });

  it('a first run on a fresh server holds nothing from before and prints no such line', async () => {
    server = await startServe(['--usage', 'openai']);
    const text = await run('examples/openai-session.json', ['--provider', 'openai', '--base-url', `${server.url}/v1`], 'text');
    expect(text).toContain('85,888 of 85,888 cacheable (efficiency 100.0%)');
    expect(text).not.toContain('already held');
    expect(text).not.toContain('held before');
  });
});

/** Sends the parent's own last request (the session without its final reply) with the dialect's SDK, as the parent agent did. */
type Parent = (url: string) => Promise<void>;

function sessionJson(path: string): Record<string, unknown> & { messages: unknown[] } {
  const { format: _format, ...body } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { messages: unknown[] };
  return { ...body, messages: body.messages.slice(0, -1) };
}

const chatParent: Parent = async (url) => {
  const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1` });
  await client.chat.completions.create(sessionJson('examples/openai-session.json') as never);
};

/** Anthropic caches only at breakpoints: the parent uses automatic caching (a top-level cache_control), as agents do. */
const anthropicParent =
  (ttl: '5m' | '1h'): Parent =>
  async (url) => {
    const client = new Anthropic({ apiKey: 'k', baseURL: url });
    await client.messages.create({ ...sessionJson('examples/anthropic-session.json'), cache_control: { type: 'ephemeral', ttl } } as never);
  };

const geminiParent: Parent = async (url) => {
  const session = JSON.parse(readFileSync('examples/session.json', 'utf8')) as {
    model: string;
    systemInstruction: unknown;
    tools: unknown;
    generationConfig: Record<string, unknown>;
    history: unknown[];
  };
  const client = new GoogleGenAI({ vertexai: false, apiKey: 'k', httpOptions: { baseUrl: url } });
  await client.models.generateContent({
    model: session.model,
    contents: session.history.slice(0, -1) as never,
    config: { ...session.generationConfig, systemInstruction: session.systemInstruction as never, tools: session.tools as never },
  });
};

/**
 * Parent-warm on every preset, the parent's request sent first. The first fork's maximum is what
 * the parent sent; every other fork's is what its siblings send (one of them may have gone first);
 * nothing was in the cache before, so nothing is held before and efficiency stays at most 1.
 */
const PRESETS: readonly {
  name: string;
  serve: readonly string[];
  session: string;
  args: (url: string) => string[];
  parent: Parent;
  /** cached, maximum, held before, efficiency; undefined where the simulated build delay makes what was served vary. */
  expected: [number | null | undefined, number, number | null, number | null | undefined];
}[] = [
  {
    name: 'openai',
    serve: ['--usage', 'openai'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'openai', '--base-url', `${url}/v1`],
    parent: chatParent,
    expected: [89_984, 89_984, 0, 1],
  },
  {
    // The simulated DeepSeek builds a unit in 2 s: whether a fork's second call finds its first one
    // built depends on timing, so what was served varies; the maximum does not. Its units end where a
    // request or its reply ended, so later calls and the parent's are not rounded to 64.
    name: 'deepseek',
    serve: ['--usage', 'deepseek'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'deepseek', '--base-url', `${url}/v1`],
    parent: chatParent,
    expected: [undefined, 91_024, 0, undefined],
  },
  {
    name: 'dashscope',
    serve: ['--usage', 'dashscope'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'dashscope', '--base-url', `${url}/v1`],
    parent: chatParent,
    expected: [89_984, 91_027, 0, 89_984 / 91_027],
  },
  {
    name: 'dashscope explicit',
    serve: ['--usage', 'dashscope'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'dashscope', '--base-url', `${url}/v1`, '--cache', 'explicit'],
    parent: chatParent,
    expected: [81_198, 85_398, 0, 81_198 / 85_398],
  },
  {
    name: 'openai-compatible',
    serve: ['--usage', 'openai'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`],
    parent: chatParent,
    expected: [89_984, 91_027, 0, 89_984 / 91_027],
  },
  {
    name: 'openai-compatible, no cache report (vLLM without its flag)',
    serve: ['--usage', 'none'],
    session: 'examples/openai-session.json',
    args: (url) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`],
    parent: chatParent,
    expected: [null, 91_027, null, null],
  },
  {
    name: 'anthropic',
    serve: [],
    session: 'examples/anthropic-session.json',
    args: (url) => ['--provider', 'anthropic', '--base-url', url],
    parent: anthropicParent('5m'),
    expected: [87_609, 87_968, 0, 87_609 / 87_968],
  },
  {
    name: 'anthropic 1h',
    serve: [],
    session: 'examples/anthropic-session.json',
    args: (url) => ['--provider', 'anthropic', '--base-url', url, '--cache-ttl', '1h'],
    parent: anthropicParent('1h'),
    expected: [87_609, 87_968, 0, 87_609 / 87_968],
  },
  {
    name: 'gemini',
    serve: [],
    session: 'examples/session.json',
    args: (url) => ['--provider', 'gemini', '--base-url', url],
    parent: geminiParent,
    expected: [85_888, 87_035, 0, 85_888 / 87_035],
  },
  {
    name: 'local',
    serve: [],
    session: 'examples/session.json',
    args: (url) => ['--provider', 'local', '--base-url', url],
    parent: geminiParent,
    expected: [85_888, 87_035, 0, 85_888 / 87_035],
  },
];

describe('parent-warm runs: the first wave is counted against what the run itself could have sent', () => {
  it.each(PRESETS)('$name', async ({ serve, session, args, parent, expected }) => {
    server = await startServe(serve);
    await parent(server.url);
    const r = report(await run(session, [...args(server.url), '--warmup', 'parent']));
    expect(r.warmup).toBe('parent');
    expect(r.forks.completed).toBe(8);
    const [cached, maximum, before, efficiency] = expected;
    expect(r.theoreticalCachedTokens).toBe(maximum);
    expect(r.preexistingCachedTokens).toBe(before);
    if (cached !== undefined) expect(r.cachedTokens).toBe(cached);
    if (efficiency !== undefined) expect(r.efficiency).toBe(efficiency);
    // Where it varies, it is still what was served against the same maximum.
    if (r.cachedTokens !== null) expect(r.efficiency).toBe(r.cachedTokens / maximum);
    if (r.efficiency !== null) expect(r.efficiency).toBeLessThanOrEqual(1);
  });
});

describe('the summary names cancelled forks as cancelled', () => {
  it('forks a spent budget cancelled are listed as cancelled, not failed', async () => {
    // One fork at a time and a budget of one token: the first call spends it, so that fork ends
    // cancelled at its next call, and every task never started gets its cancelled line too.
    const done = await runCli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      TASKS,
      '--workspace',
      WORKSPACE,
      '--concurrency',
      '1',
      '--max-tokens',
      '1',
    ]);
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('forks      0 completed, 0 failed, 8 cancelled of 8');
    expect(done.stdout).not.toContain('the run stopped taking tasks before their end');
    const listed = done.stdout.split('\n').filter((line) => /^(failed|cancelled) /.test(line));
    expect(listed).toHaveLength(8);
    expect(listed).toContain(
      "cancelled  engine-loop: budget: the run's token budget was spent; the fork stopped before its next model call",
    );
    expect(listed).toContain("cancelled  warmup: budget: the run's token budget was spent (4607 of 1 tokens) before it started");
    expect(listed.every((line) => line.startsWith('cancelled  '))).toBe(true);
  });
});
