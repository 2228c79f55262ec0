import { InputError } from './errors.js';
import { parseOrThrow } from './issues.js';
import { assertSafeJson, parseJsonText } from './json.js';
import { decodeUtf8, limitOf, readInputFile, readInputStream, type ReadLimits } from './read.js';
import { parseAnthropicMessagesSession } from './anthropic-messages-schema.js';
import { parseOpenAIChatSession } from './openai-chat-schema.js';
import { ForkTaskSchema, GeminiSessionSchema, type ForkTask, type ParentSession } from './schema.js';

/**
 * Validates an already-parsed session object (from a file or from code) and returns that same
 * object. zod rebuilds the keys it knows in schema order, and a fork must send the parent's
 * objects in the parent's own key order (byte fidelity), so the parsed copy is thrown away.
 */
export function parseSession(json: unknown, source?: string): ParentSession {
  const at = source === undefined ? {} : { file: source };
  assertSafeJson(json, at);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: 'a session must be a JSON object ({ "model", "history", … })' });
  }
  const format = (json as { format?: unknown }).format;
  if (format === 'openai-chat') return parseOpenAIChatSession(json, source);
  if (format === 'anthropic-messages') return parseAnthropicMessagesSession(json, source);
  if (format !== undefined && format !== 'gemini') {
    throw new InputError({
      ...at,
      path: 'format',
      rule: `must be "gemini" (the default), "openai-chat" or "anthropic-messages", not ${JSON.stringify(format)}`,
    });
  }
  parseOrThrow(GeminiSessionSchema, json, at);
  return json as ParentSession;
}

/**
 * Reads a session file: a regular file of at most `limits.maxBytes` (default 256 MiB), strict
 * UTF-8 (a byte-order mark is allowed), one JSON object.
 */
export async function loadSession(path: string, limits?: ReadLimits): Promise<ParentSession> {
  const bytes = await readInputFile(path, limitOf(limits));
  const text = decodeUtf8(bytes, path);
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

/**
 * Loads tasks from a JSONL file, or from standard input when the path is '-'. The same limits as
 * a session file: a regular file (a pipe is read through '-'), at most `limits.maxBytes`, strict UTF-8.
 */
export async function loadTasks(
  pathOrDash: string,
  stdin: NodeJS.ReadableStream = process.stdin,
  limits?: ReadLimits,
): Promise<ForkTask[]> {
  const maxBytes = limitOf(limits);
  if (pathOrDash === '-') return parseTasks(decodeUtf8(await readInputStream(stdin, '<stdin>', maxBytes), '<stdin>'), '<stdin>');
  const bytes = await readInputFile(pathOrDash, maxBytes, '; to read tasks from a pipe, pass - and pipe them to standard input');
  return parseTasks(decodeUtf8(bytes, pathOrDash), pathOrDash);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
