import { InputError } from '../input/errors.js';
import { OPENAI_CHAT_SESSION_KEYS } from '../shapes/openai-chat/schema.js';
import { eachRecord, withoutBlockExtras, withoutExtras, withoutNullFields, type BlockRules, type FieldRules } from './api-fields.js';
import type { Converted, DroppedRecord } from './summary.js';

/*
 * OpenAI Chat Completions: the `messages` of a request (a JSON array) or a whole request body
 * (`{ model, messages, tools?, … }`, as `client.chat.completions.create` takes it), read as a
 * session in that API's shape ("format": "openai-chat") and as the API reads it (api-fields.ts):
 * null fields are absent, and fields a client added to its messages (`sender`, `tool_name`,
 * `anthropicReasoning`, a stream delta's `index` in a tool call, …) and to the content parts of a
 * message (the fields of each part type, and of its `image_url`, `input_audio` or `file`, as the
 * `openai` SDK types them; `cache_control` on a text part is DashScope's and kept) are left out and
 * listed. The
 * body's fields that a session holds are kept as they are, in their order (the request's own bytes
 * are what a fork re-sends); fields that only steer one request's transport or bookkeeping
 * (`stream`, `stream_options`, `n`, `user`, `store`, `metadata`, …) are left out and listed.
 */

/** The fields a forkpool openai-chat session takes, besides format. */
const SESSION_FIELDS = new Set(OPENAI_CHAT_SESSION_KEYS.filter((key) => key !== 'format'));

const REASONS: Record<string, string> = {
  stream: 'a transport setting: forkpool streams each fork itself',
  stream_options: 'a transport setting: forkpool sets its own',
  n: 'one choice per request is what a fork reads',
  user: "the caller's end-user id, not part of the conversation",
  store: 'a storage setting of one request, not part of the conversation',
  metadata: "the caller's tags for one request, not part of the conversation",
};

/** Deprecated or misplaced fields forkpool's validation names with a hint: kept for it. */
const EXPLAINED = ['function_call', 'parts'];

const MESSAGE_RULES: Record<string, FieldRules> = {
  system: { fields: ['role', 'content', 'name'], explained: EXPLAINED, what: 'a "system" message' },
  developer: { fields: ['role', 'content', 'name'], explained: EXPLAINED, what: 'a "developer" message' },
  user: { fields: ['role', 'content', 'name'], explained: EXPLAINED, what: 'a "user" message' },
  assistant: {
    fields: ['role', 'content', 'refusal', 'name', 'audio', 'tool_calls'],
    nullable: ['content', 'refusal', 'audio'],
    explained: EXPLAINED,
    what: 'an "assistant" message',
  },
  tool: { fields: ['role', 'content', 'tool_call_id'], explained: EXPLAINED, what: 'a "tool" message' },
};

/** Content parts as ChatCompletionContentPart* types them in the openai SDK (completions.d.ts). */
const PART_RULES: Record<string, BlockRules> = {
  text: { fields: ['type', 'text', 'cache_control'], what: 'a text part' },
  refusal: { fields: ['type', 'refusal'], what: 'a refusal part' },
  image_url: {
    fields: ['type', 'image_url'],
    what: 'an image part',
    objects: { image_url: { fields: ['url', 'detail'], what: 'an image part\'s "image_url"' } },
  },
  input_audio: {
    fields: ['type', 'input_audio'],
    what: 'an audio part',
    objects: { input_audio: { fields: ['data', 'format'], what: 'an audio part\'s "input_audio"' } },
  },
  file: {
    fields: ['type', 'file'],
    what: 'a file part',
    objects: { file: { fields: ['file_data', 'file_id', 'filename'], what: 'a file part\'s "file"' } },
  },
};

const TOOL_CALL_RULES: FieldRules = { fields: ['id', 'type', 'function'], what: 'a tool call' };
const CALLED_FUNCTION_RULES: FieldRules = { fields: ['name', 'arguments'], what: 'a tool call\'s "function"' };

export function importOpenAIChat(json: unknown, file: string | undefined): Converted {
  const dropped: DroppedRecord[] = [];
  let session: Record<string, unknown>;
  if (Array.isArray(json)) session = { format: 'openai-chat', messages: json };
  else {
    const body = withoutNullFields(json as Record<string, unknown>, dropped);
    session = { format: 'openai-chat' };
    for (const [key, value] of Object.entries(body)) {
      if (key === 'format') continue;
      if (SESSION_FIELDS.has(key)) session[key] = value;
      else dropped.push({ path: key, what: 'a request field', reason: REASONS[key] ?? 'not a field a session holds (see forkpool convert and the Concepts section for the fields kept)' });
    }
  }
  const prefix = Array.isArray(json) ? '' : 'messages';
  const messages = session.messages;
  if (!Array.isArray(messages)) throw new InputError({ ...(file === undefined ? {} : { file }), path: 'messages', rule: 'must be an array of messages' });
  session.messages = eachRecord(messages, (message, m) => asTheApiReadsIt(message, `${prefix}[${m}]`, dropped));
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    shape: 'openai-chat',
    kind: Array.isArray(json) ? 'OpenAI Chat Completions messages (a JSON array)' : 'an OpenAI Chat Completions request body',
    ...(model ? { model } : {}),
    dropped,
    // Only keys were left out: a path inside a message is the same path in the source.
    origins: messages.map((_, i) => ({ path: `${prefix}[${i}]`, exact: true })),
    notes: [],
  };
}

function asTheApiReadsIt(message: Record<string, unknown>, path: string, dropped: DroppedRecord[]): Record<string, unknown> {
  const rules = MESSAGE_RULES[message.role as string];
  if (rules === undefined) return message; // an unknown role: validation names it
  let kept = withoutExtras(message, rules, path, dropped);
  const parts = withoutBlockExtras(kept.content, PART_RULES, `${path}.content`, dropped);
  if (parts !== kept.content) kept = { ...kept, content: parts };
  if (message.role !== 'assistant' || !Array.isArray(kept.tool_calls)) return kept;
  const calls = eachRecord(kept.tool_calls, (call, c) => {
    const at = `${path}.tool_calls[${c}]`;
    const cleaned = withoutExtras(call, TOOL_CALL_RULES, at, dropped);
    const fn = cleaned.function;
    if (fn === null || typeof fn !== 'object' || Array.isArray(fn)) return cleaned;
    const cleanedFn = withoutExtras(fn as Record<string, unknown>, CALLED_FUNCTION_RULES, `${at}.function`, dropped);
    return cleanedFn === fn ? cleaned : { ...cleaned, function: cleanedFn };
  });
  return calls === kept.tool_calls ? kept : { ...kept, tool_calls: calls };
}
