import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { reportHtml, snapshotOfResults } from '../ui/report.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import type { CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { ResultLineSchema, type ReadResultLine } from './result-line.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { counted } from './summary.js';
import { resultsSummaryText } from './results-summary.js';
import { firstIssue, plainWords } from '../input/issues.js';
import { describeReadError } from '../session/read.js';

/** `report`'s flags: parsing and help both come from here. */
const REPORT_FLAGS = {
  html: { type: 'string', arg: 'FILE', help: 'write the report as one self-contained HTML file (no network needed to open it)' },
  tasks: { type: 'string', arg: 'FILE', help: "the run's task file (JSONL), so that each fork's detail shows its directive" },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const REPORT_HELP = `Usage: forkpool report RESULTS.jsonl [--html FILE [--tasks FILE]]

Without --html, prints the summary run prints, from a finished run's result lines (run --out):
each fork's figures, the totals, the cache misses and the forks that failed.
With --html, writes the views of the live page (run --ui) instead: every fork's state, filterable
and searchable, its figures, error and final text, the cache misses and why, the totals. One file,
nothing fetched when it opens.

${helpOf(REPORT_FLAGS)}

${EXIT_CODES_HELP}

${examplesOf([
  ['forkpool report results.jsonl', 'the summary of a finished run (run --out results.jsonl)'],
  ['forkpool report results.jsonl --html report.html --tasks tasks.jsonl', "one HTML page, each fork's directive included"],
])}`;

export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(REPORT_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${REPORT_HELP}\n`);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('report: the results FILE (JSONL, from run --out) is required');
  if (extra.length > 0) throw new UsageError(`report: takes one results FILE; ${quoted(extra[0] as string)} is one too many`);
  if (values.html === undefined) {
    if (values.tasks !== undefined)
      throw new UsageError('report: --tasks goes with --html (the page shows each fork’s directive; the text summary does not)');
    io.stdout.write(`${resultsSummaryText(readResultLines(file), file)}\n`);
    return 0;
  }
  const lines = readResultLines(file);
  const directives = values.tasks === undefined ? undefined : readDirectives(values.tasks);
  const snapshot = snapshotOfResults(lines, directives ? { directives } : {});
  writeFileSync(values.html, reportHtml(snapshot, `forkpool report: ${basename(file)}`));
  io.stderr.write(`forkpool: report of ${counted(lines.length, 'fork')} written to ${values.html}\n`);
  return 0;
}

function readLines(file: string, flag: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch (err) {
    throw new UsageError(`${flag}${file}: ${describeReadError(err)}`);
  }
}

/** Every result line, checked; the first bad one is named by its line and field. */
function readResultLines(file: string): ReadResultLine[] {
  const out: ReadResultLine[] = [];
  for (const [i, text] of readLines(file, 'report ').entries()) {
    if (text.trim() === '') continue;
    const at = `report ${file}:${i + 1}`;
    const parsed = ResultLineSchema.safeParse(parseJson(text, at), { error: plainWords });
    if (!parsed.success) {
      const { path, rule } = firstIssue(parsed.error);
      throw new UsageError(
        `${at}: ${path ? `${path}: ` : ''}${rule} (a line of run --out: id, status, text, turns, toolCalls, usage, durationMs)`,
      );
    }
    out.push(parsed.data);
  }
  return out;
}

/** Task ids to their directives (lines that are not tasks are left out: the directive is only shown). */
function readDirectives(file: string): Map<string, string> {
  const directives = new Map<string, string>();
  for (const [i, text] of readLines(file, '--tasks ').entries()) {
    if (text.trim() === '') continue;
    const task = parseJson(text, `--tasks ${file}:${i + 1}`) as { id?: unknown; directive?: unknown } | null;
    if (typeof task?.id === 'string' && typeof task.directive === 'string') directives.set(task.id, task.directive);
  }
  return directives;
}

function parseJson(text: string, at: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${at}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}
