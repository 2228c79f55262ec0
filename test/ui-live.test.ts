import type { ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { CHROMIUM_ARGS } from './support/browser.js';
import { until } from './support/until.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * `forkpool run --ui` as a user runs it: the CLI in its own process against forkpool serve in
 * another, its live page in Debian's Chromium driven by playwright-core (npm test installs the
 * chromium package; no browser download). Screenshots go to test-results/ui/.
 */

const WAIT_MS = 30_000;
const SECRET = 'fp-ui-secret-key-6d1f0c';
const SESSION = 'examples/session.json';
const SHOTS = join(REPO_ROOT, 'test-results', 'ui');
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-ui-'));
let server: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServe();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** GET with a Host header of one's own (fetch does not let one set it). */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
  });
}

describe('forkpool run --ui', () => {
  it('serves the run’s page with its token only; forks appear and complete; a stop button cancels exactly that fork', async () => {
    const dir = mkdtempSync(join(tmp, 'live-'));
    const tasks = writeTasks(dir, [
      { id: 'quick', directive: 'REPLY quick answer' },
      { id: 'held', directive: 'SLEEP 600000\nREPLY never' },
      { id: 'later', directive: 'SLEEP 1500\nREPLY later answer' },
      { id: 'refused', directive: 'FAIL 400\nREPLY never' },
    ]);
    const out = join(dir, 'out.jsonl');
    const transcripts = join(dir, 'transcripts');
    let child: ChildProcess | undefined;
    let stderr = '';
    // Gemini's client with a key (sent on every request), against the local server.
    const args = [
      'run',
      '--session',
      SESSION,
      '--tasks',
      tasks,
      '--provider',
      'gemini',
      '--base-url',
      server.url,
      '--warmup',
      'none',
      '--ui',
      '--out',
      out,
      '--transcripts',
      transcripts,
      '--output-format',
      'json',
    ];
    const done = runCli(args, {
      env: { GEMINI_API_KEY: SECRET },
      onSpawn: (spawned) => {
        child = spawned;
        spawned.stderr?.on('data', (chunk: Buffer | string) => (stderr += String(chunk)));
      },
    });
    try {
      const url = await until(
        'the page URL on stderr',
        () => /forkpool: live page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(stderr)?.[1],
      );
      // Without the token, or with another, nothing is served.
      const bare = url.replace(/\?token=.*/, '');
      expect((await fetch(bare)).status).toBe(403);
      expect((await fetch(`${bare}?token=not-it`)).status).toBe(403);
      // A page of another name that resolves here (DNS rebinding) is refused though it has the token.
      expect(await statusWithHost(url, 'evil.example')).toBe(400);
      // Everything the server sends while the run lasts (the stream ends when the run does).
      const feed = fetch(url.replace('/?token', '/events?token')).then((res) => res.text());

      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url);
      const row = (id: string) => page.locator(`[data-testid="fork-row"][data-fork-id="${id}"]`);
      // Every fork is listed from the start; the quick one completes while the held one runs.
      await row('held').waitFor();
      await page.waitForFunction(
        () => document.querySelector('[data-fork-id="quick"]')?.getAttribute('data-state') === 'completed',
        undefined,
        { timeout: WAIT_MS },
      );
      expect(await row('held').getAttribute('data-state')).toBe('running');
      await page.screenshot({ path: join(SHOTS, 'live-running.png') });

      // Its detail, then its stop button: that fork ends cancelled, the others as they would.
      await row('held').click();
      await page.locator('[data-testid="detail"]').getByText('SLEEP 600000').waitFor();
      await page.locator('[data-testid="detail-stop"]').click();
      await page.waitForFunction(
        () => document.querySelector('[data-fork-id="held"]')?.getAttribute('data-state') === 'cancelled',
        undefined,
        { timeout: WAIT_MS },
      );
      await page.waitForFunction(() => document.querySelector('[data-testid="connection"]')?.textContent === 'ended', undefined, {
        timeout: WAIT_MS,
      });
      expect(await row('later').getAttribute('data-state')).toBe('completed');
      expect(await page.locator('[data-testid="state-count-completed"]').textContent()).toBe('2');
      expect(await page.locator('[data-testid="state-count-cancelled"]').textContent()).toBe('1');
      expect(await page.locator('[data-testid="state-count-failed"]').textContent()).toBe('1');
      // The failed fork's error is on the page, without the key or any path of the run's outputs.
      await row('refused').click();
      const detailText = (await page.locator('[data-testid="detail-error"]').textContent()) ?? '';
      expect(detailText).toContain('400');
      const seen = [await page.content(), await feed, detailText].join('\n');
      expect(seen).not.toContain(SECRET);
      expect(seen).not.toContain(dir);
      // The timeline draws every fork that started; the figures have their samples.
      expect(await page.locator('[data-testid="timeline"]').getAttribute('data-forks')).toBe('4');
      expect(Number(await page.locator('[data-testid="figures"]').getAttribute('data-samples'))).toBeGreaterThan(0);
      // The timeline follows the list's filter: the cancelled forks only, then all again.
      await page.locator('[data-testid="filter-cancelled"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.getAttribute('data-forks') === '1', undefined, {
        timeout: WAIT_MS,
      });
      await page.locator('[data-testid="filter-all"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.getAttribute('data-forks') === '4', undefined, {
        timeout: WAIT_MS,
      });
      await page.screenshot({ path: join(SHOTS, 'live-ended.png') });
      await page.close();

      const run = await done;
      expect(run.code).toBe(1);
      const lines = jsonLines(readFileSync(out, 'utf8')) as { id: string; status: string }[];
      expect(Object.fromEntries(lines.map((l) => [l.id, l.status]))).toEqual({
        quick: 'completed',
        held: 'cancelled',
        later: 'completed',
        refused: 'failed',
      });
    } finally {
      child?.kill('SIGKILL');
      await done.catch(() => undefined);
    }
  });

  it('--ui-port is checked once, naming the flag', async () => {
    const alone = await runCli(['run', '--session', SESSION, '--tasks', 'examples/research.jsonl', '--ui-port', '0']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('run: --ui-port needs --ui');
    const bad = await runCli(['run', '--session', SESSION, '--tasks', 'examples/research.jsonl', '--ui', '--ui-port', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--ui-port: a port from 0 to 65535 (0: a free one), got "x"');
  });
});

describe('forkpool prompt --ui', () => {
  it('shows the parent’s turns and the tasks its calls started; a task’s stop button cancels that task and the parent goes on', async () => {
    // Turn 1: two background forks; the parent then waits for both notifications before it answers.
    const prompt = ['FORK REPLY quick answer', 'FORK SLEEP 600000', 'REPLY parent done'].join('\n');
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = runCli(['prompt', prompt, '--provider', 'local', '--base-url', server.url, '--ui', '--output-format', 'json'], {
      onSpawn: (spawned) => {
        child = spawned;
        spawned.stderr?.on('data', (chunk: Buffer | string) => (stderr += String(chunk)));
      },
    });
    try {
      const url = await until(
        'the page URL on stderr',
        () => /forkpool: live page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(stderr)?.[1],
      );
      expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(403);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url);
      // The parent's first turn, its two agent calls, each linked to the task it started.
      const tasks = page.locator('[data-testid="parent-turn"][data-turn="1"] [data-testid="parent-task"]');
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="parent-turn"][data-turn="1"] [data-testid="parent-task"]').length === 2,
        undefined,
        { timeout: WAIT_MS },
      );
      const ids = await tasks.evaluateAll((links) => links.map((l) => l.getAttribute('data-fork-id') ?? ''));
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(id).toMatch(/^fork-/);
      expect(await page.locator('[data-testid="parent-state"]').textContent()).toBe('running');
      const [quick, held] = ids as [string, string];
      const stateOf = (id: string) => page.locator(`[data-testid="fork-row"][data-fork-id="${id}"]`).getAttribute('data-state');
      await page.waitForFunction(
        (id) => document.querySelector(`[data-testid="fork-row"][data-fork-id="${id}"]`)?.getAttribute('data-state') === 'completed',
        quick,
        { timeout: WAIT_MS },
      );
      expect(await stateOf(held)).toBe('running');
      await page.screenshot({ path: join(SHOTS, 'prompt-running.png') });

      // The held task's link opens its detail (its directive), and its stop button cancels it.
      await tasks.nth(1).click();
      await page.locator('[data-testid="detail"]').getByText('SLEEP 600000').waitFor();
      await page.locator('[data-testid="detail-stop"]').click();
      await page.waitForFunction(
        (id) => document.querySelector(`[data-testid="fork-row"][data-fork-id="${id}"]`)?.getAttribute('data-state') === 'cancelled',
        held,
        { timeout: WAIT_MS },
      );
      // Both notifications in, the parent answers and the page says it ended.
      await page.waitForFunction(() => document.querySelector('[data-testid="connection"]')?.textContent === 'ended', undefined, {
        timeout: WAIT_MS,
      });
      expect(await page.locator('[data-testid="parent-state"]').textContent()).toBe('completed');
      expect(await page.locator('[data-testid="parent-turn"]').count()).toBeGreaterThanOrEqual(2);
      await expect.poll(() => page.locator('[data-testid="parent"]').textContent()).toContain('parent done');
      expect(await page.locator('[data-testid="state-count-total"]').textContent()).toBe('2');
      await page.screenshot({ path: join(SHOTS, 'prompt-ended.png') });
      await page.close();

      const run = await done;
      // A task was cancelled: exit 1, and the result says which.
      expect(run.code).toBe(1);
      const result = jsonLines(run.stdout).at(-1) as { result: string; forks: { id: string; status: string }[] };
      expect(result.result).toContain('parent done');
      expect(Object.fromEntries(result.forks.map((f) => [f.id, f.status]))).toEqual({ [quick]: 'completed', [held]: 'cancelled' });
    } finally {
      child?.kill('SIGKILL');
      await done.catch(() => undefined);
    }
  });
});
