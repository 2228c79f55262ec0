import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { CHROMIUM_ARGS } from './support/browser.js';

/*
 * `forkpool report RESULTS --html FILE`: a finished run's results (run --out, the CLI in its own
 * process) as one self-contained page, opened from disk in Debian's Chromium: every fork is there,
 * with its directive, final text or error; nothing of the machine's paths.
 */

const SHOTS = join(REPO_ROOT, 'test-results', 'ui');
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-report-'));
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('forkpool report --html', () => {
  it('writes one page that shows every fork of the run, its directive and its end', async () => {
    const tasks = writeTasks(tmp, [
      { id: 'alpha', directive: 'REPLY alpha found the answer' },
      { id: 'beta', directive: 'REPLY beta found another' },
      { id: 'broken', directive: 'FAIL 400\nREPLY never' },
      { id: 'gamma', directive: 'REPLY gamma <b>not bold</b>' },
    ]);
    const out = join(tmp, 'out.jsonl');
    const run = await runCli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      tasks,
      '--warmup',
      'none',
      '--out',
      out,
      '--output-format',
      'json',
    ]);
    expect(run.code).toBe(1);
    const html = join(tmp, 'report.html');
    const report = await runCli(['report', out, '--html', html, '--tasks', tasks]);
    expect(report.code).toBe(0);
    expect(report.stderr).toContain('report of 4 forks written to');
    const text = readFileSync(html, 'utf8');
    // Self-contained, and nothing of where the files were.
    expect(text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    expect(text).not.toContain(tmp);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(html).href);
    const row = (id: string) => page.locator(`[data-testid="fork-row"][data-fork-id="${id}"]`);
    for (const id of ['alpha', 'beta', 'broken', 'gamma']) await row(id).waitFor();
    expect(await page.locator('[data-testid="state-count-total"]').textContent()).toBe('4');
    expect(await page.locator('[data-testid="state-count-failed"]').textContent()).toBe('1');
    expect(await row('broken').getAttribute('data-state')).toBe('failed');
    // A fork's detail: its directive and final text, a model's markup shown as text.
    await row('gamma').click();
    await page.locator('[data-testid="detail"]').getByText('gamma <b>not bold</b>', { exact: false }).first().waitFor();
    expect(await page.locator('[data-testid="detail"] b').count()).toBe(0);
    await row('broken').click();
    await page.locator('[data-testid="detail-error"]').waitFor();
    // A report stops nothing and connects nowhere.
    expect(await page.locator('[data-testid="detail-stop"]').isVisible()).toBe(false);
    // Each line's end and duration put its fork on the timeline.
    expect(await page.locator('[data-testid="timeline"]').getAttribute('data-forks')).toBe('4');
    await page.screenshot({ path: join(SHOTS, 'report.png') });
    expect(requests).toEqual([]);
    await page.close();
  });

  it('names the file, the line and the field of a bad result line', async () => {
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(
      bad,
      `${JSON.stringify({ id: 'a', status: 'completed', text: '', turns: 1, toolCalls: 0, usage: { promptTokens: 1, cachedTokens: 0, outputTokens: 1 }, durationMs: 5 })}\n{"id":"b","status":"done"}\n`,
    );
    const run = await runCli(['report', bad, '--html', join(tmp, 'never.html')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`report ${bad}:2: status:`);
    // An end that is not a time of day is named too (a line without one is an older line: no timeline).
    const badTime = join(tmp, 'bad-time.jsonl');
    writeFileSync(
      badTime,
      `${JSON.stringify({ id: 'a', status: 'completed', text: '', turns: 1, toolCalls: 0, usage: { promptTokens: 1, cachedTokens: 0, outputTokens: 1 }, durationMs: 5, endedAt: 'yesterday' })}\n`,
    );
    const timeRun = await runCli(['report', badTime, '--html', join(tmp, 'never.html')]);
    expect(timeRun.code).toBe(2);
    expect(timeRun.stderr).toContain(`report ${badTime}:1: endedAt:`);
    const missing = await runCli(['report', join(tmp, 'nothing.jsonl'), '--html', join(tmp, 'never.html')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('file not found');
  });
});
