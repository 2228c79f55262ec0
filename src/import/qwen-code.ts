import { InputError } from '../input/errors.js';
import type { JsonlRead, JsonlRecord } from './detect.js';
import type { Converted, ConvertTo, DroppedRecord, MessageOrigin } from './summary.js';

/*
 * Qwen Code (QwenLM/qwen-code), read from its own source:
 * - ChatRecordingService (packages/core/src/services/chatRecordingService.ts) appends one
 *   ChatRecord a line: `{ uuid, parentUuid (null for the first), sessionId, timestamp, type: user |
 *   assistant | tool_result | system, subtype?, cwd, version, gitBranch?, message?: Content (the
 *   API Content itself: role and parts), usageMetadata?, model?, toolCallResult?, systemPayload? }`.
 *   System records are events: `chat_compression` (systemPayload `{ info, compressedHistory:
 *   Content[] }`), `ui_telemetry`, `slash_command`, `at_command`, and more in later versions.
 * - SessionService (packages/core/src/services/sessionService.ts, as at commit
 *   df40d119e2919a1454d84c76e9fb0776c0351f59) resumes a session by reconstructHistory: the chain
 *   of uuids from the last record back through each uuid's first record's parentUuid, reversed;
 *   records sharing a uuid are aggregated (their message parts concatenated, the first model kept).
 * - buildApiHistoryFromConversation (same file, later session-api-history.ts) turns it into the
 *   model's history: with a chat_compression record on the chain, the latest one's
 *   compressedHistory is the base and the messages of the non-system records after it follow;
 *   without one, every record's message in order. Thought parts (`thought: true`) are stripped,
 *   which was that function's default in the version read (a later version keeps them by
 *   default); forkpool strips them too and counts them.
 * - The provider: each API response is logged as a `ui_telemetry` record whose uiEvent carries
 *   `auth_type` (AuthType in packages/core/src/core/contentGenerator.ts: `openai` and `qwen-oauth`
 *   reach the model through an OpenAI-compatible API, `gemini` / `gemini-api-key` / `vertex-ai`
 *   through Gemini's, `anthropic` through Anthropic's). A session recorded through an
 *   OpenAI-compatible API (or, with no auth_type recorded, on a model that is not a Gemini model:
 *   Qwen Code reaches those through one) becomes an openai-chat session, so the model name goes
 *   in the request body as the server named it (`cleanunicorn/qwen3-coder-30b-a3b-instruct` is
 *   no Gemini model path); one recorded through Anthropic (AuthType.USE_ANTHROPIC, `anthropic`,
 *   whose AnthropicContentGenerator sends the history through
 *   anthropicContentGenerator/converter.ts) becomes an anthropic-messages session, converted by
 *   src/convert/to-anthropic-messages.ts after that converter.
 * Not confirmed from the source: the subtypes that newer versions add (notifications,
 * mid-turn user messages merged into the previous user message, realtime messages, …) are read
 * by the older rules above: a record with a message is kept, a system record is not.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type Part = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Part[] };

interface Aggregated {
  uuid: string;
  type: string;
  subtype?: string;
  lines: number[];
  message?: Content;
  model?: string;
  systemPayload?: unknown;
}

export function importQwenCode(read: JsonlRead, file: string | undefined): Converted {
  const at: (line: number, path: string, rule: string) => never = (line, path, rule) => {
    throw new InputError({ ...(file === undefined ? {} : { file }), line, path, rule });
  };
  const byUuid = new Map<string, JsonlRecord[]>();
  for (const record of read.records) {
    const { line, value } = record;
    if (typeof value.uuid !== 'string' || value.uuid === '') at(line, 'uuid', 'is required: every Qwen Code record has a uuid');
    if (value.parentUuid !== null && typeof value.parentUuid !== 'string')
      at(line, 'parentUuid', 'must be the uuid of the record before it, or null');
    if (typeof value.type !== 'string') at(line, 'type', 'is required: user, assistant, tool_result or system');
    if (value.message !== undefined) checkContent(value.message, (path, rule) => at(line, path, rule));
    const uuid = value.uuid as string;
    byUuid.set(uuid, [...(byUuid.get(uuid) ?? []), record]);
  }

  // The chain that ends at the last record.
  const chain: string[] = [];
  const seen = new Set<string>();
  let current: string | null = (read.records.at(-1) as JsonlRecord).value.uuid as string;
  while (current !== null && !seen.has(current)) {
    const records = byUuid.get(current);
    if (!records) break;
    seen.add(current);
    chain.push(current);
    current = (records[0] as JsonlRecord).value.parentUuid as string | null;
  }
  chain.reverse();

  const dropped: DroppedRecord[] = [];
  for (const { line, value } of read.records) {
    if (!seen.has(value.uuid as string)) {
      dropped.push({
        line,
        what: describe(value),
        reason: 'a branch not on the chain (the parentUuid chain that ends at the last record)',
        ...(value.message === undefined ? {} : { message: true }),
      });
    }
  }

  const messages = chain.map((uuid) => aggregate(uuid, byUuid.get(uuid) as JsonlRecord[]));
  let compressionIndex = -1;
  messages.forEach((record, index) => {
    if (
      record.type === 'system' &&
      record.subtype === 'chat_compression' &&
      isRecord(record.systemPayload) &&
      record.systemPayload.compressedHistory
    ) {
      compressionIndex = index;
    }
  });

  const history: Content[] = [];
  const origins: MessageOrigin[] = [];
  const notes: string[] = [];
  let start = 0;
  if (compressionIndex >= 0) {
    const checkpoint = messages[compressionIndex] as Aggregated;
    const line = checkpoint.lines[0] as number;
    const compressed = (checkpoint.systemPayload as Record<string, unknown>).compressedHistory;
    if (!Array.isArray(compressed)) at(line, 'systemPayload.compressedHistory', 'must be an array of Content ({ "role", "parts" })');
    compressed.forEach((content: unknown, i: number) => {
      const path = `systemPayload.compressedHistory[${i}]`;
      checkContent(content, (sub, rule) => at(line, `${path}${sub.slice('message'.length)}`, rule));
      history.push(content as Content);
      origins.push({ line, path, exact: true });
    });
    for (const record of messages.slice(0, compressionIndex)) {
      if (record.message) {
        dropped.push({
          line: record.lines[0] as number,
          what: describe(record),
          reason: `replaced by the compression checkpoint on line ${line} (Qwen Code resumes from its compressedHistory)`,
          message: true,
        });
      } else dropNonMessage(record, dropped);
    }
    notes.push(
      `the compression checkpoint on line ${line} was applied: its ${compressed.length} messages, then the ${messages.length - compressionIndex - 1} records after it`,
    );
    start = compressionIndex + 1;
  }
  for (const record of messages.slice(start)) {
    if (record.type === 'system' && record.subtype === 'chat_compression') continue;
    const keep = compressionIndex >= 0 ? record.type !== 'system' && record.message !== undefined : record.message !== undefined;
    if (!keep || !record.message) {
      dropNonMessage(record, dropped);
      continue;
    }
    history.push(record.message);
    origins.push({ line: record.lines[0] as number, path: 'message', exact: record.lines.length === 1 });
  }

  // Thought parts out, as buildApiHistoryFromConversation strips them.
  let thoughts = 0;
  const kept: Content[] = [];
  const keptOrigins: MessageOrigin[] = [];
  history.forEach((content, i) => {
    const parts = content.parts.filter((part) => part.thought !== true);
    thoughts += content.parts.length - parts.length;
    if (parts.length === 0) return;
    kept.push(parts.length === content.parts.length ? content : { ...content, parts });
    const origin = origins[i] as MessageOrigin;
    keptOrigins.push(parts.length === content.parts.length ? origin : { ...origin, exact: false });
  });
  if (thoughts > 0) notes.push(`${thoughts} thought part${thoughts === 1 ? '' : 's'} left out (as Qwen Code's resume strips them)`);

  let model: string | undefined;
  for (const record of messages) if (record.type === 'assistant' && record.model) model = record.model;
  const route = routeOf(authTypeOf(read.records), model);
  notes.push(route.note);
  return {
    session: { history: kept },
    shape: 'gemini',
    kind: 'a Qwen Code session (JSONL)',
    ...(route.convertTo ? { convertTo: route.convertTo } : {}),
    ...(model ? { model: { name: model, from: 'records' as const } } : {}),
    dropped: dropped.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    origins: keptOrigins,
    ...(read.partialLastLine !== undefined ? { partialLastLine: read.partialLastLine } : {}),
    notes,
    messageRecords: read.records.filter(({ value }) => value.message !== undefined).length,
  };
}

const OPENAI_COMPATIBLE = new Set(['openai', 'qwen-oauth']);
const GEMINI = new Set(['gemini', 'gemini-api-key', 'vertex-ai', 'oauth-personal', 'cloud-shell', 'compute-default-credentials']);

/** The last auth_type the session's API responses were logged with. */
function authTypeOf(records: readonly JsonlRecord[]): string | undefined {
  let authType: string | undefined;
  for (const { value } of records) {
    const payload = value.systemPayload;
    const event = isRecord(payload) ? payload.uiEvent : undefined;
    if (isRecord(event) && typeof event.auth_type === 'string' && event.auth_type !== '') authType = event.auth_type;
  }
  return authType;
}

const TO_CHAT: ConvertTo = { to: 'openai-chat', api: 'Chat Completions' };

function routeOf(authType: string | undefined, model: string | undefined): { convertTo?: ConvertTo; note: string } {
  const recorded = authType === undefined ? 'no auth_type recorded' : `recorded with auth_type "${authType}"`;
  if (authType !== undefined && OPENAI_COMPATIBLE.has(authType)) {
    return {
      convertTo: TO_CHAT,
      note: `${recorded} (an OpenAI-compatible API): converted to an openai-chat session; run it with --provider ${authType === 'qwen-oauth' ? 'dashscope' : 'openai-compatible --base-url URL'} (or the local server)`,
    };
  }
  if (authType === 'anthropic') {
    return {
      convertTo: { to: 'anthropic-messages', api: 'Anthropic Messages' },
      note: `${recorded} (Anthropic's API): converted to an anthropic-messages session; run it with --provider anthropic (or the local server)`,
    };
  }
  if (authType !== undefined && GEMINI.has(authType)) return { note: `${recorded} (Gemini's API): the session keeps Gemini's shape` };
  if (model !== undefined && !model.startsWith('gemini-')) {
    return {
      convertTo: TO_CHAT,
      note: `${recorded}, and ${model} is not a Gemini model: Qwen Code reached it through an OpenAI-compatible API, so the session is converted to openai-chat; run it with --provider dashscope or openai-compatible --base-url URL (or the local server)`,
    };
  }
  return { note: `${recorded}: the session keeps Gemini's shape` };
}

/** `message` must be a Content: `{ role: "user" | "model", parts: [ {…}, … ] }`. Paths start at "message". */
function checkContent(message: unknown, fail: (path: string, rule: string) => never): void {
  if (!isRecord(message)) fail('message', 'must be a Content ({ "role", "parts" })');
  if (message.role !== 'user' && message.role !== 'model') fail('message.role', 'must be "user" or "model"');
  if (!Array.isArray(message.parts)) fail('message.parts', 'must be an array of parts');
  message.parts.forEach((part: unknown, i: number) => {
    if (!isRecord(part)) fail(`message.parts[${i}]`, 'must be a part (a JSON object)');
  });
}

/** SessionService.aggregateRecords: one logical message from the records that share its uuid. */
function aggregate(uuid: string, records: readonly JsonlRecord[]): Aggregated {
  const first = (records[0] as JsonlRecord).value;
  const out: Aggregated = { uuid, type: first.type as string, lines: records.map((r) => r.line) };
  if (typeof first.subtype === 'string') out.subtype = first.subtype;
  if (first.systemPayload !== undefined) out.systemPayload = first.systemPayload;
  for (const { value } of records) {
    const message = value.message as Content | undefined;
    if (message !== undefined)
      out.message = out.message === undefined ? message : { role: out.message.role, parts: [...out.message.parts, ...message.parts] };
    if (typeof value.model === 'string' && value.model !== '' && out.model === undefined) out.model = value.model;
  }
  return out;
}

const TELEMETRY = new Set(['ui_telemetry']);
const UI_ONLY = new Set([
  'slash_command',
  'at_command',
  'custom_title',
  'attribution_snapshot',
  'file_history_snapshot',
  'rewind',
  'session_notes',
]);

function dropNonMessage(record: Aggregated, dropped: DroppedRecord[]): void {
  const line = record.lines[0] as number;
  const what = describe(record);
  if (record.type === 'system') {
    const subtype = record.subtype ?? '';
    const reason = TELEMETRY.has(subtype)
      ? 'telemetry, not part of the conversation'
      : UI_ONLY.has(subtype)
        ? 'UI-only: Qwen Code replays it on screen, the model never sees it'
        : 'a system event, not a message the model sees';
    dropped.push({ line, what, reason });
  } else if (record.message)
    dropped.push({ line, what, reason: 'a message after the compression checkpoint that Qwen Code does not resend', message: true });
  else dropped.push({ line, what, reason: 'no message: UI-only' });
}

function describe(record: { type?: unknown; subtype?: unknown }): string {
  const type = typeof record.type === 'string' ? record.type : '?';
  const name = `${/^[aeio]/.test(type) ? 'an' : 'a'} "${type}" record`;
  return typeof record.subtype === 'string' ? `${name} (${record.subtype})` : name;
}
