import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { canonicalJson } from './canonical-json.js';
import type { ForkTask } from '../session/schema.js';
import { isRunId } from '../queue/protocol.js';
import type { ResultLine } from './result-line.js';
import { UsageError } from './usage-error.js';

/*
 * The run journal: a header naming the prefix and the task set, then one line per terminal fork
 * result, each written and fsync'd the moment the fork ends. A run killed at any point can be
 * resumed from it: forks with a completed or failed result are not run again.
 */

/** 2: prefix ids are the sha256 of the session's own JSON (version 1 sorted its keys first). */
const VERSION = 2;

interface Header {
  type: 'journal';
  version: number;
  prefixId: string;
  tasksHash: string;
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

function taskHash(task: ForkTask): string {
  return createHash('sha256').update(canonicalJson(task)).digest('hex');
}

function tasksHash(tasks: readonly ForkTask[]): string {
  return createHash('sha256').update(canonicalJson(tasks.map(taskHash))).digest('hex');
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
  const lines = text.slice(0, end).split('\n').filter((l) => l.trim() !== '');
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
  /** Results already final (completed or failed) for tasks of this run, by task id. */
  done: Map<string, ResultLine>;
  /** The distributed run the journal's forks were last enqueued under, if any. */
  runId?: string;
}

/** Starts a new journal for this run (replacing an old one). */
export function createJournal(path: string, prefixId: string, tasks: readonly ForkTask[]): Journal {
  const header: Header = { type: 'journal', version: VERSION, prefixId, tasksHash: tasksHash(tasks) };
  try {
    writeFileSync(path, `${JSON.stringify(header)}\n`);
  } catch (err) {
    throw new UsageError(`cannot write the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)} (--journal FILE puts it elsewhere)`);
  }
  return openJournal(path, prefixId);
}

function openJournal(path: string, prefixId: string): Journal {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (err) {
    throw new UsageError(`--journal: cannot open ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
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
 * Reopens a journal to resume: refuses one written for another session or task set, ignores a
 * torn last line (and cuts it off, so new lines start clean), and reports what is already done.
 * Cancelled forks are not done: a resumed run runs them again.
 */
export function resumeJournal(path: string, prefixId: string, tasks: readonly ForkTask[]): { journal: Journal; state: ResumeState } {
  if (!existsSync(path)) return { journal: createJournal(path, prefixId, tasks), state: { done: new Map() } };
  const { parsed, tornAt } = journalLines(path);
  if (tornAt !== undefined) truncateSync(path, tornAt);
  const header = parsed[0];
  if (header?.type === 'journal' && header.version === 1) {
    throw new UsageError(
      `${path}: the journal was written by forkpool 0.1, whose prefix ids sorted the session's keys; this version keeps the session's own order, so its forks cannot be matched. Finish that run with forkpool 0.1, or start again with --overwrite instead of --resume`,
    );
  }
  const mismatch = headerMismatch(header, prefixId, tasks);
  if (mismatch !== undefined) {
    throw new UsageError(`${path}${mismatch.line ?? ''}: ${mismatch.why}; to start again, discarding it, pass --overwrite instead of --resume`);
  }
  const { done, runId } = finishedIn(parsed, prefixId, tasks);
  return { journal: openJournal(path, prefixId), state: runId === undefined ? { done } : { done, runId } };
}

/** Why a journal's header does not belong to this run (another session, other tasks, another version), or undefined. */
function headerMismatch(header: Header | Entry | RunEntry | undefined, prefixId: string, tasks: readonly ForkTask[]): { why: string; line?: string } | undefined {
  if (header?.type !== 'journal' || header.version !== VERSION) {
    return header?.type === 'journal' ? { why: `the journal was written by another forkpool version (journal version ${header.version})` } : { why: 'not a forkpool journal (expected a header line)', line: ':1' };
  }
  if (header.prefixId !== prefixId) {
    return { why: `the journal was written for a different session (prefix ${header.prefixId.slice(0, 12)}, this run is ${prefixId.slice(0, 12)})` };
  }
  if (header.tasksHash !== tasksHash(tasks)) return { why: 'the journal was written for different tasks' };
  return undefined;
}

/** The final results on record for this run's tasks (the latest for each), and the distributed run last named. */
function finishedIn(parsed: readonly (Header | Entry | RunEntry)[], prefixId: string, tasks: readonly ForkTask[]): ResumeState {
  const byHash = new Map(tasks.map((t) => [taskHash(t), t]));
  const done = new Map<string, ResultLine>();
  let runId: string | undefined;
  for (const entry of parsed.slice(1)) {
    if (entry.type === 'run' && isRunId(entry.runId)) runId = entry.runId;
    if (entry.type !== 'result') continue;
    const task = byHash.get(entry.taskHash);
    if (task && entry.prefixId === prefixId && entry.result.status !== 'cancelled') done.set(task.id, entry.result);
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
  /** Why --resume cannot use it (another session, other tasks, another version); undefined when it can. */
  mismatch?: string;
}

/**
 * Reads a journal without changing it, to tell a run started without --resume what it would
 * discard. Undefined when there is no file, or an empty one.
 */
export function journalHoldings(path: string, prefixId: string, tasks: readonly ForkTask[]): JournalHoldings | undefined {
  if (!existsSync(path) || statSync(path).size === 0) return undefined;
  let parsed: (Header | Entry | RunEntry)[];
  try {
    parsed = journalLines(path).parsed;
  } catch {
    return { journal: false, finished: 0 };
  }
  if (parsed[0]?.type !== 'journal') return { journal: false, finished: 0 };
  const mismatch = headerMismatch(parsed[0], prefixId, tasks)?.why;
  if (mismatch === undefined) {
    const { done, runId } = finishedIn(parsed, prefixId, tasks);
    return { journal: true, finished: done.size, ...(runId !== undefined ? { runId } : {}) };
  }
  // Another run's journal: its finished forks cost as much to run again.
  const finished = new Set(parsed.flatMap((e) => (e.type === 'result' && e.result.status !== 'cancelled' ? [e.taskHash] : [])));
  const runId = parsed.findLast((e): e is RunEntry => e.type === 'run' && isRunId(e.runId))?.runId;
  return { journal: true, finished: finished.size, mismatch: mismatch.replace(/^the journal /, 'it '), ...(runId !== undefined ? { runId } : {}) };
}

/**
 * Rewrites --out to hold exactly the finished results, in task order, before a resumed run appends
 * the rest: whatever a killed run left there (a torn line, a result whose journal write never
 * happened, a cancelled fork about to run again), each fork ends up in --out exactly once.
 */
export function rewriteOut(path: string, done: ReadonlyMap<string, ResultLine>, tasks: readonly ForkTask[]): void {
  const lines = tasks.flatMap((t) => {
    const r = done.get(t.id);
    return r ? [`${JSON.stringify(r)}\n`] : [];
  });
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, lines.join(''));
  const fd = openSync(temp, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, path);
}
