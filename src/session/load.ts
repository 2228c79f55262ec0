import { decodeUtf8, limitOf, readInputFile, type ReadLimits } from './read.js';
import { createTaskChecker, linePlaces } from './task-check.js';
import { noTasks, streamTasks, taskOfLine } from './task-lines.js';
import { parseSession } from './parse.js';
import type { ForkTask, ParentSession } from './schema.js';
import type { ImportOptions, ImportResult, ImportSummary } from '../import/index.js';


export interface LoadSessionOptions extends ReadLimits, ImportOptions {
  /** Called with the import's summary when the file is another agent's transcript, not forkpool's own session. */
  onImport?: (summary: ImportSummary) => void;
}

/**
 * Reads a session file: a regular file of at most `limits.maxBytes` (default 256 MiB), strict
 * UTF-8 (a byte-order mark is allowed): forkpool's own session (one JSON object), or another
 * agent's transcript that `importSession` recognizes (or `options.format` names).
 */
export async function loadSession(path: string, options?: LoadSessionOptions): Promise<ParentSession> {
  const result = await importSession(path, options);
  if (result.summary.format !== 'forkpool') options?.onImport?.(result.summary);
  return result.session;
}

/**
 * Reads a file as a session, whatever wrote it (src/import/): forkpool's own formats pass through;
 * Gemini CLI, Qwen Code and Claude Code transcripts and OpenAI / Anthropic requests are converted
 * to a session in their own shape. The result is validated; an error in a converted message names
 * the source's line and field.
 */
export async function importSession(path: string, options: ReadLimits & ImportOptions = {}): Promise<ImportResult> {
  const bytes = await readInputFile(path, limitOf(options));
  const text = decodeUtf8(bytes, path);
  // Loaded when a session is read (main thread), so workers that only parse prefixes never load the importers.
  const { importTranscript, relocate } = await import('../import/index.js');
  const result = importTranscript(stripBom(text), path, options);
  try {
    parseSession(result.session, path);
  } catch (err) {
    throw result.summary.format === 'forkpool' ? err : relocate(err, result.origins, path);
  }
  return result;
}

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

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
