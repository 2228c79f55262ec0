import { InputError } from '../../input/errors.js';
import { isRecord } from '../../input/json.js';
import { eachRecord, withoutBlockExtras, withoutExtras, withoutNullFields, type BlockRules, type FieldRules } from '../api-fields.js';
import type { DroppedRecord, RequestClaim, RequestIntake, RequestRead } from '../intake.js';
import { openAIResponsesSessionSchema } from './schema.js';

/*
 * OpenAI's Responses API: a request body (`{ model, instructions?, input, tools?, … }`, as
 * `client.responses.create` takes it) or its `input` items alone (a JSON array), read as a session
 * in that API's shape ("format": "openai-responses") and as the API reads it (api-fields.ts): null
 * fields are absent, and fields a client added to an item (a display copy, a timestamp, the
 * SDK's `parsed_arguments`, …) or to a content part (the fields of each part type as the `openai`
 * SDK types them) are left out and listed. The body's fields a session holds are kept as they
 * are, in their order (the request's own bytes are what a fork re-sends): `include` and `store`
 * with them, as they decide what a fork's responses return (encrypted reasoning) and how its
 * reasoning items are found again. Left out and listed: transport (`stream`, `stream_options`,
 * `background`), the caller's bookkeeping of one request (`metadata`, `user`,
 * `safety_identifier`, `service_tier`), and state kept at OpenAI (`previous_response_id`,
 * `conversation`, `prompt`): the conversation before such a request is not in the log, which a
 * note then says. Kinds of item or part not named here are left for validation, which names them.
 * An object with "input" and "model" or "instructions" (and no "messages") is a Responses request,
 * and so is an array of items one of which only the Responses API has (a "type" of item, or a
 * content part of a Responses kind): both distinctive. An array of plain messages fits too.
 */

const STORED = 'state kept at OpenAI: the conversation before this request is not in the log, and a session is the whole conversation';

const REASONS: Record<string, string> = {
  stream: "a transport setting: forkpool sends each fork's calls itself (the provider's mode)",
  stream_options: 'a transport setting: forkpool sets its own',
  background: "a transport setting: forkpool reads each fork's response itself",
  metadata: "the caller's tags for one request, not part of the conversation",
  user: "the caller's end-user id, not part of the conversation",
  safety_identifier: "the caller's end-user id, not part of the conversation",
  service_tier: 'a routing setting of one request',
  previous_response_id: STORED,
  conversation: STORED,
  prompt: `a stored prompt template, ${STORED}`,
  context_management: "compaction mid-request, which would rewrite a fork's conversation",
};

/**
 * The fields a session takes and a log's are kept in (besides format): all but the caller's
 * bookkeeping of one request. Read off the session schema, so built with it, on first use.
 */
let sessionFields: ReadonlySet<string> | undefined;
const sessionFieldsOf = (): ReadonlySet<string> =>
  (sessionFields ??= new Set(
    Object.keys(openAIResponsesSessionSchema().shape).filter((key) => key !== 'format' && !Object.hasOwn(REASONS, key)),
  ));

/** Input items as the SDK's ResponseInputItem types name their fields (a message by its role). */
const MESSAGE_RULES: Record<string, FieldRules> = {
  user: { fields: ['role', 'content', 'phase', 'status', 'type'], what: 'a "user" message' },
  system: { fields: ['role', 'content', 'phase', 'status', 'type'], what: 'a "system" message' },
  developer: { fields: ['role', 'content', 'phase', 'status', 'type'], what: 'a "developer" message' },
  assistant: { fields: ['id', 'role', 'content', 'status', 'type', 'phase'], what: 'an "assistant" message' },
};

const ITEM_RULES: Record<string, FieldRules> = {
  function_call: { fields: ['type', 'call_id', 'name', 'arguments', 'id', 'status', 'caller', 'namespace'], what: 'a function_call item' },
  function_call_output: { fields: ['type', 'call_id', 'output', 'id', 'status', 'caller'], what: 'a function_call_output item' },
  reasoning: {
    fields: ['type', 'id', 'summary', 'content', 'encrypted_content', 'status'],
    nullable: ['encrypted_content'],
    what: 'a reasoning item',
  },
  item_reference: { fields: ['type', 'id'], what: 'an item_reference' },
  compaction: { fields: ['type', 'encrypted_content', 'id'], what: 'a compaction item' },
};

const BREAKPOINT = 'prompt_cache_breakpoint';

/** A message's content parts (ResponseInputText, ResponseInputImage, ResponseInputFile, ResponseOutputText, ResponseOutputRefusal). */
const PART_RULES: Record<string, BlockRules> = {
  input_text: { fields: ['type', 'text', BREAKPOINT], what: 'an input_text part' },
  input_image: {
    fields: ['type', 'detail', 'file_id', 'image_url', BREAKPOINT],
    nullable: ['file_id', 'image_url'],
    what: 'an input_image part',
  },
  input_file: {
    fields: ['type', 'detail', 'file_data', 'file_id', 'file_url', 'filename', BREAKPOINT],
    nullable: ['file_id'],
    what: 'an input_file part',
  },
  output_text: { fields: ['type', 'text', 'annotations', 'logprobs'], what: 'an output_text part' },
  refusal: { fields: ['type', 'refusal'], what: 'a refusal part' },
};

/** A function_call_output's parts (ResponseInputTextContent, …): the SDK lets more of their fields be null. */
const OUTPUT_PART_RULES: Record<string, BlockRules> = {
  input_text: { ...(PART_RULES.input_text as BlockRules), nullable: [BREAKPOINT] },
  input_image: { ...(PART_RULES.input_image as BlockRules), nullable: ['file_id', 'image_url', 'detail', BREAKPOINT] },
  input_file: { ...(PART_RULES.input_file as BlockRules), nullable: ['file_id', 'file_data', 'file_url', 'filename', BREAKPOINT] },
};

const SUMMARY_RULES: Record<string, BlockRules> = { summary_text: { fields: ['type', 'text'], what: 'a summary part' } };
const REASONING_CONTENT_RULES: Record<string, BlockRules> = {
  reasoning_text: { fields: ['type', 'text'], what: 'a reasoning content part' },
};

export const openAIResponsesIntake: RequestIntake = {
  claim,
  read: readOpenAIResponses,
  looks: 'a request body { "model", "input", … } or an array of input items',
  defaultModel: 'gpt-4.1-mini',
};

/** An input item only the Responses API has: by its type, or a message with a Responses kind of content part. */
function isOwnItem(item: unknown): boolean {
  if (!isRecord(item)) return false;
  if (item.type === 'message' || Object.hasOwn(ITEM_RULES, item.type as string)) return true;
  return (
    'role' in item &&
    Array.isArray(item.content) &&
    item.content.some((part) => isRecord(part) && Object.hasOwn(PART_RULES, part.type as string) && part.type !== 'refusal')
  );
}

function claim(json: unknown): RequestClaim | undefined {
  if (Array.isArray(json)) {
    if (json.some(isOwnItem)) return { distinctive: true, foreign: false };
    return json.every((item) => isRecord(item) && 'role' in item) ? { distinctive: false, foreign: false } : undefined;
  }
  if (isRecord(json) && 'input' in json && ('model' in json || 'instructions' in json) && !('messages' in json))
    return { distinctive: true, foreign: false };
  return undefined;
}

function readOpenAIResponses(json: unknown, file: string | undefined): RequestRead {
  const at = file === undefined ? {} : { file };
  const dropped: DroppedRecord[] = [];
  const notes: string[] = [];
  let session: Record<string, unknown>;
  if (Array.isArray(json)) session = { format: 'openai-responses', input: json };
  else if (isRecord(json)) {
    session = { format: 'openai-responses' };
    for (const [key, value] of Object.entries(withoutNullFields(json, dropped))) {
      if (key === 'format') continue;
      if (sessionFieldsOf().has(key)) session[key] = value;
      else dropped.push({ path: key, what: 'a request field', reason: REASONS[key] ?? 'not a field a session holds' });
    }
    const stored = ['previous_response_id', 'conversation', 'prompt'].filter((key) => json[key] !== undefined && json[key] !== null);
    if (stored.length > 0)
      notes.push(
        `the request continues state kept at OpenAI (${stored.join(', ')}): the session holds only the input this request sent, not the conversation before it`,
      );
  } else {
    throw new InputError({
      ...at,
      rule: 'a Responses API request body is a JSON object ({ "model", "input", … }), or its input items a JSON array',
    });
  }
  const prefix = Array.isArray(json) ? '' : 'input';
  const input = session.input;
  if (typeof input !== 'string' && !Array.isArray(input)) {
    throw new InputError({ ...at, path: 'input', rule: 'must be a string or an array of input items (the conversation)' });
  }
  if (Array.isArray(input)) session.input = eachRecord(input, (item, i) => asTheApiReadsIt(item, `${prefix}[${i}]`, dropped));
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    kind: Array.isArray(json) ? 'OpenAI Responses input items (a JSON array)' : 'an OpenAI Responses request body',
    ...(model ? { model } : {}),
    dropped,
    // Only keys were left out: a path inside an item is the same path in the source. A string input is one message.
    origins: Array.isArray(input) ? input.map((_, i) => ({ path: `${prefix}[${i}]`, exact: true })) : [{ path: 'input', exact: false }],
    notes,
  };
}

function asTheApiReadsIt(item: Record<string, unknown>, path: string, dropped: DroppedRecord[]): Record<string, unknown> {
  const type = item.type;
  const rules = type === undefined || type === null || type === 'message' ? MESSAGE_RULES[item.role as string] : ITEM_RULES[type as string];
  if (rules === undefined) return item; // an unknown kind or role: validation names it
  let kept = withoutExtras(item, rules, path, dropped);
  const inner = (key: string, kinds: Record<string, BlockRules>) => {
    const cleaned = withoutBlockExtras(kept[key], kinds, `${path}.${key}`, dropped);
    if (cleaned !== kept[key]) kept = { ...kept, [key]: cleaned };
  };
  if ('role' in item) inner('content', PART_RULES);
  else if (type === 'function_call_output') inner('output', OUTPUT_PART_RULES);
  else if (type === 'reasoning') {
    inner('summary', SUMMARY_RULES);
    inner('content', REASONING_CONTENT_RULES);
  }
  return kept;
}
