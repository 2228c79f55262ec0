import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { reportHtml, snapshotOfResults } from '../ui/report.js';
import { helpOf, parseOptionsOf, type FlagTable } from './flags.js';
import type { CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { ResultLineSchema, type ReadResultLine } from './result-line.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/** `report`'s flags: parsing and help both come from here. */
const REPORT_FLAGS = {
  html: { type: 'string', arg: 'FILE', help: 'write the report as one self-contained HTML file (no network needed to open it)' },
  tasks: { type: 'string', arg: 'FILE', help: "the run's task file (JSONL), so that each fork's detail shows its directive" },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const REPORT_HELP = `Usage: forkpool report RESULTS.jsonl --html FILE [--tasks FILE]

Writes the views of the live page (run --ui) for a finished run, from its result lines (run --out):
every fork's state, filterable and searchable, its figures, error and final text, the cache misses
and why, the totals. One file, nothing fetched when it opens.

${helpOf(REPORT_FLAGS)}

${EXIT_CODES_HELP}`;

export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(REPORT_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${REPORT_HELP}\n`);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('report: the results FILE (JSONL, from run --out) is required');
  if (extra.length > 0) throw new UsageError(`report: takes one results FILE; ${quoted(extra[0] as string)} is one too many`);
  if (values.html === undefined) throw new UsageError('report: --html FILE is required (where the report goes)');
  const lines = readResultLines(file);
  const directives = values.tasks === undefined ? undefined : readDirectives(values.tasks);
  const snapshot = snapshotOfResults(lines, directives ? { directives } : {});
  writeFileSync(values.html, reportHtml(snapshot, `forkpool report: ${basename(file)}`));
  io.stderr.write(`forkpool: report of ${lines.length} forks written to ${values.html}\n`);
  return 0;
}

function readLines(file: string, flag: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch (err) {
    throw new UsageError(
      `${flag}${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Every result line, checked; the first bad one is named by its line and field. */
function readResultLines(file: string): ReadResultLine[] {
  const out: ReadResultLine[] = [];
  for (const [i, text] of readLines(file, 'report ').entries()) {
    if (text.trim() === '') continue;
    const at = `report ${file}:${i + 1}`;
    const parsed = ResultLineSchema.safeParse(parseJson(text, at));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      throw new UsageError(
        `${at}: ${field ? `${field}: ` : ''}${issue?.message ?? 'not a result line'} (a line of run --out: id, status, text, turns, toolCalls, usage, durationMs)`,
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
