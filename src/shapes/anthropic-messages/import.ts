import { InputError } from '../../input/errors.js';
import { isRecord } from '../../input/json.js';
import { eachRecord, withoutBlockExtras, withoutExtras, withoutNullFields, type BlockRules, type FieldRules } from '../api-fields.js';
import type { DroppedRecord, RequestClaim, RequestIntake, RequestRead } from '../intake.js';
import { DEFAULT_ANTHROPIC_MAX_TOKENS as DEFAULT_MAX_TOKENS } from './from-hub.js';
import { ANTHROPIC_SESSION_KEYS } from './schema.js';

/*
 * An Anthropic Messages request body (`{ model, max_tokens, system?, tools?, messages, … }`, as
 * `client.messages.create` takes it), read as a session in that API's shape ("format":
 * "anthropic-messages"). The fields a session holds are kept as they are, in their order; the
 * others are left out and listed: transport and bookkeeping (`stream`, `metadata`,
 * `service_tier`), and the sampling fields forkpool refuses for Anthropic sessions
 * (`temperature`, `top_p`, `top_k`: the API version @anthropic-ai/sdk 1.15 sends no longer takes
 * them). A body without `max_tokens` gets 8,192 and the summary says so. As the API reads it
 * (api-fields.ts): null fields are absent, and fields a client or proxy added to a message beside
 * `role` and `content` are left out and listed, and so are those inside the content blocks of
 * `system` and of each message (a tool_result's and a search_result's own blocks included). What
 * each block kind takes is what @anthropic-ai/sdk 1.x types as its *BlockParam (`cache_control`
 * and `citations` on text, `signature` on thinking, `data` on redacted_thinking, `caller` on
 * tool_use, …); a null where the SDK types `| null` is kept, as the API takes it. A `cache_control`
 * on a thinking block is kept for validation to explain (the API refuses it). Kinds not named
 * here (server tool blocks, …) are left for validation, which names them.
 * An object with "messages" looks like a Messages request; a top-level "system", "stop_sequences",
 * "thinking" or "top_k", a tool with "input_schema", or a block of a kind only Anthropic has is
 * distinctive; a role other than user and assistant is foreign.
 */

/** The max_tokens of a body that names none (forkpool's choice; the Messages API requires one). */

const MESSAGE_RULES: FieldRules = { fields: ['role', 'content'], what: 'a message' };

/** The content blocks a session may hold, as the SDK's *BlockParam types name their fields. */
const BLOCK_RULES: Record<string, BlockRules> = {
  text: { fields: ['type', 'text', 'cache_control', 'citations'], nullable: ['cache_control', 'citations'], what: 'a text block' },
  image: {
    fields: ['type', 'source', 'cache_control', 'transformations'],
    nullable: ['cache_control', 'transformations'],
    what: 'an image block',
  },
  document: {
    fields: ['type', 'source', 'cache_control', 'citations', 'context', 'title'],
    nullable: ['cache_control', 'citations', 'context', 'title'],
    what: 'a document block',
  },
  search_result: {
    fields: ['type', 'source', 'title', 'content', 'cache_control', 'citations'],
    nullable: ['cache_control'],
    blocks: ['content'],
    what: 'a search_result block',
  },
  thinking: { fields: ['type', 'thinking', 'signature'], explained: ['cache_control'], what: 'a thinking block' },
  redacted_thinking: { fields: ['type', 'data'], explained: ['cache_control'], what: 'a redacted_thinking block' },
  tool_use: {
    fields: ['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name'],
    nullable: ['cache_control', 'toolset_name'],
    what: 'a tool_use block',
  },
  tool_result: {
    fields: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control', 'toolset_name'],
    nullable: ['cache_control', 'toolset_name'],
    blocks: ['content'],
    what: 'a tool_result block',
  },
};

const SESSION_FIELDS = new Set(ANTHROPIC_SESSION_KEYS.filter((key) => key !== 'format'));

const REASONS: Record<string, string> = {
  stream: 'a transport setting: forkpool streams each fork itself',
  metadata: "the caller's tags for one request, not part of the conversation",
  service_tier: 'a routing setting of one request',
  temperature: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
  top_p: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
  top_k: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
};

export const anthropicMessagesIntake: RequestIntake = {
  claim,
  read: readAnthropicMessages,
  looks: 'a request body { "model", "max_tokens", "messages", … }',
  defaultModel: 'claude-sonnet-4-5',
};

const OWN_FIELDS = ['system', 'stop_sequences', 'thinking', 'top_k'];
const OWN_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'search_result']);

function claim(json: unknown): RequestClaim | undefined {
  if (!isRecord(json) || !Array.isArray(json.messages)) return undefined;
  let distinctive =
    OWN_FIELDS.some((key) => key in json) ||
    (Array.isArray(json.tools) && json.tools.some((tool) => isRecord(tool) && 'input_schema' in tool));
  let foreign = false;
  for (const message of json.messages) {
    if (!isRecord(message)) continue;
    if (message.role !== 'user' && message.role !== 'assistant') foreign = true;
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (OWN_BLOCKS.has(block.type as string) || (block.type === 'image' && 'source' in block)) distinctive = true;
      else if (!Object.hasOwn(BLOCK_RULES, block.type as string)) foreign = true;
    }
  }
  return { distinctive, foreign };
}

function readAnthropicMessages(json: unknown, file: string | undefined): RequestRead {
  const at = file === undefined ? {} : { file };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: 'an Anthropic Messages request body is a JSON object ({ "model", "max_tokens", "messages", … })' });
  }
  const dropped: DroppedRecord[] = [];
  const notes: string[] = [];
  const session: Record<string, unknown> = { format: 'anthropic-messages' };
  for (const [key, value] of Object.entries(withoutNullFields(json as Record<string, unknown>, dropped))) {
    if (key === 'format') continue;
    if (SESSION_FIELDS.has(key)) session[key] = value;
    else dropped.push({ path: key, what: 'a request field', reason: REASONS[key] ?? 'not a field a session holds' });
  }
  const messages = session.messages;
  if (!Array.isArray(messages)) throw new InputError({ ...at, path: 'messages', rule: 'must be an array of messages' });
  if (Array.isArray(session.system)) session.system = withoutBlockExtras(session.system, BLOCK_RULES, 'system', dropped);
  session.messages = eachRecord(messages, (message, m) => {
    const kept = withoutExtras(message, MESSAGE_RULES, `messages[${m}]`, dropped);
    const content = withoutBlockExtras(kept.content, BLOCK_RULES, `messages[${m}].content`, dropped);
    return content === kept.content ? kept : { ...kept, content };
  });
  if (session.max_tokens === undefined) {
    session.max_tokens = DEFAULT_MAX_TOKENS;
    notes.push(`max_tokens ${DEFAULT_MAX_TOKENS}: the body names none (forkpool's choice; the Messages API requires one)`);
  }
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    kind: 'an Anthropic Messages request body',
    ...(model ? { model } : {}),
    dropped,
    origins: messages.map((_, i) => ({ path: `messages[${i}]`, exact: true })),
    notes,
  };
}
