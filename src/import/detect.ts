import { InputError } from '../input/errors.js';
import { assertSafeJson, parseJsonText } from '../input/json.js';
import type { ImportFormat } from './summary.js';
import { isRecord } from '../input/json.js';

/*
 * Which format a file is, by its content (or by the name the user gave). The rules, in order:
 * - JSON that is an object with "format", or with "model" and "history", is forkpool's own
 *   session and is never reinterpreted (a forkpool file without "format" stays Gemini-shaped);
 * - an object of only "history" (and "authType"), or an array of { role, parts }, is a Gemini
 *   CLI checkpoint (/chat save); an object with "sessionId", "projectHash" and "messages" is a
 *   Gemini CLI session recording;
 * - an object with "input" and "model" (or "instructions"), or an array of items only the
 *   Responses API has (a "type" of message, function_call, function_call_output, reasoning,
 *   item_reference or compaction, or content parts of a Responses kind: input_text, output_text,
 *   input_image, input_file), is a Responses API request body (or its input items);
 * - an array of { role, content }, or an object with "messages", is a Chat Completions request
 *   (or its messages), unless something only Anthropic's Messages API has shows (a top-level
 *   "system", "stop_sequences" or "thinking", a tool with "input_schema", a content block of a
 *   kind only Anthropic has): then it is an Anthropic Messages request body;
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
  | { format: ImportFormat; json: unknown; jsonl?: undefined }
  | { format: 'gemini-cli' | 'qwen-code' | 'claude-code'; jsonl: JsonlRead; json?: undefined };

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
      throw new InputError({ ...at, rule: `is JSONL (one record a line), which is not a ${forced} file; JSONL is read as gemini-cli, qwen-code or claude-code` });
    }
    return { format: (forced as 'gemini-cli' | 'qwen-code' | 'claude-code' | undefined) ?? jsonlFormat(jsonl, file), jsonl };
  }
  const value = parsed.value;
  assertSafeJson(value, at);
  // A JSONL file of one record is one JSON document: read it as JSONL all the same.
  if (forced !== undefined && JSONL_FORMATS.includes(forced)) return { format: forced as 'qwen-code' | 'claude-code', jsonl: readJsonl(text, file) };
  if (forced === undefined && isRecordLike(value)) {
    const jsonl = readJsonl(text, file);
    return { format: jsonlFormat(jsonl, file), jsonl };
  }
  if (forced === 'gemini-cli' && isRecord(value) && !('messages' in value) && !('history' in value) && 'projectHash' in value) {
    return { format: 'gemini-cli', jsonl: readJsonl(text, file) };
  }
  return { format: forced ?? jsonFormat(value, file), json: value };
}


/** One JSONL record parsed as a whole document: Qwen Code's and Claude Code's carry uuid and parentUuid. */
function isRecordLike(value: unknown): boolean {
  return isRecord(value) && typeof value.uuid === 'string' && 'parentUuid' in value && !('history' in value) && !('format' in value);
}

/** The fields of forkpool's own (Gemini-shaped) session: an object with one of them is read as forkpool's. */
const FORKPOOL_KEYS = ['format', 'model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'history'];

const JSON_TRIED =
  'forkpool session ({ "model", "history", … }), gemini-cli (a checkpoint { "history" } or a recording { "sessionId", "projectHash", "messages" }), openai-chat and anthropic-messages (a request body { "messages", … } or a messages array), openai-responses (a request body { "model", "input", … } or an array of input items)';

function jsonFormat(value: unknown, file: string | undefined): ImportFormat {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    if (isRecord(first) && 'parts' in first) return 'gemini-cli';
    if (value.some(isResponsesItem)) return 'openai-responses';
    if (first === undefined || (isRecord(first) && 'role' in first)) return 'openai-chat';
    throw notClaimed(file, `is a JSON array, but not of messages ({ "role", "content" } or { "role", "parts" }) or Responses input items; tried ${JSON_TRIED}`);
  }
  if (!isRecord(value)) return 'forkpool';
  if ('format' in value) return 'forkpool';
  if ('history' in value) {
    const onlyCheckpoint = Object.keys(value).every((key) => key === 'history' || key === 'authType');
    return onlyCheckpoint && !('model' in value) ? 'gemini-cli' : 'forkpool';
  }
  if (Array.isArray(value.messages)) {
    if (typeof value.sessionId === 'string' && typeof value.projectHash === 'string') return 'gemini-cli';
    return looksAnthropic(value) ? 'anthropic-messages' : 'openai-chat';
  }
  if ('input' in value && ('model' in value || 'instructions' in value) && !('messages' in value)) return 'openai-responses';
  if (FORKPOOL_KEYS.some((key) => key in value)) return 'forkpool';
  throw notClaimed(file, `is a JSON object of none of the formats forkpool reads: tried ${JSON_TRIED}`);
}

function notClaimed(file: string | undefined, rule: string): InputError {
  return new InputError({ ...(file === undefined ? {} : { file }), rule: `${rule}; name the format with --format (or --session-format) to read it as one anyway` });
}

const RESPONSES_ITEM_TYPES = new Set(['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference', 'compaction']);
const RESPONSES_PART_TYPES = new Set(['input_text', 'output_text', 'input_image', 'input_file']);

/** An input item only the Responses API has: by its type, or a message with a Responses kind of content part. */
function isResponsesItem(item: unknown): boolean {
  if (!isRecord(item)) return false;
  if (RESPONSES_ITEM_TYPES.has(item.type as string)) return true;
  return 'role' in item && Array.isArray(item.content) && item.content.some((part) => isRecord(part) && RESPONSES_PART_TYPES.has(part.type as string));
}

const ANTHROPIC_ONLY_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'search_result']);
const OPENAI_ONLY_ROLES = new Set(['system', 'developer', 'tool', 'function']);

/** Something only Anthropic's Messages API has, and nothing only Chat Completions has. */
function looksAnthropic(body: Record<string, unknown>): boolean {
  const messages = body.messages as unknown[];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (OPENAI_ONLY_ROLES.has(message.role as string) || 'tool_calls' in message || 'tool_call_id' in message) return false;
  }
  if ('system' in body || 'stop_sequences' in body || 'thinking' in body || 'top_k' in body) return true;
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && 'input_schema' in tool)) return true;
  return messages.some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && (ANTHROPIC_ONLY_BLOCKS.has(block.type as string) || (block.type === 'image' && 'source' in block))),
  );
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
