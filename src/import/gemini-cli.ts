import { InputError } from '../session/errors.js';
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
 *   (that message and every later one are gone) and `{ "$set": {…} }` (metadata; a non-empty
 *   `messages` there replaces the list), as loadConversationRecord reads them.
 * - On resume Gemini CLI turns the messages into API history with convertSessionToClientHistory
 *   (packages/core/src/utils/sessionUtils.ts), and so does this importer: info, error and warning
 *   messages are left out (UI only), so are user messages whose text starts with "/" or "?"
 *   (slash commands and help); a gemini message is its content parts, then a functionCall for each
 *   tool call not already among them (by id, else by name and arguments), then one user message of
 *   the calls' results (a string result is `{ output }`, parts are kept as they are). Thought
 *   summaries are not sent back (the current version adds none; an older one added them as
 *   thought parts): they are left out and counted.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type Part = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Part[] };

interface Located {
  file: string | undefined;
  line?: number;
}

function fail(at: Located, path: string, rule: string): never {
  throw new InputError({ ...(at.file === undefined ? {} : { file: at.file }), ...(at.line === undefined ? {} : { line: at.line }), path, rule });
}

/** A `/chat save` checkpoint: `{ history, authType? }` or a bare array of Content. */
export function importGeminiCheckpoint(json: unknown, file: string | undefined): Converted {
  const dropped: DroppedRecord[] = [];
  let history: unknown;
  if (Array.isArray(json)) history = json;
  else {
    const checkpoint = json as Record<string, unknown>;
    history = checkpoint.history;
    if (!Array.isArray(history)) fail({ file }, 'history', 'must be an array of messages ({ "role", "parts" }): a Gemini CLI checkpoint holds the chat history');
    if ('authType' in checkpoint) dropped.push({ path: 'authType', what: 'authType', reason: "Gemini CLI's sign-in method, not part of the conversation" });
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

/** A session recording in the newer JSONL form. */
export function importGeminiRecordingJsonl(read: JsonlRead, file: string | undefined): Converted {
  const byId = new Map<string, { message: Record<string, unknown>; line: number }>();
  const rewound: DroppedRecord[] = [];
  let replaced: unknown[] | undefined;
  let replacedAt: number | undefined;
  for (const { line, value } of read.records) {
    if ('$rewindTo' in value) {
      const target = value.$rewindTo;
      if (typeof target !== 'string') fail({ file, line }, '$rewindTo', 'must be the id of a message');
      const ids = [...byId.keys()];
      const from = ids.indexOf(target);
      for (const id of from === -1 ? ids : ids.slice(from)) {
        const gone = byId.get(id);
        byId.delete(id);
        if (gone) rewound.push({ line: gone.line, what: `a "${String(gone.message.type)}" message`, reason: `rewound by line ${line} ($rewindTo): a branch not on the chain` });
      }
    } else if ('$set' in value) {
      const set = value.$set;
      if (!isRecord(set)) fail({ file, line }, '$set', 'must be a JSON object of metadata');
      if (Array.isArray(set.messages) && set.messages.length > 0) {
        replaced = set.messages;
        replacedAt = line;
      }
    } else if (typeof value.id === 'string') {
      byId.set(value.id, { message: value, line });
    } else if (typeof value.sessionId !== 'string' || typeof value.projectHash !== 'string') {
      fail({ file, line }, 'id', 'is required: a Gemini CLI record is a message ({ "id", "type", "content" }), metadata, "$set" or "$rewindTo"');
    }
  }
  let entries: { message: unknown; path: string; line?: number }[];
  if (replaced !== undefined) {
    // loadConversationRecord: metadata messages, when there are any, are the conversation.
    entries = replaced.map((message, i) => ({ message, path: `$set.messages[${i}]`, line: replacedAt as number }));
    for (const { message, line } of byId.values()) {
      rewound.push({ line, what: `a "${String(message.type)}" message`, reason: `replaced by the message list that line ${replacedAt} sets` });
    }
  } else entries = [...byId.values()].map(({ message, line }) => ({ message, path: '', line }));
  const converted = toHistory(entries, file, 'a Gemini CLI session recording (JSONL)', lastModel(entries.map((e) => e.message)));
  converted.dropped.unshift(...rewound);
  if (read.partialLastLine !== undefined) converted.partialLastLine = read.partialLastLine;
  return converted;
}

function lastModel(messages: readonly unknown[]): { name: string; from: 'records' } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isRecord(message) && message.type === 'gemini' && typeof message.model === 'string' && message.model !== '') return { name: message.model, from: 'records' };
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

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** JSON with keys sorted, to compare call arguments (Gemini CLI's stableStringify does the same). */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stable(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
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
  const where = (entry: { path: string; line?: number }) => ({ ...(entry.line === undefined ? {} : { line: entry.line }), ...(entry.path ? { path: entry.path } : {}) });
  for (const entry of entries) {
    const { message } = entry;
    const at: Located = { file, ...(entry.line === undefined ? {} : { line: entry.line }) };
    const field = (name: string) => (entry.path ? `${entry.path}.${name}` : name);
    if (!isRecord(message)) fail(at, entry.path, 'must be a message record (a JSON object)');
    const type = message.type;
    if (typeof type !== 'string') fail(at, field('type'), 'is required: user, gemini, info, error or warning');
    const origin = (name: string): MessageOrigin => ({ ...(entry.line === undefined ? {} : { line: entry.line }), path: field(name), exact: false });
    if (type === 'info' || type === 'error' || type === 'warning') {
      dropped.push({ ...where(entry), what: `an ${type} message`, reason: 'UI-only: shown to the user, never sent to the model' });
      continue;
    }
    if (type === 'user') {
      const parts = partsOf(message.content, at, field('content'));
      const text = textOf(parts).trim();
      if (text.startsWith('/') || text.startsWith('?')) {
        dropped.push({ ...where(entry), what: 'a user message', reason: `UI-only: a command to Gemini CLI (${JSON.stringify(clip(text))}), not sent to the model` });
        continue;
      }
      history.push({ role: 'user', parts });
      origins.push(origin('content'));
      continue;
    }
    if (type !== 'gemini') {
      dropped.push({ ...where(entry), what: `a "${type}" record`, reason: 'not a message Gemini CLI sends to the model' });
      continue;
    }
    if (Array.isArray(message.thoughts)) thoughts += message.thoughts.length;
    const toolCalls = message.toolCalls ?? [];
    if (!Array.isArray(toolCalls)) fail(at, field('toolCalls'), 'must be an array of tool calls');
    const content = message.content;
    const contentParts = content ? partsOf(content, at, field('content')) : [];
    if (toolCalls.length === 0) {
      if (contentParts.length > 0) {
        history.push({ role: 'model', parts: contentParts });
        origins.push(origin('content'));
      } else dropped.push({ ...where(entry), what: 'a gemini message', reason: 'empty: no text and no tool calls' });
      continue;
    }
    const modelParts: Part[] = [...contentParts];
    const ids = new Map<string, number>();
    const prints = new Map<string, number>();
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const take = (map: Map<string, number>, key: string) => {
      const n = map.get(key) ?? 0;
      if (n === 0) return false;
      map.set(key, n - 1);
      return true;
    };
    for (const part of contentParts) {
      const call = part.functionCall;
      if (!isRecord(call)) continue;
      if (typeof call.id === 'string' && call.id !== '') bump(ids, call.id);
      else bump(prints, `${String(call.name)}:${stable(call.args ?? {})}`);
    }
    const results: Part[] = [];
    toolCalls.forEach((call: unknown, c: number) => {
      const path = field(`toolCalls[${c}]`);
      if (!isRecord(call)) fail(at, path, 'must be a tool call ({ "id", "name", "args" })');
      if (typeof call.name !== 'string' || call.name === '') fail(at, `${path}.name`, 'is required: the name of the tool called');
      if (call.args !== undefined && !isRecord(call.args)) fail(at, `${path}.args`, 'must be a JSON object');
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
      const already = (id !== undefined && take(ids, id)) || (prints.size > 0 && take(prints, `${call.name}:${stable(call.args ?? {})}`));
      if (!already) modelParts.push({ functionCall: { name: call.name, args: call.args ?? {}, ...(id !== undefined ? { id } : {}) } });
      const result = call.result;
      if (!result) return;
      if (typeof result === 'string') results.push({ functionResponse: { ...(id !== undefined ? { id } : {}), name: call.name, response: { output: result } } });
      else if (Array.isArray(result)) results.push(...partsOf(result, at, `${path}.result`));
      else if (isRecord(result)) results.push(result);
      else fail(at, `${path}.result`, 'must be a string, a part or an array of parts');
    });
    history.push({ role: 'model', parts: modelParts });
    origins.push(origin('toolCalls'));
    if (results.length > 0) {
      history.push({ role: 'user', parts: results });
      origins.push(origin('toolCalls'));
    }
  }
  const notes = thoughts > 0 ? [`${thoughts} thought summar${thoughts === 1 ? 'y' : 'ies'} left out (Gemini CLI does not send them back on resume)`] : [];
  return { session: { history }, shape: 'gemini', kind, ...(model ? { model } : {}), dropped, origins, notes };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
