import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    // A run of a few forks has its table with --out too, and says where the lines are.
    expect(run.stdout).toMatch(/^short\s+completed\s/m);
    expect(run.stdout).toContain(`results    one line per fork in ${out} (its figures: forkpool report ${out})\n`);
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
    // The lines hold each fork's cache maximum: its column and the efficiency, as run shows them.
    expect(report.stdout).toMatch(/^fork\s+status\s+prompt\s+cached\s+max cacheable\s+efficiency/m);
    expect(lineOf(report.stdout, 'cache ')).toMatch(/^cache {6}hit rate [\d.]+% · [\d,]+ of [\d,]+ cacheable \(efficiency (—|[\d.]+%)\)$/);
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

  it('report FILE of lines without the cache maximum says the efficiency is not known', async () => {
    const out = join(tmp, 'older.jsonl');
    await runText('--out', out, '--quiet');
    // As an older forkpool wrote them: no maximum, no per-turn figures, no directive.
    const older = jsonLines(readFileSync(out, 'utf8')).map(
      ({ maxCachedTokens: _m, preexistingCachedTokens: _p, perTurn: _t, ...rest }) => rest,
    );
    writeFileSync(out, `${older.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const report = await runCli(['report', out]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^fork\s+status\s+prompt\s+cached\s+missed|^fork\s+status\s+prompt\s+cached$/m);
    expect(report.stdout).not.toContain('max cacheable');
    expect(report.stdout).toMatch(
      /^cache {6}hit rate [\d.]+% · [\d,]+ of [\d,]+ prompt tokens served from the cache · efficiency not known: the lines do not hold the most that could have been cached \(written by an older forkpool\)$/m,
    );
  });
});

describe('forkpool run, text: the per-fork table of a large run', () => {
  const MANY = Array.from({ length: 51 }, (_, i) => JSON.stringify({ id: `f${i + 1}`, directive: `REPLY answer ${i + 1}` })).join('\n');
  const runMany = (tasks: string, ...flags: string[]) =>
    runCli(['run', '--session', SESSION, '--tasks', tasks, '--provider', 'local', '--base-url', serve.url, '--quiet', ...flags], {
      input: MANY,
    });
  const rowsOf = (stdout: string): string[] => stdout.split('\n').filter((line) => /^f\d+\s+completed\s/.test(line));

  it('above 50 forks there is no table: the summary says where the figures are (stdin, and a file with --out)', async () => {
    const file = join(tmp, 'many.jsonl');
    writeFileSync(file, `${MANY}\n`);
    const out = join(tmp, 'many-results.jsonl');
    const [fromStdin, fromFile] = await Promise.all([runMany('-'), runMany(file, '--out', out)]);
    for (const run of [fromStdin, fromFile]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('forks      51 completed, 0 failed, 0 cancelled of 51\n');
      expect(run.stdout).not.toMatch(/^fork\s+status\s/m);
      expect(rowsOf(run.stdout)).toEqual([]);
    }
    expect(fromStdin.stdout).toContain(
      '\nper fork   no table on screen above 50 forks: run with --out FILE for one result line per fork, then forkpool report FILE\n',
    );
    expect(fromFile.stdout).toContain(
      `\nresults    one line per fork in ${out} (its figures: forkpool report ${out}); no table on screen above 50 forks\n`,
    );
    // report FILE shows the first 50 rows and counts the rest.
    const report = await runCli(['report', out]);
    expect(report.code).toBe(0);
    expect(rowsOf(report.stdout)).toHaveLength(50);
    expect(report.stdout).toContain('\n… and 1 more fork\n');
  });

  it('at 50 forks from stdin, the table has every row', async () => {
    const fifty = MANY.split('\n').slice(0, 50).join('\n');
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--provider', 'local', '--base-url', serve.url, '--quiet'], {
      input: fifty,
    });
    expect(run.code).toBe(0);
    expect(rowsOf(run.stdout)).toHaveLength(50);
    expect(run.stdout).not.toContain('no table on screen');
  });
});
