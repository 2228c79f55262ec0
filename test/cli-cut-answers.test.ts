import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { CHROMIUM_ARGS } from './support/browser.js';
import { startReplayServer, type ReplayServer } from './support/replay-server.js';
import { until } from './support/until.js';

/*
 * What is billed and what was cut, where a user reads figures: the CLI in its own process against
 * `forkpool serve` in another, whose scripted model answers past the request's output limit
 * (max_tokens, max_completion_tokens, maxOutputTokens, max_output_tokens) and is cut there with
 * each API's own word; the result lines, the text and JSON summaries, the live page and the HTML
 * report in Debian's Chromium.
 */

const WAIT_MS = 30_000;
/** The sessions' output limit: a TOKENS 200 answer ends after 20 tokens (80 characters). */
const LIMIT = 20;
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cut-'));
let serve: ServeProcess;
let replay: ReplayServer;
let browser: Browser;

beforeAll(async () => {
  serve = await startServe();
  replay = await startReplayServer();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await replay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** An example session with its output limit set to LIMIT, written to a file of its own. */
function limitedSession(example: string, set: (session: Record<string, unknown>) => void): string {
  const session = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', example), 'utf8')) as Record<string, unknown>;
  set(session);
  const path = join(mkdtempSync(join(tmp, 'session-')), example);
  writeFileSync(path, JSON.stringify(session));
  return path;
}

const SHAPES = [
  {
    name: 'Gemini',
    session: () => limitedSession('session.json', (s) => Object.assign(s.generationConfig as object, { maxOutputTokens: LIMIT })),
    flags: (url: string) => ['--provider', 'gemini', '--base-url', url],
    env: { GEMINI_API_KEY: 'fp-cut-gemini' },
    raw: 'MAX_TOKENS',
  },
  {
    name: 'Chat Completions',
    session: () => limitedSession('openai-session.json', (s) => Object.assign(s, { max_tokens: LIMIT })),
    flags: (url: string) => ['--provider', 'openai', '--base-url', `${url}/v1`],
    env: { OPENAI_API_KEY: 'fp-cut-openai' },
    raw: 'length',
  },
  {
    name: 'Anthropic Messages',
    session: () => limitedSession('anthropic-session.json', (s) => Object.assign(s, { max_tokens: LIMIT })),
    flags: (url: string) => ['--provider', 'anthropic', '--base-url', url],
    env: { ANTHROPIC_API_KEY: 'fp-cut-anthropic' },
    raw: 'max_tokens',
  },
  {
    name: 'Responses',
    session: () => limitedSession('responses-session.json', (s) => Object.assign(s, { max_output_tokens: LIMIT })),
    flags: (url: string) => ['--provider', 'openai', '--base-url', `${url}/v1`],
    env: { OPENAI_API_KEY: 'fp-cut-openai' },
    raw: 'max_output_tokens',
  },
] as const;

interface Line {
  id: string;
  status: string;
  text: string;
  usage: { outputTokens: number; cacheWriteTokens?: number };
  finish?: { reason: string; raw: string };
  cut?: { reason: string; raw: string };
}

describe('an answer the output limit cut', () => {
  it.each(SHAPES)('$name: its result line says so and keeps the text; the summary counts it', async (shape) => {
    const dir = mkdtempSync(join(tmp, 'run-'));
    const tasks = writeTasks(dir, [
      { id: 'long', directive: 'TOKENS 200' },
      { id: 'whole', directive: 'REPLY a whole answer' },
    ]);
    const run = await runCli(
      ['run', '--session', shape.session(), '--tasks', tasks, ...shape.flags(serve.url), '--output-format', 'json'],
      { env: shape.env },
    );
    const summary = JSON.parse(run.stdout) as { cutAnswers: unknown; results: Line[] };
    const byId = Object.fromEntries(summary.results.map((l) => [l.id, l]));
    const long = byId.long as Line;
    expect(long.status).toBe('completed');
    expect(long.finish).toEqual({ reason: 'length', raw: shape.raw });
    expect(long.cut).toEqual({ reason: 'length', raw: shape.raw });
    // The text that came is kept: the limit's worth of the filler.
    expect(long.text).toMatch(/^alpha beta gamma/);
    expect(long.text.length).toBe(LIMIT * 4);
    expect(long.usage.outputTokens).toBe(LIMIT);
    const whole = byId.whole as Line;
    expect(whole.finish?.reason).toBe('stop');
    expect(whole.cut).toBeUndefined();
    expect(summary.cutAnswers).toEqual([{ reason: 'length', forks: 1, raw: [shape.raw] }]);
  });

  it('the text summary counts cut answers and shows each fork’s cache writes', async () => {
    const dir = mkdtempSync(join(tmp, 'text-'));
    const tasks = writeTasks(dir, [
      { id: 'long', directive: 'TOKENS 200' },
      { id: 'longer', directive: 'TOKENS 300' },
      { id: 'whole', directive: 'REPLY a whole answer' },
    ]);
    const session = limitedSession('anthropic-session.json', (s) =>
      Object.assign(s, { max_tokens: LIMIT, system: `${String(s.system)}\nThis run is the text summary's.` }),
    );
    const run = await runCli(['run', '--session', session, '--tasks', tasks, '--provider', 'anthropic', '--base-url', serve.url], {
      env: { ANTHROPIC_API_KEY: 'fp-cut-anthropic' },
    });
    expect(run.stdout).toContain(
      'cut        2 answers cut at the output limit (max_tokens): the text that came is kept, not a whole answer',
    );
    expect(run.stdout).toMatch(/^tokens {5}[\d,]+ prompt · [\d,]+ cached · [\d,]+ written to the cache · [\d,]+ output$/m);
    const header = run.stdout.split('\n').find((l) => l.startsWith('fork ')) ?? '';
    expect(header).toMatch(/^fork +status +prompt +cached +written .* answer cut$/);
    expect(run.stdout).toMatch(/^long +completed .* length \(max_tokens\)$/m);
    expect(run.stdout).toMatch(/^whole +completed +[\d,]+ +[\d,]+ +[\d,]+ /m);
  });
});

describe('cache writes from OpenAI’s models that report them (cache_write_tokens)', () => {
  it('GPT-5.6 on the Responses API: each line’s writes, their sum in the JSON summary, priced at the write price', async () => {
    const dir = mkdtempSync(join(tmp, 'gpt56-'));
    const tasks = writeTasks(dir, [
      { id: 'first', directive: 'REPLY first' },
      { id: 'second', directive: 'REPLY second' },
    ]);
    const session = limitedSession('responses-session.json', (s) => Object.assign(s, { model: 'gpt-5.6-terra' }));
    const run = await runCli(
      ['run', '--session', session, '--tasks', tasks, '--provider', 'openai', '--base-url', `${serve.url}/v1`, '--output-format', 'json'],
      {
        env: { OPENAI_API_KEY: 'fp-cut-openai' },
      },
    );
    const summary = JSON.parse(run.stdout) as { cacheWriteTokens: number; cost: { usd: number }; results: (Line & { costUsd: number })[] };
    const writes = summary.results.map((l) => l.usage.cacheWriteTokens ?? Number.NaN);
    expect(writes.every((w) => Number.isInteger(w))).toBe(true);
    expect(summary.cacheWriteTokens).toBe(writes.reduce((a, b) => a + b, 0));
    expect(summary.cacheWriteTokens).toBeGreaterThan(0);
    // The cost counts them at gpt-5.6-terra's write price: $2.50 per million, against $2 for input, $0.20 cached, $12 output.
    for (const l of summary.results) {
      const u = l.usage as Line['usage'] & { promptTokens: number; cachedTokens: number };
      const written = u.cacheWriteTokens ?? 0;
      expect(l.costUsd).toBeCloseTo(
        ((u.promptTokens - u.cachedTokens - written) * 2 + u.cachedTokens * 0.2 + written * 2.5 + u.outputTokens * 12) / 1e6,
        12,
      );
    }
    expect(summary.cost.usd).toBeCloseTo(
      summary.results.reduce((n, l) => n + l.costUsd, 0),
      12,
    );
  });
});

describe('recorded responses (test/fixtures/recorded), replayed through the CLI', () => {
  it('a DeepSeek stream that ended on finish_reason "length": its line and the text summary say it was cut', async () => {
    const dir = mkdtempSync(join(tmp, 'recorded-'));
    const tasks = writeTasks(dir, [{ id: 'holiday', directive: 'Invent a holiday.' }]);
    const out = join(dir, 'out.jsonl');
    const base = replay.base('deepseek', 'deepseek-text.chunks.txt');
    const run = await runCli(
      ['run', '--session', 'examples/openai-session.json', '--tasks', tasks, '--provider', 'deepseek', '--base-url', base, '--out', out],
      { env: { DEEPSEEK_API_KEY: 'fp-recorded-deepseek' } },
    );
    const [line] = jsonLines(readFileSync(out, 'utf8')) as unknown as Line[];
    expect(line?.status).toBe('completed');
    expect(line?.cut).toEqual({ reason: 'length', raw: 'length' });
    expect(line?.text).toMatch(/^## \*\*Holiday Name:\*\* Starlight Remembrance/);
    expect(run.stdout).toContain('cut        1 answer cut at the output limit (length): the text that came is kept, not a whole answer');
  });

  it('Anthropic: a refusal is counted as one; a call that wrote the cache shows its writes in the line and the JSON summary', async () => {
    const dir = mkdtempSync(join(tmp, 'recorded-'));
    const tasks = writeTasks(dir, [{ id: 'asked', directive: 'Answer this.' }]);
    const env = { ANTHROPIC_API_KEY: 'fp-recorded-anthropic' };
    const run = (file: string) =>
      runCli(
        [
          'run',
          '--session',
          'examples/anthropic-session.json',
          '--tasks',
          tasks,
          '--provider',
          'anthropic',
          '--base-url',
          replay.base('anthropic', file),
          '--output-format',
          'json',
        ],
        { env },
      );
    const refused = JSON.parse((await run('anthropic-refusal.chunks.txt')).stdout) as { cutAnswers: unknown; results: Line[] };
    expect(refused.results[0]?.cut).toEqual({ reason: 'refusal', raw: 'refusal' });
    expect(refused.cutAnswers).toEqual([{ reason: 'refusal', forks: 1, raw: ['refusal'] }]);
    // The recording's last usage: cache_creation_input_tokens 3337.
    const wrote = JSON.parse((await run('anthropic-code-execution-20260120-prompt-cache.1.chunks.txt')).stdout) as {
      cacheWriteTokens: number;
      cutAnswers: unknown;
      results: Line[];
    };
    expect(wrote.results[0]?.usage.cacheWriteTokens).toBe(3337);
    expect(wrote.cacheWriteTokens).toBe(3337);
    expect(wrote.cutAnswers).toEqual([]);
  });
});

/** Waits until an element's attribute has the value. */
async function attributeIs(page: Page, selector: string, name: string, value: string): Promise<void> {
  await page.waitForFunction(([s, n, v]) => document.querySelector(s as string)?.getAttribute(n as string) === v, [selector, name, value], {
    timeout: WAIT_MS,
  });
}

describe('cut answers and cache writes on the page, in the JSON summary and in the report', () => {
  it('Anthropic: the row is marked, the detail says why and lists each call’s writes and finish; the report shows the same', async () => {
    const dir = mkdtempSync(join(tmp, 'page-'));
    const tasks = writeTasks(dir, [
      { id: 'long', directive: 'TOKENS 200' },
      { id: 'whole', directive: 'REPLY a whole answer' },
      // Keeps the run (and its page) open until the test stops it.
      { id: 'held', directive: 'SLEEP 600000\nREPLY never' },
    ]);
    const out = join(dir, 'out.jsonl');
    // A prefix of its own (the server's cache is shared with the tests above): its first calls write it.
    const session = limitedSession('anthropic-session.json', (s) =>
      Object.assign(s, { max_tokens: LIMIT, system: `${String(s.system)}\nThis run is the page's.` }),
    );
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = runCli(
      [
        'run',
        '--session',
        session,
        '--tasks',
        tasks,
        '--provider',
        'anthropic',
        '--base-url',
        serve.url,
        '--ui',
        '--out',
        out,
        '--output-format',
        'json',
      ],
      {
        env: { ANTHROPIC_API_KEY: 'fp-cut-anthropic' },
        onSpawn: (spawned) => {
          child = spawned;
          spawned.stderr?.on('data', (chunk: Buffer | string) => (stderr += String(chunk)));
        },
      },
    );
    try {
      const url = await until(
        'the page URL on stderr',
        () => /forkpool: live page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(stderr)?.[1],
      );
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url);
      const longRow = '[data-testid="fork-row"][data-fork-id="long"]';
      await attributeIs(page, longRow, 'data-state', 'completed');
      await attributeIs(page, '[data-testid="fork-row"][data-fork-id="whole"]', 'data-state', 'completed');
      expect(await page.locator(longRow).getAttribute('data-cut')).toBe('length');
      expect(await page.locator(`${longRow} .c-state`).textContent()).toBe('cut');
      expect(await page.locator(`${longRow} .c-state`).getAttribute('title')).toBe('completed, the answer not whole: length (max_tokens)');
      expect(await page.locator('[data-testid="fork-row"][data-fork-id="whole"]').getAttribute('data-cut')).toBe('');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="cut-answers"]')?.textContent === '1 answer cut at the output limit (max_tokens)',
        undefined,
        { timeout: WAIT_MS },
      );
      expect(await page.locator('[data-testid="cache-writes"]').isVisible()).toBe(true);
      // The detail: why the answer is not whole, each call's writes and finish, the text that came.
      await page.locator(longRow).click();
      const detail = page.locator('[data-testid="detail"]');
      await detail.getByText('not whole: cut at the output limit (max_tokens)', { exact: false }).waitFor();
      await detail.locator('th', { hasText: 'Written' }).waitFor();
      await detail.locator('td', { hasText: 'length (max_tokens)' }).waitFor();
      expect(await page.locator('[data-testid="detail-text"]').textContent()).toMatch(/^alpha beta gamma/);
      await page.screenshot({ path: join(REPO_ROOT, 'test-results', 'ui', 'cut-answer.png') });
      // Stopping the whole run asks first.
      await page.locator('[data-testid="stop-run"]').click();
      await page.locator('[data-testid="stop-run-confirm"]').click();
      await page.close();

      const run = await done;
      const summary = JSON.parse(run.stdout) as { cutAnswers: unknown; cacheWriteTokens?: number };
      expect(summary.cutAnswers).toEqual([{ reason: 'length', forks: 1, raw: ['max_tokens'] }]);
      const lines = jsonLines(readFileSync(out, 'utf8')) as unknown as Line[];
      // Anthropic reports its writes on every call: each line has them, and the summary is their sum.
      const writes = lines.filter((l) => l.status === 'completed').map((l) => l.usage.cacheWriteTokens);
      for (const w of writes) expect(w).toBeTypeOf('number');
      expect(summary.cacheWriteTokens).toBe(lines.reduce((sum, l) => sum + (l.usage.cacheWriteTokens ?? 0), 0));
      expect(summary.cacheWriteTokens).toBeGreaterThan(0);

      // The report of the same lines, opened from disk.
      const html = join(dir, 'report.html');
      const report = await runCli(['report', out, '--html', html, '--tasks', tasks]);
      expect(report.code).toBe(0);
      const reportPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await reportPage.goto(pathToFileURL(html).href);
      await reportPage.locator(longRow).waitFor();
      expect(await reportPage.locator(longRow).getAttribute('data-cut')).toBe('length');
      expect(await reportPage.locator('[data-testid="cut-answers"]').textContent()).toBe('1 answer cut at the output limit (max_tokens)');
      expect(await reportPage.locator('[data-testid="cache-writes"]').textContent()).toBe(
        (summary.cacheWriteTokens ?? 0).toLocaleString('en-US'),
      );
      await reportPage.locator(longRow).click();
      await reportPage
        .locator('[data-testid="detail"]')
        .getByText('not whole: cut at the output limit (max_tokens)', { exact: false })
        .waitFor();
      await reportPage.close();
    } finally {
      child?.kill('SIGKILL');
      await done.catch(() => undefined);
    }
  });
});
