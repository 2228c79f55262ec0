import { InputError } from '../../input/errors.js';
import { isRecord } from '../../input/json.js';
import { eachRecord, withoutBlockExtras, withoutExtras, withoutNullFields, type BlockRules, type FieldRules } from '../api-fields.js';
import type { DroppedRecord, RequestClaim, RequestIntake, RequestRead } from '../intake.js';
import { chatFields } from './schema.js';
import { OPENAI_CHAT_SESSION_KEYS } from './session-keys.js';

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
 * A messages array, or an object with one, looks like Chat Completions'; a role only it has
 * (system, developer, tool), `tool_calls` or `tool_call_id` is distinctive; a content part of a
 * type it has not is foreign.
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

/** The importer's rules, read off the session schema's fields: built with the schemas, on first use. */
function buildRules() {
  const fields = chatFields();
  const { messages: M, parts: P, partObjects: O } = fields;

  /** Each role's fields: the session schema's own (chatFields()), so what is kept is what validation takes. */
  const MESSAGE_RULES: Record<string, FieldRules> = {
    system: { fields: M.system, explained: EXPLAINED, what: 'a "system" message' },
    developer: { fields: M.developer, explained: EXPLAINED, what: 'a "developer" message' },
    user: { fields: M.user, explained: EXPLAINED, what: 'a "user" message' },
    assistant: { fields: M.assistant, nullable: ['content', 'refusal', 'audio'], explained: EXPLAINED, what: 'an "assistant" message' },
    tool: { fields: M.tool, explained: EXPLAINED, what: 'a "tool" message' },
  };

  /** Content parts (ChatCompletionContentPart* in the openai SDK), by the session schema's fields. */
  const PART_RULES: Record<string, BlockRules> = {
    text: { fields: P.text, what: 'a text part' },
    refusal: { fields: P.refusal, what: 'a refusal part' },
    image_url: {
      fields: P.image_url,
      what: 'an image part',
      objects: { image_url: { fields: O.image_url, what: 'an image part\'s "image_url"' } },
    },
    input_audio: {
      fields: P.input_audio,
      what: 'an audio part',
      objects: { input_audio: { fields: O.input_audio, what: 'an audio part\'s "input_audio"' } },
    },
    file: { fields: P.file, what: 'a file part', objects: { file: { fields: O.file, what: 'a file part\'s "file"' } } },
  };

  const TOOL_CALL_RULES: FieldRules = { fields: fields.toolCall, what: 'a tool call' };
  const CALLED_FUNCTION_RULES: FieldRules = { fields: fields.calledFunction, what: 'a tool call\'s "function"' };
  return { MESSAGE_RULES, PART_RULES, TOOL_CALL_RULES, CALLED_FUNCTION_RULES };
}

let builtRules: ReturnType<typeof buildRules> | undefined;
const rules = () => (builtRules ??= buildRules());

export const openAIChatIntake: RequestIntake = {
  claim,
  read: readOpenAIChat,
  looks: 'a request body { "messages", … } or a messages array',
  defaultModel: 'gpt-4.1-mini',
};

const OWN_ROLES = new Set(['system', 'developer', 'tool', 'function']);

function claim(json: unknown): RequestClaim | undefined {
  const messages = Array.isArray(json) ? json : isRecord(json) && Array.isArray(json.messages) ? json.messages : undefined;
  // An array is messages when its first entry is one (an empty one is an empty conversation).
  const first: unknown = messages?.[0];
  if (messages === undefined || (Array.isArray(json) && first !== undefined && !(isRecord(first) && 'role' in first))) return undefined;
  let distinctive = false;
  let foreign = false;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (OWN_ROLES.has(message.role as string) || 'tool_calls' in message || 'tool_call_id' in message) distinctive = true;
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) if (isRecord(part) && !Object.hasOwn(rules().PART_RULES, part.type as string)) foreign = true;
  }
  return { distinctive, foreign };
}

function readOpenAIChat(json: unknown, file: string | undefined): RequestRead {
  const dropped: DroppedRecord[] = [];
  let session: Record<string, unknown>;
  if (Array.isArray(json)) session = { format: 'openai-chat', messages: json };
  else {
    const body = withoutNullFields(json as Record<string, unknown>, dropped);
    session = { format: 'openai-chat' };
    for (const [key, value] of Object.entries(body)) {
      if (key === 'format') continue;
      if (SESSION_FIELDS.has(key)) session[key] = value;
      else
        dropped.push({
          path: key,
          what: 'a request field',
          reason: REASONS[key] ?? 'not a field a session holds (see forkpool convert and the Concepts section for the fields kept)',
        });
    }
  }
  const prefix = Array.isArray(json) ? '' : 'messages';
  const messages = session.messages;
  if (!Array.isArray(messages))
    throw new InputError({ ...(file === undefined ? {} : { file }), path: 'messages', rule: 'must be an array of messages' });
  session.messages = eachRecord(messages, (message, m) => asTheApiReadsIt(message, `${prefix}[${m}]`, dropped));
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    kind: Array.isArray(json) ? 'OpenAI Chat Completions messages (a JSON array)' : 'an OpenAI Chat Completions request body',
    ...(model ? { model } : {}),
    dropped,
    // Only keys were left out: a path inside a message is the same path in the source.
    origins: messages.map((_, i) => ({ path: `${prefix}[${i}]`, exact: true })),
    notes: [],
  };
}

function asTheApiReadsIt(message: Record<string, unknown>, path: string, dropped: DroppedRecord[]): Record<string, unknown> {
  const { MESSAGE_RULES, PART_RULES, TOOL_CALL_RULES, CALLED_FUNCTION_RULES } = rules();
  const roleRules = MESSAGE_RULES[message.role as string];
  if (roleRules === undefined) return message; // an unknown role: validation names it
  let kept = withoutExtras(message, roleRules, path, dropped);
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
