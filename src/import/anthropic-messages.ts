import { InputError } from '../session/errors.js';
import type { Converted, DroppedRecord } from './summary.js';
import { ANTHROPIC_SESSION_KEYS } from '../session/anthropic-messages-schema.js';
import { eachRecord, withoutExtras, withoutNullFields, type FieldRules } from './api-fields.js';

/*
 * An Anthropic Messages request body (`{ model, max_tokens, system?, tools?, messages, … }`, as
 * `client.messages.create` takes it), read as a session in that API's shape ("format":
 * "anthropic-messages"). The fields a session holds are kept as they are, in their order; the
 * others are left out and listed: transport and bookkeeping (`stream`, `metadata`,
 * `service_tier`), and the sampling fields forkpool refuses for Anthropic sessions
 * (`temperature`, `top_p`, `top_k`: the API version @anthropic-ai/sdk 1.15 sends no longer takes
 * them). A body without `max_tokens` gets 8,192 and the summary says so. As the API reads it
 * (api-fields.ts): null fields are absent, and fields a client or proxy added to a message beside
 * `role` and `content` are left out and listed.
 */

const MESSAGE_RULES: FieldRules = { fields: ['role', 'content'], what: 'a message' };

const SESSION_FIELDS = new Set(ANTHROPIC_SESSION_KEYS.filter((key) => key !== 'format'));

const REASONS: Record<string, string> = {
  stream: 'a transport setting: forkpool streams each fork itself',
  metadata: "the caller's tags for one request, not part of the conversation",
  service_tier: 'a routing setting of one request',
  temperature: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
  top_p: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
  top_k: 'refused for Anthropic sessions: the API version forkpool sends no longer takes sampling fields',
};

const DEFAULT_MAX_TOKENS = 8192;

export function importAnthropicMessages(json: unknown, file: string | undefined): Converted {
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
  session.messages = eachRecord(messages, (message, m) => withoutExtras(message, MESSAGE_RULES, `messages[${m}]`, dropped));
  if (session.max_tokens === undefined) {
    session.max_tokens = DEFAULT_MAX_TOKENS;
    notes.push(`max_tokens ${DEFAULT_MAX_TOKENS}: the body names none (forkpool's choice; the Messages API requires one)`);
  }
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    shape: 'anthropic-messages',
    kind: 'an Anthropic Messages request body',
    ...(model ? { model } : {}),
    dropped,
    origins: messages.map((_, i) => ({ path: `messages[${i}]`, exact: true })),
    notes,
  };
}
