import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { parentSession } from './support/engine-fixtures.js';

/*
 * A task whose first request would not fit its model's context window is refused before any call,
 * naming the task, its estimated tokens and the window; a model whose window forkpool does not know
 * runs whatever the size. From the library against the local server, and through the CLI in its
 * own process against `forkpool serve`.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-window-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('from the library', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer({ captureRequests: true });
  });
  afterAll(async () => {
    await server.close();
  });

  // ~25,000 tokens at 4 characters a token: over a window of 20,000, whatever the prefix.
  const big = `REPLY big\n${'word '.repeat(20_000)}`;
  const tasks = [
    { id: 'small', directive: 'REPLY small' },
    { id: 'big', directive: big },
  ];

  it("a window of one's own (options.prices) refuses the task over it and runs the rest; no request carries it", async () => {
    const engine = await ForkEngine.create({
      provider: { kind: 'local', url: server.url },
      threads: 2,
      prices: { 'gemini-2.5-flash': { contextWindow: 20_000 } },
    });
    try {
      const before = server.requests.length;
      const run = engine.fanOut(engine.freeze(parentSession([], { words: 200 })), tasks);
      const [small, refused] = await run.results();
      expect(small?.status).toBe('completed');
      if (refused?.status !== 'failed') throw new Error(`the big task is refused, got ${refused?.status}`);
      expect(refused.error.kind).toBe('rejected');
      expect(refused.error.message).toMatch(
        /^task "big" was not sent: its first request is about 2[0-9],[0-9]{3} tokens \(estimated\), over the 20,000-token context window of gemini-2\.5-flash$/,
      );
      expect(refused.calls).toEqual([]);
      expect(server.requests.slice(before).some((r) => r.body.includes('word word word'))).toBe(false);
      expect(run.report().failures).toEqual([{ id: 'big', status: 'failed', kind: 'rejected', message: refused.error.message }]);
    } finally {
      await engine.close();
    }
  });

  it('a model without a known window runs the same task', async () => {
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2 });
    try {
      const results = await engine.fanOut(engine.freeze(parentSession([], { words: 200 })), tasks).results();
      expect(results.map((r) => [r.id, r.status])).toEqual([
        ['small', 'completed'],
        ['big', 'completed'],
      ]);
      expect(results[1]?.usage.promptTokens).toBeGreaterThan(20_000);
    } finally {
      await engine.close();
    }
  });
});

describe('through the CLI', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe();
  });
  afterAll(async () => {
    await serve.stop();
  });

  const session = (model: string): string => {
    const file = join(tmp, `${model}.json`);
    const base = JSON.parse(readFileSync(new URL('./fixtures/cli/session.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...base, model }));
    return file;
  };
  // 5 MiB: about 1.3 M tokens, over the 1,048,576 of gemini-2.5-pro.
  const TASKS = writeTasks(tmp, [
    { id: 'huge', directive: `REPLY huge\n${'x'.repeat(5 * 1024 * 1024)}` },
    { id: 'small', directive: 'REPLY small' },
  ]);
  const run = (model: string, out: string) =>
    runCli(['run', '--session', session(model), '--tasks', TASKS, '--provider', 'gemini', '--base-url', serve.url, '--out', out], {
      env: { GEMINI_API_KEY: 'window-test-key' },
    });

  it('a 5 MB directive against gemini-2.5-pro (a 1,048,576-token window) is refused naming the task, its tokens and the window; the other task runs', async () => {
    const out = join(tmp, 'pro.jsonl');
    const result = await run('gemini-2.5-pro', out);
    expect(result.code).toBe(1);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    const huge = lines.find((l) => l.id === 'huge');
    expect(huge).toMatchObject({ status: 'failed', turns: 0, error: { kind: 'rejected' } });
    expect((huge?.error as { message?: string } | undefined)?.message).toMatch(
      /^task "huge" was not sent: its first request is about 1,31\d,\d{3} tokens \(estimated\), over the 1,048,576-token context window of gemini-2\.5-pro$/,
    );
    expect(lines.find((l) => l.id === 'small')).toMatchObject({ status: 'completed' });
    expect(result.stdout).toMatch(/task "huge" was not sent/);
  });

  it("docs/prices.md's example file is taken by --prices: its window refuses the task over it, its price costs the other", async () => {
    const docs = readFileSync(new URL('../docs/prices.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)\n```/.exec(docs)?.[1];
    if (example === undefined) throw new Error('docs/prices.md has a JSON example');
    const prices = join(tmp, 'docs-prices.json');
    writeFileSync(prices, example);
    const table = JSON.parse(example) as Record<string, { input: number; cachedInput: number; output: number; contextWindow: number }>;
    const large = table['my-finetune-large'];
    if (large === undefined) throw new Error('the example prices my-finetune-large');
    const out = join(tmp, 'docs.jsonl');
    // A folder of its own: writeTasks names every file tasks.jsonl.
    const tasks = writeTasks(mkdtempSync(join(tmp, 'docs-')), [
      // ~150,000 tokens: over the example's 131,072.
      { id: 'long', directive: `REPLY long\n${'y'.repeat(600_000)}` },
      { id: 'short', directive: 'REPLY short' },
    ]);
    const result = await runCli(
      [
        'run',
        '--session',
        session('my-finetune-large'),
        '--tasks',
        tasks,
        '--provider',
        'gemini',
        '--base-url',
        serve.url,
        '--prices',
        prices,
        '--out',
        out,
      ],
      { env: { GEMINI_API_KEY: 'window-test-key' } },
    );
    expect(result.stderr).not.toMatch(/--prices/);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    const long = lines.find((l) => l.id === 'long');
    expect(long).toMatchObject({ status: 'failed', error: { kind: 'rejected' } });
    expect((long?.error as { message?: string } | undefined)?.message).toMatch(
      /^task "long" was not sent: .* over the 131,072-token context window of my-finetune-large$/,
    );
    const short = lines.find((l) => l.id === 'short');
    expect(short).toMatchObject({ status: 'completed' });
    const usage = short?.usage as { promptTokens: number; cachedTokens: number | null; outputTokens: number };
    const cached = usage.cachedTokens ?? 0;
    expect(short?.costUsd).toBeCloseTo(
      ((usage.promptTokens - cached) * large.input + cached * large.cachedInput + usage.outputTokens * large.output) / 1e6,
      12,
    );
  });

  it('the same tasks against a model whose window forkpool does not know both run', async () => {
    const out = join(tmp, 'unknown.jsonl');
    const result = await run('gemini-sim-unlisted', out);
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => [l.id, l.status]).sort()).toEqual([
      ['huge', 'completed'],
      ['small', 'completed'],
    ]);
    expect(result.code).toBe(0);
  });
});
