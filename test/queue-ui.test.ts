import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonLines } from './fixtures/cli/run-cli.js';
import { CHROMIUM_ARGS } from './support/browser.js';
import { queueHarness, until, within, SESSION } from './support/queue-harness.js';

/*
 * A distributed run's coordinator with its live page (`run --queue … --ui`): the forks run in
 * `forkpool worker` processes on a BullMQ queue in a real redis-server; the page, in Debian's
 * Chromium, shows the workers and what each ran, and its stop button reaches a fork on a worker.
 */

const KEY = 'fp-test-key-queue-ui-8c2d';
const WAIT_MS = 45_000;
const SHOTS = join(REPO_ROOT, 'test-results', 'ui');
const h = queueHarness(KEY, 'forkpool-queue-ui-');
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
});

describe('forkpool run --queue --ui', () => {
  it('shows the workers and the forks they run; a fork’s stop button cancels it on its worker', async () => {
    const model = await h.modelServer();
    await Promise.all([h.startWorker('w1', model.url), h.startWorker('w2', model.url)]);
    const tasks = [
      { id: 'q1', directive: 'REPLY one' },
      { id: 'q2', directive: 'REPLY two' },
      { id: 'held', directive: 'SLEEP 600000\nREPLY never' },
    ];
    const run = h.cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      h.writeTasks('ui', tasks),
      '--queue',
      h.queueUrl(),
      '--ui',
      '--output-format',
      'json',
    ]);
    let url = '';
    await until('the page URL on stderr', () => {
      url = /forkpool: live page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(run.stderr())?.[1] ?? '';
      return url !== '' || run.child.exitCode !== null;
    });
    expect(url).not.toBe('');
    expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(403);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    const stateOf = (id: string) => page.locator(`[data-testid="fork-row"][data-fork-id="${id}"]`).getAttribute('data-state');
    const waitState = (id: string, state: string) =>
      page.waitForFunction(
        ([i, s]) => document.querySelector(`[data-testid="fork-row"][data-fork-id="${i}"]`)?.getAttribute('data-state') === s,
        [id, state] as const,
        { timeout: WAIT_MS },
      );
    await waitState('q1', 'completed');
    await waitState('q2', 'completed');
    await waitState('held', 'running');
    // The worker that runs the held fork says so, by name.
    const workers = page.locator('[data-testid="workers"]');
    await page.waitForFunction(
      () => /\bw[12]: \d+ done, runs held\b/.test(document.querySelector('[data-testid="workers"]')?.textContent ?? ''),
      undefined,
      { timeout: WAIT_MS },
    );
    await page.screenshot({ path: join(SHOTS, 'queue-running.png') });

    await page.locator('[data-testid="fork-row"][data-fork-id="held"]').click();
    await page.locator('[data-testid="detail-stop"]').click();
    await waitState('held', 'cancelled');
    await page.waitForFunction(() => document.querySelector('[data-testid="connection"]')?.textContent === 'ended', undefined, {
      timeout: WAIT_MS,
    });
    expect(await stateOf('q1')).toBe('completed');
    // Every fork was finished by a named worker (the held one with its cancelled result), none runs now.
    const text = (await workers.textContent()) ?? '';
    expect(text).not.toContain('runs');
    const done = [...text.matchAll(/\bw[12]: (\d+) done/g)].map((m) => Number(m[1]));
    expect(done.reduce((a, b) => a + b, 0)).toBe(3);
    await page.close();

    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(1);
    const summary = jsonLines(run.stdout()).at(-1) as { forks: { completed: number; cancelled: number } };
    expect(summary.forks).toMatchObject({ completed: 2, cancelled: 1 });
  });
});
