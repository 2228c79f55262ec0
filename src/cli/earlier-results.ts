import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { journalHoldings, type JournalHoldings } from './journal.js';
import { UsageError } from './usage-error.js';

/** Where `run` writes what it has paid for, and what it was told to do with an earlier run's. */
export interface RunFiles {
  out: string | undefined;
  /** --journal as given (undefined: none, or the default beside --out). */
  journal: string | undefined;
  /** The journal the run uses: --journal, else FILE.journal beside --out. */
  journalPath: string | undefined;
  resume: boolean;
  overwrite: boolean;
}

/**
 * Nothing paid for is thrown away unasked: a run whose --out or journal already holds results
 * starts only with --resume (run the rest) or --overwrite (discard them and start again).
 * Checked before anything is written; each refusal is a usage error that says which flag to pass.
 */
export function checkEarlierResults(files: RunFiles, prefixId: string): void {
  const { out, journalPath, resume, overwrite } = files;
  if (resume && overwrite)
    throw new UsageError('--resume and --overwrite exclude each other: --resume keeps the finished forks, --overwrite discards them');
  if (overwrite && journalPath === undefined)
    throw new UsageError('--overwrite needs --out FILE or --journal FILE (the results it would replace)');
  if (out !== undefined) checkDirectory('--out', out);
  if (files.journal !== undefined) checkDirectory('--journal', files.journal);
  if (overwrite || journalPath === undefined) return;

  const held = journalHoldings(journalPath, prefixId);
  const outBytes = out !== undefined ? bytesIn(out) : 0;
  if (resume) {
    if (held === undefined && out !== undefined && outBytes > 0) {
      throw new UsageError(
        `--resume: there is no journal at ${journalPath}, so the results in ${out} (${outBytes} bytes) cannot be matched to tasks; pass --overwrite instead to replace them, or choose another --out`,
      );
    }
    return;
  }
  const journalCounts = held !== undefined && (held.finished > 0 || held.runId !== undefined || !held.journal);
  if (!journalCounts && outBytes === 0) return;

  const what: string[] = [];
  if (held !== undefined && journalCounts) what.push(holdingsText(held, journalPath));
  if (out !== undefined && outBytes > 0) {
    what.push(
      `${out} already holds results (${outBytes} bytes)${held === undefined ? `, and there is no journal at ${journalPath} to resume from` : ''}`,
    );
  }
  let advice: string;
  if (held?.journal && held.mismatch === undefined) {
    // Tasks stream in: how many are left is known only as they are read.
    advice = `pass --resume to run only the tasks not finished (a task with the same id and content is not run again), or --overwrite to discard ${held.finished === 0 ? 'it' : `the ${held.finished} finished`} and run every task again`;
  } else {
    advice = `pass --overwrite to discard ${held?.journal === false ? 'it' : 'them'} and start again, or choose another ${out !== undefined ? '--out' : '--journal'}`;
  }
  throw new UsageError(`run: not starting: ${what.join(', and ')}; ${advice}`);
}

function holdingsText(held: JournalHoldings, journalPath: string): string {
  if (!held.journal) return `${journalPath} is not a forkpool journal`;
  const forks = `${held.finished} finished fork${held.finished === 1 ? '' : 's'}`;
  const run = held.runId !== undefined ? ` of distributed run ${held.runId}, whose jobs may still be in the queue` : '';
  const unusable = held.mismatch !== undefined ? ` (${held.mismatch}, so --resume cannot use it)` : '';
  return `the journal ${journalPath} holds ${forks}${run}${unusable}`;
}

/** A path whose directory is missing is the flag's error, named before anything is written. */
function checkDirectory(flag: string, path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${flag} ${path}: the directory ${dir} does not exist`);
}

/** Bytes in a regular file (a device or pipe, e.g. /dev/stdout, holds no earlier results). */
function bytesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  return stat.isFile() ? stat.size : 0;
}
