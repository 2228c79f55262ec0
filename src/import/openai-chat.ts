import { InputError } from '../session/errors.js';
import type { Converted, DroppedRecord } from './summary.js';
import { OPENAI_CHAT_SESSION_KEYS } from '../session/openai-chat-schema.js';

/*
 * OpenAI Chat Completions: the `messages` of a request (a JSON array) or a whole request body
 * (`{ model, messages, tools?, … }`, as `client.chat.completions.create` takes it), read as a
 * session in that API's shape ("format": "openai-chat"). The body's fields that a session holds
 * are kept as they are, in their order (the request's own bytes are what a fork re-sends); fields
 * that only steer one request's transport or bookkeeping (`stream`, `stream_options`, `n`,
 * `user`, `store`, `metadata`, …) are left out and listed.
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

export function importOpenAIChat(json: unknown, file: string | undefined): Converted {
  const dropped: DroppedRecord[] = [];
  let session: Record<string, unknown>;
  if (Array.isArray(json)) session = { format: 'openai-chat', messages: json };
  else {
    const body = json as Record<string, unknown>;
    session = { format: 'openai-chat' };
    for (const [key, value] of Object.entries(body)) {
      if (key === 'format') continue;
      if (SESSION_FIELDS.has(key)) session[key] = value;
      else dropped.push({ path: key, what: 'a request field', reason: REASONS[key] ?? 'not a field a session holds (see forkpool convert and the Concepts section for the fields kept)' });
    }
  }
  const messages = session.messages;
  if (!Array.isArray(messages)) throw new InputError({ ...(file === undefined ? {} : { file }), path: 'messages', rule: 'must be an array of messages' });
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  const prefix = Array.isArray(json) ? '' : 'messages';
  return {
    session,
    shape: 'openai-chat',
    kind: Array.isArray(json) ? "OpenAI Chat Completions messages (a JSON array)" : 'an OpenAI Chat Completions request body',
    ...(model ? { model } : {}),
    dropped,
    origins: messages.map((_, i) => ({ path: `${prefix}[${i}]`, exact: true })),
    notes: [],
  };
}
