import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { canonicalJson } from './canonical-json.js';
import type { ForkTask } from '../session/schema.js';
import { isRunId } from '../queue/redis-wire.js';
import type { ResultLine } from './result-line.js';
import { UsageError } from './usage-error.js';
import { describeWriteError } from './io.js';

/*
 * The run journal: a header naming the prefix, then one line per terminal fork result (with the
 * hash of its task), each written and fsync'd the moment the fork ends. A run killed at any point
 * can be resumed from it: a task whose id and content match a completed or failed result is not
 * run again. Tasks are matched one by one as they stream in, so no task list is needed up front.
 */

/** 3: no hash of the whole task set (tasks are streamed); 2 is read too, its task-set hash ignored. */
const VERSION = 3;
const READABLE_VERSIONS = [2, 3];

interface Header {
  type: 'journal';
  version: number;
  prefixId: string;
}

/**
 * The id of the distributed run (--queue) this journal's forks were enqueued under: a resumed run
 * re-attaches to its jobs rather than enqueueing the forks again. The latest one counts.
 */
interface RunEntry {
  type: 'run';
  runId: string;
}

interface Entry {
  type: 'result';
  prefixId: string;
  taskHash: string;
  result: ResultLine;
}

/** A task's content address (its id and every field, key order aside): what a journal entry is matched by. */
export function taskHash(task: ForkTask): string {
  return createHash('sha256').update(canonicalJson(task)).digest('hex');
}

/** The journal's complete lines, parsed; a line that is not JSON (other than a torn last one) is a usage error naming it. */
function journalLines(path: string): { parsed: (Header | Entry | RunEntry)[]; tornAt: number | undefined } {
  const { lines, tornAt } = completeLines(path);
  const parsed = lines.map((line, i) => {
    try {
      return JSON.parse(line) as Header | Entry | RunEntry;
    } catch {
      throw new UsageError(`${path}:${i + 1}: the journal line is not valid JSON (only a torn last line is tolerated)`);
    }
  });
  return { parsed, tornAt };
}

/** Lines of a file written by appends, without a torn last line (a write cut short by a kill). */
function completeLines(path: string): { lines: string[]; tornAt: number | undefined } {
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  const lines = text
    .slice(0, end)
    .split('\n')
    .filter((l) => l.trim() !== '');
  return { lines, tornAt: end < text.length ? Buffer.byteLength(text.slice(0, end)) : undefined };
}

export interface Journal {
  /** Appends a terminal result durably (write + fsync) before returning. */
  record(task: ForkTask, result: ResultLine): void;
  /** Records (write + fsync) the id of the distributed run this journal's forks go to, before any is enqueued. */
  recordRun(runId: string): void;
  close(): void;
}

export interface ResumeState {
  /** Results already final (completed or failed), by the hash of their task (taskHash). */
  done: Map<string, ResultLine>;
  /** The distributed run the journal's forks were last enqueued under, if any. */
  runId?: string;
}

/** Starts a new journal for this run (replacing an old one). */
export function createJournal(path: string, prefixId: string): Journal {
  const header: Header = { type: 'journal', version: VERSION, prefixId };
  try {
    writeFileSync(path, `${JSON.stringify(header)}\n`);
  } catch (err) {
    throw new UsageError(`cannot write the journal ${path}: ${describeWriteError(err)} (--journal FILE puts it elsewhere)`);
  }
  return openJournal(path, prefixId);
}

function openJournal(path: string, prefixId: string): Journal {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (err) {
    throw new UsageError(`--journal: cannot open ${path}: ${describeWriteError(err)}`);
  }
  return {
    record(task, result) {
      const entry: Entry = { type: 'result', prefixId, taskHash: taskHash(task), result };
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    },
    recordRun(runId) {
      const entry: RunEntry = { type: 'run', runId };
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    },
    close() {
      closeSync(fd);
    },
  };
}

/**
 * Reopens a journal to resume: refuses one written for another session, ignores a torn last line
 * (and cuts it off, so new lines start clean), and reports what is already done. Cancelled forks
 * are not done: a resumed run runs them again.
 */
export function resumeJournal(path: string, prefixId: string): { journal: Journal; state: ResumeState } {
  if (!existsSync(path)) return { journal: createJournal(path, prefixId), state: { done: new Map() } };
  const { parsed, tornAt } = journalLines(path);
  if (tornAt !== undefined) truncateSync(path, tornAt);
  const header = parsed[0];
  if (header?.type === 'journal' && header.version === 1) {
    throw new UsageError(
      `${path}: the journal was written by forkpool 0.1, whose prefix ids sorted the session's keys; this version keeps the session's own order, so its forks cannot be matched. Finish that run with forkpool 0.1, or start again with --overwrite instead of --resume`,
    );
  }
  const mismatch = headerMismatch(header, prefixId);
  if (mismatch !== undefined) {
    throw new UsageError(
      `${path}${mismatch.line ?? ''}: ${mismatch.why}; to start again, discarding it, pass --overwrite instead of --resume`,
    );
  }
  return { journal: openJournal(path, prefixId), state: finishedIn(parsed, prefixId) };
}

/** Why a journal's header does not belong to this run (another session, another version), or undefined. */
function headerMismatch(header: Header | Entry | RunEntry | undefined, prefixId: string): { why: string; line?: string } | undefined {
  if (header?.type !== 'journal') return { why: 'not a forkpool journal (expected a header line)', line: ':1' };
  if (!READABLE_VERSIONS.includes(header.version))
    return { why: `the journal was written by another forkpool version (journal version ${header.version})` };
  if (header.prefixId !== prefixId) {
    return {
      why: `the journal was written for a different session (prefix ${header.prefixId.slice(0, 12)}, this run is ${prefixId.slice(0, 12)})`,
    };
  }
  return undefined;
}

/** The final results on record (the latest for each task), and the distributed run last named. */
function finishedIn(parsed: readonly (Header | Entry | RunEntry)[], prefixId: string): ResumeState {
  const done = new Map<string, ResultLine>();
  let runId: string | undefined;
  for (const entry of parsed.slice(1)) {
    if (entry.type === 'run' && isRunId(entry.runId)) runId = entry.runId;
    if (entry.type === 'result' && entry.prefixId === prefixId && entry.result.status !== 'cancelled')
      done.set(entry.taskHash, entry.result);
  }
  return runId === undefined ? { done } : { done, runId };
}

/** What an existing journal holds that a run started afresh would throw away. */
export interface JournalHoldings {
  /** false: the file is not a forkpool journal (nothing in it is counted). */
  journal: boolean;
  /** Forks with a completed or failed result on record, each counted once. */
  finished: number;
  /** The distributed run (--queue) it names: its jobs may still be in the queue, or finished unheard. */
  runId?: string;
  /** Why --resume cannot use it (another session, another version); undefined when it can. */
  mismatch?: string;
}

/**
 * Reads a journal without changing it, to tell a run started without --resume what it would
 * discard. Undefined when there is no file, or an empty one.
 */
export function journalHoldings(path: string, prefixId: string): JournalHoldings | undefined {
  if (!existsSync(path) || statSync(path).size === 0) return undefined;
  let parsed: (Header | Entry | RunEntry)[];
  try {
    parsed = journalLines(path).parsed;
  } catch {
    return { journal: false, finished: 0 };
  }
  if (parsed[0]?.type !== 'journal') return { journal: false, finished: 0 };
  const mismatch = headerMismatch(parsed[0], prefixId)?.why;
  if (mismatch === undefined) {
    const { done, runId } = finishedIn(parsed, prefixId);
    return { journal: true, finished: done.size, ...(runId !== undefined ? { runId } : {}) };
  }
  // Another run's journal: its finished forks cost as much to run again.
  const finished = new Set(parsed.flatMap((e) => (e.type === 'result' && e.result.status !== 'cancelled' ? [e.taskHash] : [])));
  const runId = parsed.findLast((e): e is RunEntry => e.type === 'run' && isRunId(e.runId))?.runId;
  return {
    journal: true,
    finished: finished.size,
    mismatch: mismatch.replace(/^the journal /, 'it '),
    ...(runId !== undefined ? { runId } : {}),
  };
}
