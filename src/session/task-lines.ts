import { InputError } from '../input/errors.js';
import { parseJsonText } from '../input/json.js';
import { MAX_INPUT_BYTES, decodeUtf8Line, describeReadError, formatBytes, openInputFile, statInputFile, tooLarge } from './read.js';
import type { ForkTask } from './schema.js';
import { createTaskChecker, linePlaces } from './task-check.js';

/*
 * A JSONL task file read as a stream: one line at a time, each task checked (its fields, an id no
 * earlier line has) as it is read. A file is read twice: checked whole first (keeping only the ids),
 * so a bad line anywhere is refused before anything runs, then read again as the run takes its
 * tasks. Standard input cannot be read twice: its lines are checked as they come, and a bad one is
 * named by its number when the reader reaches it.
 */

const PIPE_HINT = '; to read tasks from a pipe, pass - and pipe them to standard input';
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface TaskLinesOptions {
  /** Refuse more than this many bytes in all (default: no limit; each line is bounded by `maxLineBytes`). */
  maxBytes?: number;
  /** The longest line read; default MAX_INPUT_BYTES (256 MiB). */
  maxLineBytes?: number;
  /**
   * Tasks to leave out (a resumed run's finished forks): checked like every other line, their ids
   * included, but not handed on. Asked of every task each time the file is read (checked whole,
   * then run), so it must only answer; `onSkip` is told.
   */
  skip?: (task: ForkTask) => boolean;
  /** Told of each task left out, once, as the run reads past it. */
  onSkip?: (task: ForkTask) => void;
}

/** The stream a reader reads; destroying it ends a read that is waiting for more. */
type ByteStream = NodeJS.ReadableStream & { destroy?: () => void };

/**
 * Checked tasks from a JSONL file or standard input, read once, lazily. `ForkEngine.fanOut` takes
 * them as they are (they are checked already, with errors naming `file:line`).
 */
export class TaskLines implements AsyncIterable<ForkTask> {
  private readonly tasks: AsyncGenerator<ForkTask, void>;
  private peeked: Promise<IteratorResult<ForkTask, void>> | undefined;
  private iterated = false;
  private closed = false;
  /** The lines of the last two tasks handed on, and how many were: a reader stopped with a take in flight took one fewer. */
  private handedOn = 0;
  private lastLines: [number, number] = [0, 0];
  private ended = false;

  /** @internal Use streamTasks(). */
  constructor(
    private readonly stream: ByteStream,
    /** The file as the user named it ('<stdin>' for standard input). */
    readonly source: string,
    options: TaskLinesOptions,
    /**
     * The tasks it hands on, when the file was checked whole before (a file); undefined for
     * standard input, which is read once. A run over a known total reads the rest of the file when
     * it stops early, so that every task has its result.
     */
    readonly total?: number,
  ) {
    this.tasks = this.read(options);
  }

  /**
   * How far a reader that took `taken` tasks got: the line of the last task it took (its tasks are
   * those up to it), and whether the reading reached the end.
   */
  progress(taken: number): { throughLine: number; ended: boolean } {
    const throughLine = taken >= this.handedOn ? this.lastLines[1] : taken === this.handedOn - 1 ? this.lastLines[0] : 0;
    return { throughLine, ended: this.ended };
  }

  /**
   * Reads up to the first task to run (or the end), so that a bad first line is refused before
   * anything starts. Throws what reading it threw.
   */
  async ready(): Promise<void> {
    this.peeked ??= this.tasks.next();
    await this.peeked;
  }

  [Symbol.asyncIterator](): AsyncIterator<ForkTask, void> {
    if (this.iterated) throw new Error(`TaskLines: the tasks of ${this.source} can be read once`);
    this.iterated = true;
    return {
      next: () => {
        const first = this.peeked;
        this.peeked = undefined;
        return first ?? this.tasks.next();
      },
      // Not the generator's return(): that would wait for a read in progress, which may wait on a pipe forever.
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  /** Stops reading (a read waiting for more input ends) and releases the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.destroy?.();
  }

  private async *read(options: TaskLinesOptions): AsyncGenerator<ForkTask, void> {
    const check = createTaskChecker(linePlaces(this.source));
    let checked = 0;
    for await (const { text, line } of readLines(this.stream, this.source, options, () => this.closed)) {
      const task = taskOfLine(text, line, this.source, check);
      if (task === undefined) continue;
      checked++;
      if (options.skip?.(task)) {
        options.onSkip?.(task);
        continue;
      }
      this.handedOn++;
      this.lastLines = [this.lastLines[1], line];
      yield task;
    }
    if (this.closed) return;
    this.ended = true;
    if (checked === 0) throw noTasks(this.source);
  }
}

/**
 * The lines of a stream, decoded (strict UTF-8), without their line ends and the file's byte-order
 * mark. `closed`: the reader was stopped on purpose (the stream's error is then no error).
 */
async function* readLines(
  stream: ByteStream,
  file: string,
  options: TaskLinesOptions,
  closed: () => boolean,
): AsyncGenerator<{ text: string; line: number }> {
  const maxLine = options.maxLineBytes ?? MAX_INPUT_BYTES;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let line = 1;
  let lineStart = 0;
  let total = 0;
  const decode = (bytes: Buffer): { text: string; line: number } => {
    let body = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
    let start = lineStart;
    if (line === 1 && body.subarray(0, 3).equals(UTF8_BOM)) {
      body = body.subarray(3);
      start += 3;
    }
    return { text: decodeUtf8Line(body, file, line, start), line };
  };
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += bytes.length;
      if (options.maxBytes !== undefined && total > options.maxBytes) throw tooLarge(file, options.maxBytes);
      let from = 0;
      for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, from)) {
        parts.push(bytes.subarray(from, nl));
        const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
        if (whole.length > maxLine) throw lineTooLong(file, line, maxLine);
        yield decode(whole);
        lineStart += whole.length + 1;
        line++;
        parts = [];
        partBytes = 0;
        from = nl + 1;
      }
      if (from < bytes.length) {
        parts.push(bytes.subarray(from));
        partBytes += bytes.length - from;
        if (partBytes > maxLine) throw lineTooLong(file, line, maxLine);
      }
    }
  } catch (err) {
    if (closed()) return;
    if (err instanceof InputError) throw err;
    throw new InputError({ file, rule: describeReadError(err) });
  } finally {
    // Read to the end, or stopped by an error: the file is released either way.
    stream.destroy?.();
  }
  if (partBytes > 0) yield decode(Buffer.concat(parts));
}

/**
 * Tasks from a JSONL file, or from standard input when the path is '-', read as a stream. The file
 * is checked whole now (it is a regular file: a pipe is read through '-'; every line is a task, no
 * id repeats), so a bad line anywhere throws its InputError here, before anything runs; then it is
 * opened again, its lines read as the tasks are taken. Standard input's lines are checked as they come.
 */
export async function streamTasks(
  pathOrDash: string,
  stdin: NodeJS.ReadableStream = process.stdin,
  options: TaskLinesOptions = {},
): Promise<TaskLines> {
  if (pathOrDash === '-') return new TaskLines(stdin, '<stdin>', options);
  await statInputFile(pathOrDash, options.maxBytes ?? Number.MAX_SAFE_INTEGER, PIPE_HINT);
  const total = await checkWhole(pathOrDash, options);
  const handle = await openInputFile(pathOrDash);
  return new TaskLines(handle.createReadStream(), pathOrDash, options, total);
}

/**
 * Reads a task file to its end, checking every line as the run will, and keeping only the ids
 * (what a repeat is found by): the tasks it would hand on, counted.
 */
async function checkWhole(path: string, options: TaskLinesOptions): Promise<number> {
  const handle = await openInputFile(path);
  const check = createTaskChecker(linePlaces(path));
  let checked = 0;
  let handedOn = 0;
  for await (const { text, line } of readLines(handle.createReadStream(), path, options, () => false)) {
    const task = taskOfLine(text, line, path, check);
    if (task === undefined) continue;
    checked++;
    if (!options.skip?.(task)) handedOn++;
  }
  if (checked === 0) throw noTasks(path);
  return handedOn;
}

/** One task line, checked; undefined for a blank line (blank lines are skipped but counted). */
export function taskOfLine(
  text: string,
  line: number,
  file: string | undefined,
  check: (value: unknown, line: number) => ForkTask,
): ForkTask | undefined {
  if (text.trim() === '') return undefined;
  return check(parseJsonText(text, { ...(file === undefined ? {} : { file }), line }), line);
}

export function noTasks(file: string | undefined): InputError {
  return new InputError({ ...(file === undefined ? {} : { file }), rule: 'holds no tasks (expected one JSON task object per line)' });
}

function lineTooLong(file: string, line: number, maxBytes: number): InputError {
  return new InputError({ file, line, rule: `the line is longer than the ${formatBytes(maxBytes)} limit for one task` });
}
