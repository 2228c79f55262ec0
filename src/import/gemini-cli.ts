import { InputError } from '../input/errors.js';
import type { JsonlRead } from './detect.js';
import type { Converted, DroppedRecord, MessageOrigin } from './summary.js';

/*
 * Gemini CLI (google-gemini/gemini-cli), read from its own source:
 * - `/chat save <tag>` writes a checkpoint with Logger.saveCheckpoint
 *   (packages/core/src/core/logger.ts): `{ history: Content[], authType? }`, and older versions
 *   a bare `Content[]`; loadCheckpoint reads both. `history` is the chat's API history as it was
 *   sent, startup context included, so it becomes the session's history unchanged. It names no model.
 * - Every session is recorded by ChatRecordingService (packages/core/src/services/
 *   chatRecordingService.ts, types in chatRecordingTypes.ts): a ConversationRecord `{ sessionId,
 *   projectHash, startTime, lastUpdated, messages: MessageRecord[], summary?, directories?, kind? }`,
 *   a message being `{ id, timestamp, type: user | gemini | info | error | warning, content:
 *   PartListUnion, displayContent? }` and a gemini message adding `toolCalls` (`{ id, name, args,
 *   result?, status, … }`), `thoughts`, `tokens` and `model`. Older versions write it as one JSON
 *   file (session-*.json); newer ones append JSONL: a metadata line `{ sessionId, projectHash, … }`,
 *   message records (a record with an id seen before replaces it, in place), `{ "$rewindTo": id }`
 *   (that message and every later one are gone) and `{ "$set": {…} }` (metadata; a `messages`
 *   array there replaces the list), as loadConversationRecord (chatRecordingService.ts) reads them.
 *   Every record replaced or rewound is listed.
 * - On resume Gemini CLI turns the messages into API history with convertSessionToClientHistory
 *   (packages/core/src/utils/sessionUtils.ts, as at commit 5411f113cafae26161b4969b0237b8e1e024e2c2),
 *   and so does this importer: info, error and warning messages are left out (UI only), so are
 *   user messages that are empty or start with "/", "?", "<session_context>" or "<hook_context>"
 *   (isIgnoredUserContent); a gemini message whose content holds function calls or thought parts
 *   is that content as it is; any other is rebuilt: its thought summaries as thought parts
 *   (`**subject** description`), its content, then a functionCall per tool call; then one user
 *   message of the calls' results (a string result is `{ output }`, parts are kept as they are).
 *   A gemini message with nothing in it is left out, its results too.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type Part = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Part[] };

interface Located {
  file: string | undefined;
  line?: number;
}

function fail(at: Located, path: string, rule: string): never {
  throw new InputError({
    ...(at.file === undefined ? {} : { file: at.file }),
    ...(at.line === undefined ? {} : { line: at.line }),
    path,
    rule,
  });
}

/** A `/chat save` checkpoint: `{ history, authType? }` or a bare array of Content. */
export function importGeminiCheckpoint(json: unknown, file: string | undefined): Converted {
  const dropped: DroppedRecord[] = [];
  let history: unknown;
  if (Array.isArray(json)) history = json;
  else {
    const checkpoint = json as Record<string, unknown>;
    history = checkpoint.history;
    if (!Array.isArray(history))
      fail({ file }, 'history', 'must be an array of messages ({ "role", "parts" }): a Gemini CLI checkpoint holds the chat history');
    if ('authType' in checkpoint)
      dropped.push({ path: 'authType', what: 'authType', reason: "Gemini CLI's sign-in method, not part of the conversation" });
  }
  const contents = history as unknown[];
  const prefix = Array.isArray(json) ? '' : 'history';
  return {
    session: { history: contents },
    shape: 'gemini',
    kind: 'a Gemini CLI checkpoint (/chat save)',
    dropped,
    origins: contents.map((_, i) => ({ path: `${prefix}[${i}]`, exact: true })),
    notes: [],
  };
}

/** A session recording, as one JSON ConversationRecord. */
export function importGeminiRecording(json: Record<string, unknown>, file: string | undefined): Converted {
  const messages = json.messages;
  if (!Array.isArray(messages)) fail({ file }, 'messages', 'must be an array of message records');
  const model = lastModel(messages);
  return toHistory(
    messages.map((message, i) => ({ message, path: `messages[${i}]` })),
    file,
    'a Gemini CLI session recording',
    model,
  );
}

/** A session recording in the newer JSONL form, read as loadConversationRecord reads it. */
export function importGeminiRecordingJsonl(read: JsonlRead, file: string | undefined): Converted {
  type Entry = { message: Record<string, unknown>; line: number; path: string };
  const byId = new Map<string, Entry>();
  const gone: DroppedRecord[] = [];
  // Rewound or replaced messages count toward the left-out warning; a message written again is the same message.
  const drop = (entry: Entry, reason: string, message = true) =>
    gone.push({
      line: entry.line,
      ...(entry.path ? { path: entry.path } : {}),
      what: `a "${String(entry.message.type)}" message`,
      reason,
      ...(message ? { message } : {}),
    });
  // A message written again under its id replaces the earlier one in place (a Map keeps the first position).
  const put = (entry: Entry) => {
    const earlier = byId.get(entry.message.id as string);
    if (earlier !== undefined) drop(earlier, `written again on line ${entry.line} (the same id): the later record replaces it`, false);
    byId.set(entry.message.id as string, entry);
  };
  const putAll = (messages: unknown[], line: number, field: string) =>
    messages.forEach((message, i) => {
      if (isRecord(message) && typeof message.id === 'string') put({ message, line, path: `${field}[${i}]` });
    });
  for (const { line, value } of read.records) {
    if (typeof value.$rewindTo === 'string') {
      const ids = [...byId.keys()];
      const from = ids.indexOf(value.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) {
        drop(byId.get(id) as Entry, `rewound by line ${line} ($rewindTo): a branch not on the chain`);
        byId.delete(id);
      }
    } else if ('$rewindTo' in value) fail({ file, line }, '$rewindTo', 'must be the id of a message');
    else if ('$set' in value) {
      const set = value.$set;
      if (!isRecord(set)) fail({ file, line }, '$set', 'must be a JSON object of metadata');
      if (Array.isArray(set.messages)) {
        for (const entry of byId.values()) drop(entry, `replaced by the message list that line ${line} sets`);
        byId.clear();
        putAll(set.messages, line, '$set.messages');
      }
    } else if (typeof value.id === 'string') put({ message: value, line, path: '' });
    else if (typeof value.sessionId === 'string' && typeof value.projectHash === 'string') {
      if (Array.isArray(value.messages)) putAll(value.messages, line, 'messages');
    } else
      fail(
        { file, line },
        'id',
        'is required: a Gemini CLI record is a message ({ "id", "type", "content" }), metadata, "$set" or "$rewindTo"',
      );
  }
  const entries = [...byId.values()];
  const converted = toHistory(entries, file, 'a Gemini CLI session recording (JSONL)', lastModel(entries.map((e) => e.message)));
  converted.dropped = [...gone, ...converted.dropped].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  converted.messageRecords = (converted.messageRecords ?? 0) + gone.filter((item) => item.message === true).length;
  if (read.partialLastLine !== undefined) converted.partialLastLine = read.partialLastLine;
  return converted;
}

function lastModel(messages: readonly unknown[]): { name: string; from: 'records' } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    // Gemini CLI's record type, not a format.
    if (isRecord(message) && message.type === 'gemini' && typeof message.model === 'string' && message.model !== '')
      return { name: message.model, from: 'records' };
  }
  return undefined;
}

/** PartListUnion → Part[]: a string is one text part, strings in an array are text parts, an object is one part. */
function partsOf(content: unknown, at: Located, path: string): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) {
    return content.map((part, i) => {
      if (typeof part === 'string') return { text: part };
      if (!isRecord(part)) fail(at, `${path}[${i}]`, 'must be a part (a JSON object) or a string');
      return part;
    });
  }
  if (isRecord(content)) return [content];
  return fail(at, path, 'must be a string, a part or an array of parts');
}

function toHistory(
  entries: readonly { message: unknown; path: string; line?: number }[],
  file: string | undefined,
  kind: string,
  model: { name: string; from: 'records' } | undefined,
): Converted {
  const history: Content[] = [];
  const origins: MessageOrigin[] = [];
  const dropped: DroppedRecord[] = [];
  let thoughts = 0;
  const where = (entry: { path: string; line?: number }) => ({
    ...(entry.line === undefined ? {} : { line: entry.line }),
    ...(entry.path ? { path: entry.path } : {}),
  });
  for (const entry of entries) {
    const { message } = entry;
    const at: Located = { file, ...(entry.line === undefined ? {} : { line: entry.line }) };
    const field = (name: string) => (entry.path ? `${entry.path}.${name}` : name);
    if (!isRecord(message)) fail(at, entry.path, 'must be a message record (a JSON object)');
    const type = message.type;
    if (typeof type !== 'string') fail(at, field('type'), 'is required: user, gemini, info, error or warning');
    const origin = (name: string): MessageOrigin => ({
      ...(entry.line === undefined ? {} : { line: entry.line }),
      path: field(name),
      exact: false,
    });
    if (type === 'info' || type === 'error' || type === 'warning') {
      dropped.push({ ...where(entry), what: `an ${type} message`, reason: 'UI-only: shown to the user, never sent to the model' });
      continue;
    }
    if (type === 'user') {
      const parts = partsOf(message.content, at, field('content'));
      const ignored = ignoredBecause(asString(parts).trim());
      if (ignored !== undefined) {
        dropped.push({ ...where(entry), what: 'a user message', reason: ignored });
        continue;
      }
      history.push({ role: 'user', parts });
      origins.push(origin('content'));
      continue;
    }
    // Gemini CLI's record type, not a format.
    if (type !== 'gemini') {
      dropped.push({ ...where(entry), what: `a "${type}" record`, reason: 'not a message Gemini CLI sends to the model' });
      continue;
    }
    const toolCalls = message.toolCalls ?? [];
    if (!Array.isArray(toolCalls)) fail(at, field('toolCalls'), 'must be an array of tool calls');
    const contentParts = message.content ? partsOf(message.content, at, field('content')) : [];
    // Gemini CLI's rule: content holding calls or thoughts is the whole model turn (recordings since
    // it writes them there); otherwise the turn is rebuilt: thoughts, content, then the recorded calls.
    const modern = contentParts.some((part) => part.functionCall !== undefined || part.thought === true);
    const modelParts: Part[] = modern ? contentParts : [...thoughtParts(message.thoughts), ...contentParts];
    const results: Part[] = [];
    toolCalls.forEach((call: unknown, c: number) => {
      const path = field(`toolCalls[${c}]`);
      if (!isRecord(call)) fail(at, path, 'must be a tool call ({ "id", "name", "args" })');
      if (typeof call.name !== 'string' || call.name === '') fail(at, `${path}.name`, 'is required: the name of the tool called');
      if (call.args !== undefined && !isRecord(call.args)) fail(at, `${path}.args`, 'must be a JSON object');
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
      if (!modern) modelParts.push({ functionCall: { ...(id !== undefined ? { id } : {}), name: call.name, args: call.args ?? {} } });
      const result = call.result;
      if (!result) return;
      if (typeof result === 'string')
        results.push({ functionResponse: { ...(id !== undefined ? { id } : {}), name: call.name, response: { output: result } } });
      else if (Array.isArray(result)) results.push(...partsOf(result, at, `${path}.result`));
      else if (isRecord(result)) results.push(result);
      else fail(at, `${path}.result`, 'must be a string, a part or an array of parts');
    });
    if (modelParts.length === 0) {
      dropped.push({
        ...where(entry),
        what: 'a gemini message',
        reason: 'empty: no text, thoughts or tool calls (Gemini CLI sends nothing for it, results included)',
        message: true,
      });
      continue;
    }
    thoughts += modelParts.filter((part) => part.thought === true).length;
    history.push({ role: 'model', parts: modelParts });
    origins.push(origin(modern || toolCalls.length === 0 ? 'content' : 'toolCalls'));
    if (results.length > 0) {
      history.push({ role: 'user', parts: results });
      origins.push(origin('toolCalls'));
    }
  }
  const notes =
    thoughts > 0
      ? [
          `${thoughts} thought part${thoughts === 1 ? '' : 's'} kept as Gemini CLI sends them back on resume (recorded thought summaries become { "text", "thought": true } parts)`,
        ]
      : [];
  return {
    session: { history },
    shape: 'gemini',
    kind,
    ...(model ? { model } : {}),
    dropped,
    origins,
    notes,
    messageRecords: entries.length,
  };
}

/** Why Gemini CLI leaves a user message out on resume (isIgnoredUserContent), or undefined. */
function ignoredBecause(text: string): string | undefined {
  if (text === '') return 'empty: Gemini CLI leaves empty user messages out on resume';
  if (text.startsWith('/') || text.startsWith('?'))
    return `UI-only: a command to Gemini CLI (${JSON.stringify(clip(text))}), not sent to the model`;
  if (text.startsWith('<session_context>'))
    return 'session context Gemini CLI adds again itself on resume (a <session_context> message), not sent back';
  if (text.startsWith('<hook_context>'))
    return 'hook output Gemini CLI adds again itself on resume (a <hook_context> message), not sent back';
  return undefined;
}

/** A legacy recording's thought summaries as Gemini CLI sends them back: `**subject** description`. */
function thoughtParts(thoughts: unknown): Part[] {
  if (!Array.isArray(thoughts)) return [];
  return thoughts.filter(isRecord).map((thought) => ({
    text:
      typeof thought.subject === 'string' && thought.subject !== ''
        ? `**${thought.subject}** ${String(thought.description ?? '')}`
        : String(thought.description ?? ''),
    thought: true,
  }));
}

/** The message as text, as Gemini CLI reads it for its rules: a part that is not text counts as something. */
function asString(parts: readonly Part[]): string {
  return parts.map((part) => (typeof part.text === 'string' ? part.text : '[part]')).join('');
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
