import { limitOf, type ReadLimits } from './read.js';
import { createTaskChecker, linePlaces } from './task-check.js';
import { noTasks, streamTasks, taskOfLine } from './task-lines.js';
import type { ForkTask } from './schema.js';

/**
 * Parses JSONL task lines. Blank lines are skipped but still counted, so line numbers match
 * the user's editor. The first problem stops the load: nothing runs on bad input.
 */
export function parseTasks(text: string, source?: string): ForkTask[] {
  const check = createTaskChecker(linePlaces(source));
  const tasks = stripBom(text)
    .split(/\r?\n/)
    .flatMap((raw, index) => {
      const task = taskOfLine(raw, index + 1, source, check);
      return task === undefined ? [] : [task];
    });
  if (tasks.length === 0) throw noTasks(source);
  return tasks;
}

/**
 * Loads every task from a JSONL file, or from standard input when the path is '-', into an array.
 * The same limits as a session file: a regular file (a pipe is read through '-'), at most
 * `limits.maxBytes`, strict UTF-8. To run the tasks as they are read, pass `streamTasks()` to fanOut.
 */
export async function loadTasks(
  pathOrDash: string,
  stdin: NodeJS.ReadableStream = process.stdin,
  limits?: ReadLimits,
): Promise<ForkTask[]> {
  const tasks: ForkTask[] = [];
  for await (const task of await streamTasks(pathOrDash, stdin, { maxBytes: limitOf(limits) })) tasks.push(task);
  return tasks;
}

/** The text without a leading byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
