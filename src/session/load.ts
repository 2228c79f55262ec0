import { readFile } from 'node:fs/promises';
import { InputError } from './errors.js';
import { parseOrThrow } from './issues.js';
import { assertSafeJson, parseJsonText } from './json.js';
import { ForkTaskSchema, ParentSessionSchema, type ForkTask, type ParentSession } from './schema.js';

/** Validates an already-parsed session object (from a file or from code). */
export function parseSession(json: unknown, source?: string): ParentSession {
  const at = source === undefined ? {} : { file: source };
  assertSafeJson(json, at);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: 'a session must be a JSON object ({ "model", "history", … })' });
  }
  return parseOrThrow(ParentSessionSchema, json, at);
}

export async function loadSession(path: string): Promise<ParentSession> {
  const text = await readText(path);
  return parseSession(parseJsonText(stripBom(text), { file: path }), path);
}

/**
 * Parses JSONL task lines. Blank lines are skipped but still counted, so line numbers match
 * the user's editor. The first problem stops the load: nothing runs on bad input.
 */
export function parseTasks(text: string, source?: string): ForkTask[] {
  const at = source === undefined ? {} : { file: source };
  const tasks: ForkTask[] = [];
  const lineOfId = new Map<string, number>();
  const lines = stripBom(text).split(/\r?\n/);
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const line = index + 1;
    const json = parseJsonText(raw, { ...at, line });
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      throw new InputError({ ...at, line, rule: 'each line must be a JSON object ({ "id", "directive", … })' });
    }
    const task = parseOrThrow(ForkTaskSchema, json, { ...at, line });
    const earlier = lineOfId.get(task.id);
    if (earlier !== undefined) {
      throw new InputError({
        ...at,
        line,
        path: 'id',
        rule: `${JSON.stringify(task.id)} is already used on line ${earlier}; task ids must be unique`,
      });
    }
    lineOfId.set(task.id, line);
    tasks.push(task);
  });
  if (tasks.length === 0) {
    throw new InputError({ ...at, rule: 'holds no tasks (expected one JSON task object per line)' });
  }
  return tasks;
}

/** Loads tasks from a JSONL file, or from standard input when the path is '-'. */
export async function loadTasks(pathOrDash: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<ForkTask[]> {
  if (pathOrDash === '-') return parseTasks(await readStream(stdin), '<stdin>');
  return parseTasks(await readText(pathOrDash), pathOrDash);
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new InputError({ file: path, rule: describeReadError(err) });
  }
}

function describeReadError(err: unknown): string {
  const code = err !== null && typeof err === 'object' && 'code' in err ? String(err.code) : '';
  switch (code) {
    case 'ENOENT':
      return 'file not found';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    default:
      return `cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  } catch (err) {
    throw new InputError({ file: '<stdin>', rule: describeReadError(err) });
  }
  return Buffer.concat(chunks).toString('utf8');
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
