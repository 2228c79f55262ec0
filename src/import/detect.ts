import { InputError } from '../input/errors.js';
import { assertSafeJson, parseJsonText } from '../input/json.js';
import { isRecord } from '../input/json.js';
import { allShapes, findShape } from '../shapes/registry.js';
import { loadingOf } from '../shapes/loading.js';
import type { Shape } from '../shapes/shape.js';
import type { ImportFormat } from './summary.js';

/*
 * Which format a file is, by its content (or by the name the user gave). The rules, in order:
 * - JSON that is an object with "format", or with "model" and "history", is forkpool's own
 *   session and is never reinterpreted (a forkpool file without "format" stays Gemini-shaped);
 * - an object of only "history" (and "authType"), or an array of { role, parts }, is a Gemini
 *   CLI checkpoint (/chat save); an object with "sessionId", "projectHash" and "messages" is a
 *   Gemini CLI session recording;
 * - anything else is asked of every registered shape (its intake facet's claim, in each shape's
 *   import.ts): a logged request of the shape that claims it best — something only it has and
 *   nothing it has not, then nothing it has not, then something only it has — and of the shapes
 *   that claim it equally, the first registered (a messages array with nothing distinctive is
 *   Chat Completions');
 * - any other object with a field of forkpool's session (model, systemInstruction, tools, …) is
 *   taken as forkpool's (its validation then says what is wrong); an object with none is refused,
 *   naming the formats tried;
 * - text that is not one JSON document but whose first line is a JSON object is JSONL: records
 *   with "$rewindTo" / "$set", or with "projectHash" and no "uuid", or with "id" and a Gemini
 *   CLI message type, are Gemini CLI's; a record whose "message" has "parts" (a Gemini Content)
 *   is Qwen Code's; one whose "message" has "content", or with "isSidechain", or of a type only
 *   Claude Code writes, is Claude Code's, unless its "sessionId" is not a bare UUID (Claude Code
 *   names sessions by one; iFlow CLI, which writes records much like Claude Code's, by
 *   "session-<uuid>"). A file no record of which shows its writer is refused, naming the formats tried.
 */

export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

export interface JsonlRead {
  records: JsonlRecord[];
  /** The last line does not parse and the file does not end with a newline: a line still being written. */
  partialLastLine?: number;
}

export type Detected =
  | { format: 'forkpool' | 'gemini-cli'; json: unknown; jsonl?: undefined; shape?: undefined }
  /** A logged request of a shape: the format is the shape's. */
  | { format: string; shape: Shape; json: unknown; jsonl?: undefined }
  | { format: 'gemini-cli' | 'qwen-code' | 'claude-code'; jsonl: JsonlRead; json?: undefined; shape?: undefined };

const JSONL_FORMATS: readonly ImportFormat[] = ['qwen-code', 'claude-code'];

/** Reads the file's content as the named format, or recognizes it. Bad JSON is an InputError with its line. */
export function detect(text: string, file: string | undefined, forced?: ImportFormat): Detected {
  const at = file === undefined ? {} : { file };
  let parsed: { value: unknown } | undefined;
  try {
    parsed = { value: JSON.parse(text) };
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) {
    if (!firstLineIsObject(text)) parseJsonText(text, at); // throws the usual located syntax error
    const jsonl = readJsonl(text, file);
    if (forced !== undefined && forced !== 'gemini-cli' && !JSONL_FORMATS.includes(forced)) {
      throw new InputError({
        ...at,
        rule: `is JSONL (one record a line), which is not a ${forced} file; JSONL is read as gemini-cli, qwen-code or claude-code`,
      });
    }
    return { format: (forced as 'gemini-cli' | 'qwen-code' | 'claude-code' | undefined) ?? jsonlFormat(jsonl, file), jsonl };
  }
  const value = parsed.value;
  assertSafeJson(value, at);
  // A JSONL file of one record is one JSON document: read it as JSONL all the same.
  if (forced !== undefined && JSONL_FORMATS.includes(forced))
    return { format: forced as 'qwen-code' | 'claude-code', jsonl: readJsonl(text, file) };
  if (forced === undefined && isRecordLike(value)) {
    const jsonl = readJsonl(text, file);
    return { format: jsonlFormat(jsonl, file), jsonl };
  }
  if (forced === 'gemini-cli' && isRecord(value) && !('messages' in value) && !('history' in value) && 'projectHash' in value) {
    return { format: 'gemini-cli', jsonl: readJsonl(text, file) };
  }
  if (forced === 'forkpool' || forced === 'gemini-cli') return { format: forced, json: value };
  if (forced !== undefined) {
    const shape = findShape(forced) as Shape;
    // forkpool's own session of the shape named passes through, as it would unnamed.
    if (ownSession(value, shape)) return { format: 'forkpool', json: value };
    return { format: shape.format, shape, json: value };
  }
  const found = jsonFormat(value, file);
  return typeof found === 'string' ? { format: found, json: value } : { format: found.format, shape: found, json: value };
}

/** forkpool's own session in `shape`: it names that format, or (the default shape's) it is what detection takes as forkpool's. */
function ownSession(value: unknown, shape: Shape): boolean {
  if (!isRecord(value)) return false;
  if ('format' in value) return value.format === shape.format;
  try {
    return jsonFormat(value, undefined) === 'forkpool' && findShape(shape.format) === allShapes()[0];
  } catch {
    return false;
  }
}

/** One JSONL record parsed as a whole document: Qwen Code's and Claude Code's carry uuid and parentUuid. */
function isRecordLike(value: unknown): boolean {
  return isRecord(value) && typeof value.uuid === 'string' && 'parentUuid' in value && !('history' in value) && !('format' in value);
}

/** The fields of forkpool's own (Gemini-shaped) session: an object with one of them is read as forkpool's. */
const FORKPOOL_KEYS = ['format', 'model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'history'];

/** What was tried, for a file no format claims: forkpool's own, Gemini CLI's, and each shape's logged requests. */
const jsonTried = () =>
  [
    'forkpool session ({ "model", "history", … })',
    'gemini-cli (a checkpoint { "history" } or a recording { "sessionId", "projectHash", "messages" })',
    ...allShapes().map((shape) => `${shape.format} (${loadingOf(shape).intake.looks})`),
  ].join(', ');

function jsonFormat(value: unknown, file: string | undefined): 'forkpool' | 'gemini-cli' | Shape {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    if (isRecord(first) && 'parts' in first) return 'gemini-cli';
    return (
      requestShape(value) ??
      fail(
        notClaimed(
          file,
          `is a JSON array, but not of messages ({ "role", "content" } or { "role", "parts" }) or Responses input items; tried ${jsonTried()}`,
        ),
      )
    );
  }
  if (!isRecord(value)) return 'forkpool';
  if ('format' in value) return 'forkpool';
  if ('history' in value) {
    const onlyCheckpoint = Object.keys(value).every((key) => key === 'history' || key === 'authType');
    return onlyCheckpoint && !('model' in value) ? 'gemini-cli' : 'forkpool';
  }
  if (Array.isArray(value.messages) && typeof value.sessionId === 'string' && typeof value.projectHash === 'string') return 'gemini-cli';
  const shape = requestShape(value);
  if (shape !== undefined) return shape;
  if (FORKPOOL_KEYS.some((key) => key in value)) return 'forkpool';
  throw notClaimed(file, `is a JSON object of none of the formats forkpool reads: tried ${jsonTried()}`);
}

function fail(error: Error): never {
  throw error;
}

/** The shape whose logged request `json` looks most like (see the rules above), if any claims it. */
function requestShape(json: unknown): Shape | undefined {
  let best: { shape: Shape; rank: number } | undefined;
  for (const shape of allShapes()) {
    const claim = loadingOf(shape).intake.claim(json);
    if (claim === undefined) continue;
    const rank = (claim.foreign ? 0 : 2) + (claim.distinctive ? 1 : 0);
    if (best === undefined || rank > best.rank) best = { shape, rank };
  }
  return best?.shape;
}

function notClaimed(file: string | undefined, rule: string): InputError {
  return new InputError({
    ...(file === undefined ? {} : { file }),
    rule: `${rule}; name the format with --format (or --session-format) to read it as one anyway`,
  });
}

const GEMINI_CLI_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);
const BARE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CLAUDE_CODE_ONLY_TYPES = new Set(['summary', 'file-history-snapshot', 'progress', 'queue-operation', 'attachment', 'checkpoint']);

function jsonlFormat(read: JsonlRead, file: string | undefined): 'gemini-cli' | 'qwen-code' | 'claude-code' {
  for (const { value } of read.records) {
    if ('$rewindTo' in value || '$set' in value) return 'gemini-cli';
    if (typeof value.projectHash === 'string' && !('uuid' in value)) return 'gemini-cli';
    if (typeof value.id === 'string' && !('uuid' in value) && GEMINI_CLI_TYPES.has(value.type as string)) return 'gemini-cli';
    const message = value.message;
    if (isRecord(message) && 'parts' in message) return 'qwen-code';
    if (typeof value.sessionId === 'string' && !BARE_UUID.test(value.sessionId)) continue; // not Claude Code's session id
    if (isRecord(message) && 'content' in message) return 'claude-code';
    if ('isSidechain' in value || 'userType' in value || CLAUDE_CODE_ONLY_TYPES.has(value.type as string)) return 'claude-code';
  }
  throw notClaimed(
    file,
    'is JSONL of none of the formats forkpool reads: tried gemini-cli (records with "id" and a Gemini CLI message type, "$set", "$rewindTo", or { "sessionId", "projectHash" } metadata), qwen-code (a "message" with "parts") and claude-code (a "message" with "content" and a bare-UUID "sessionId"); no record shows which agent wrote it',
  );
}

function firstLineIsObject(text: string): boolean {
  const first = text.split('\n').find((line) => line.trim() !== '');
  if (first === undefined || !first.trimStart().startsWith('{')) return false;
  try {
    return isRecord(JSON.parse(first));
  } catch {
    return false;
  }
}

/**
 * One JSON object a line; blank lines are skipped but counted. A last line that does not parse,
 * in a file that does not end with a newline, is an agent still writing: it is left out and
 * reported. Any other line that does not parse is an error naming it.
 */
function readJsonl(text: string, file: string | undefined): JsonlRead {
  const at = file === undefined ? {} : { file };
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && (lines[last] as string).trim() === '') last--;
  const endsWithNewline = text.endsWith('\n');
  const records: JsonlRecord[] = [];
  let partialLastLine: number | undefined;
  lines.forEach((raw, index) => {
    const textLine = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (textLine.trim() === '') return;
    const line = index + 1;
    let value: unknown;
    try {
      value = parseJsonText(textLine, { ...at, line });
    } catch (err) {
      if (index === last && !endsWithNewline && err instanceof InputError && /^invalid JSON/.test(err.rule)) {
        partialLastLine = line;
        return;
      }
      throw err;
    }
    if (!isRecord(value)) throw new InputError({ ...at, line, rule: 'each line must be a JSON object (one record a line)' });
    records.push({ line, value });
  });
  if (records.length === 0) throw new InputError({ ...at, rule: 'holds no records (expected one JSON object a line)' });
  return partialLastLine === undefined ? { records } : { records, partialLastLine };
}
