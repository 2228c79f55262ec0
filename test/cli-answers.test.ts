import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * `forkpool run` in text mode shows each fork's answer as it ends (id, status, its first lines,
 * bounded), then the summary, with or without --out; --quiet shows the summary alone. The CLI runs
 * in its own process against `forkpool serve` in another.
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-answers-'));
let serve: ServeProcess;
beforeAll(async () => {
  serve = await startServe();
});
afterAll(async () => {
  await serve?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const LONG = 'x'.repeat(150);
const TASKS = [
  { id: 'short', directive: 'REPLY the short answer' },
  { id: 'long', directive: ['REPLY first line', `REPLY ${LONG}`, 'REPLY third line', 'REPLY fourth line', 'REPLY fifth line'].join('\n') },
  // One model turn allowed: a fork that calls a tool fails.
  { id: 'broken', directive: 'CALL list_dir {"path":"."}' },
]
  .map((t) => JSON.stringify(t))
  .join('\n');

const runText = (...flags: string[]) =>
  runCli(['run', '--session', SESSION, '--tasks', '-', '--provider', 'local', '--base-url', serve.url, '--max-turns', '1', ...flags], {
    input: TASKS,
  });

/** The lines of one fork's answer block: its head line and the indented lines under it. */
function answerBlock(stdout: string, id: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`${id} · `));
  if (at < 0) return [];
  const block = [lines[at] as string];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('  ')) break;
    block.push(line);
  }
  return block;
}

describe('forkpool run, text: the answers on screen', () => {
  it("prints each fork's id, status and first lines as it ends, bounded, then the summary", async () => {
    const run = await runText();
    expect(run.code).toBe(1);
    expect(answerBlock(run.stdout, 'short')).toEqual(['short · completed', '  the short answer']);
    // At most 3 lines, each at most 100 columns, and how many more there are.
    expect(answerBlock(run.stdout, 'long')).toEqual([
      'long · completed',
      '  first line',
      `  ${'x'.repeat(97)}…`,
      '  third line',
      '  … 2 more lines',
    ]);
    const broken = answerBlock(run.stdout, 'broken');
    expect(broken[0]).toBe('broken · failed');
    expect(broken[1]).toMatch(/^ {2}max_turns: /);
    for (const line of run.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(140);
    // Then the summary, its table of figures included, after every answer.
    const summaryAt = run.stdout.indexOf('forkpool run · local');
    expect(summaryAt).toBeGreaterThan(run.stdout.indexOf('short · completed'));
    expect(summaryAt).toBeGreaterThan(run.stdout.indexOf('broken · failed'));
    expect(run.stdout).toMatch(/^short\s+completed\s/m);
    expect(run.stdout).toContain('forks      2 completed, 1 failed, 0 cancelled of 3');
  });

  it('with --out: the same answers and the summary, which names no library option', async () => {
    const out = join(tmp, 'results.jsonl');
    const run = await runText('--out', out);
    expect(run.code).toBe(1);
    expect(answerBlock(run.stdout, 'short')).toEqual(['short · completed', '  the short answer']);
    expect(answerBlock(run.stdout, 'long')).toHaveLength(5);
    expect(run.stdout).toContain('forks      2 completed, 1 failed, 0 cancelled of 3');
    expect(run.stdout).toContain(`results    one line per fork in ${out} (its figures: forkpool report ${out})`);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/retainResults|retained/);
    // The file holds the whole text; the screen only its first lines.
    const long = jsonLines(readFileSync(out, 'utf8')).find((line) => line.id === 'long');
    expect(long?.text).toContain(LONG);

    // forkpool report FILE: the same summary, from the file's lines.
    const [report, withTasks] = await Promise.all([runCli(['report', out]), runCli(['report', out, '--tasks', out])]);
    expect(report.code).toBe(0);
    expect(report.stderr).toBe('');
    expect(report.stdout).toMatch(new RegExp(`^forkpool report · ${out} · 3 forks\n`));
    for (const id of ['short', 'long', 'broken'])
      expect(report.stdout).toMatch(new RegExp(`^${id}\\s+(completed|failed)\\s+[\\d,]+\\s+[\\d,]+(\\s|$)`, 'm'));
    const lineOf = (text: string, head: string): string | undefined => text.split('\n').find((line) => line.startsWith(head));
    for (const head of ['forks ', 'tokens ', 'failed ']) expect(lineOf(report.stdout, head)).toBe(lineOf(run.stdout, head));
    expect(lineOf(report.stdout, 'failed ')).toMatch(/^failed {5}broken: max_turns: /);
    expect(withTasks.code).toBe(2);
    expect(withTasks.stderr).toBe(
      'forkpool: report: --tasks goes with --html (the page shows each fork’s directive; the text summary does not)\n',
    );
  });

  it('--quiet: the summary alone; refused outside text mode', async () => {
    const [quiet, json] = await Promise.all([runText('--quiet'), runText('-q', '--output-format', 'json')]);
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).not.toContain(' · completed');
    expect(quiet.stdout).toMatch(/^forkpool run · local/);
    expect(quiet.stdout).toContain('forks      2 completed, 1 failed, 0 cancelled of 3');
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(json.stderr).toBe('forkpool: --quiet: only with --output-format text (json prints no answers on the way to leave out)\n');
  });
});
