import { createHash } from 'node:crypto';
import type { AnthropicRendering } from './render.js';
import type { AnthropicRequest, CacheMissReason, Diagnostics } from './wire.js';
import { countTokens } from '../core/chain.js';
import type { JsonObject } from '../core/types.js';

/*
 * Cache diagnostics, as platform.claude.com/docs/en/build-with-claude/cache-diagnostics (GA)
 * describes them:
 * - "For each request that includes the `diagnostics` object, the API stores a lightweight
 *   fingerprint keyed by the response `id`. It stores nothing for requests that omit the object."
 *   "Fingerprints contain only hashes and token-count estimates".
 * - The response's `diagnostics` is `null` when "previous_message_id was null (first turn, nothing
 *   to compare), or a comparison ran and found no divergence"; else a `cache_miss_reason` naming
 *   "the first point of divergence". "The comparison is about request structure, independent of
 *   whether the cache actually hit": breakpoints play no part.
 * - `model_changed`: "The `model` differs" (the SDK's type: "`model` or `speed`"); `tools_changed`:
 *   "tools were added, removed, or reordered … or tool `input_schema` JSON was serialized
 *   non-deterministically"; `system_changed`: "The `system` parameter differs"; `messages_changed`:
 *   "The model, system, and tools all match, but an earlier entry in `messages` was altered,
 *   reordered, or removed rather than appended to"; `unavailable` "includes the case where `model`,
 *   `system`, and `tools` match but another prompt-affecting request parameter (`tool_choice`,
 *   `thinking`, `context_management`, `output_config`, `output_format`, …) differs";
 *   `previous_message_not_found`: "No stored fingerprint exists for the supplied
 *   `previous_message_id`" ("Typically the previous request did not include the `diagnostics`
 *   object … or too much time has passed").
 * - "The four `*_changed` types also carry a `cache_missed_input_tokens` integer: an estimate of how
 *   many input tokens fell after the divergence point" (the SDK: "would have been read from cache
 *   had the prefix matched the previous request"). Here: the named request's prompt tokens after the
 *   divergence point, which is the start of the section that changed (the whole prompt for the
 *   model, the tools; after the tools for the system) or the end of the last message the two share.
 *
 * The simulator's own choices: the earliest divergence is found in the prompt's order (Anthropic's
 * cache order, "tools, system, and messages"), the other parameters between system and messages
 * (render.ts renders them there); `anthropic-beta` headers are not compared, the comparison horizon
 * of very long conversations is not simulated, and no comparison is ever "still running"
 * (`cache_miss_reason: null` is never sent). Fingerprints are kept for the last 10,000 responses
 * issued, by count, not time.
 */

/** What is kept of a request that opted in: keys of its prompt's parts (chained hashes) and token counts, never its text. */
interface Fingerprint {
  /** The model and speed. */
  model: string;
  /** Keys of the prompt up to the end of the tools, of the system prompt, and of each message (the role with it). */
  tools: string;
  system: string;
  messages: string[];
  /** Hash of the other prompt-affecting parameters. */
  settings: string;
  /** Tokens up to the end of the tools, of the system prompt, of each message; and of the whole prompt. */
  toolsTokens: number;
  systemTokens: number;
  messageTokens: number[];
  tokens: number;
}

/** The prompt-affecting parameters other than model, system, tools and messages that the docs name. */
const SETTINGS = ['tool_choice', 'thinking', 'context_management', 'output_config', 'output_format'] as const;

/** Content blocks a content renders as (render.ts: a string is one text block). */
const blockCount = (content: string | readonly unknown[] | undefined): number =>
  content === undefined ? 0 : typeof content === 'string' ? 1 : content.length;

function fingerprintOf(body: JsonObject, request: AnthropicRequest, rendering: AnthropicRendering): Fingerprint {
  // The rendering's blocks are the tools', the system prompt's, then each message's, in order; marks[i] keys the text up to block i's end.
  const keyAt = (blocks: number): string => (blocks === 0 ? '' : `${blocks}:${rendering.marks[blocks - 1] as string}`);
  const tokensAt = (blocks: number): number => (blocks === 0 ? 0 : countTokens(rendering.messageEnds[blocks - 1] as number));
  const tools = request.tools?.length ?? 0;
  const system = tools + blockCount(request.system);
  const messages: string[] = [];
  const messageTokens: number[] = [];
  let end = system;
  for (const message of request.messages) {
    end += blockCount(message.content);
    messages.push(`${message.role}|${keyAt(end)}`);
    messageTokens.push(tokensAt(end));
  }
  const speed = typeof body.speed === 'string' ? body.speed : 'standard';
  return {
    model: `${request.model}\0${speed}`,
    tools: keyAt(tools),
    system: keyAt(system),
    messages,
    settings: createHash('sha256')
      .update(JSON.stringify(SETTINGS.map((key) => body[key] ?? null)))
      .digest('base64url'),
    toolsTokens: tokensAt(tools),
    systemTokens: tokensAt(system),
    messageTokens,
    tokens: rendering.prompt.tokens,
  };
}

/** The first point where `current` leaves the request `previous` was made from; null when it only appends to it (or repeats it). */
function compare(previous: Fingerprint, current: Fingerprint): CacheMissReason | null {
  const changed = (
    type: 'model_changed' | 'system_changed' | 'tools_changed' | 'messages_changed',
    sharedTokens: number,
  ): CacheMissReason => ({
    type,
    cache_missed_input_tokens: Math.max(0, previous.tokens - sharedTokens),
  });
  if (previous.model !== current.model) return changed('model_changed', 0);
  if (previous.tools !== current.tools) return changed('tools_changed', 0);
  if (previous.system !== current.system) return changed('system_changed', previous.toolsTokens);
  if (previous.settings !== current.settings) return { type: 'unavailable' };
  let same = 0;
  while (same < previous.messages.length && previous.messages[same] === current.messages[same]) same++;
  if (same === previous.messages.length) return null;
  return changed('messages_changed', same === 0 ? previous.systemTokens : (previous.messageTokens[same - 1] as number));
}

/** "Fingerprints … are retained for a limited time": here, the last this many responses issued. */
const CAPACITY = 10_000;

/** Fingerprints by response id, oldest first (Map order); one store per server. */
const stores = new WeakMap<object, Map<string, Fingerprint>>();

/**
 * A request's `diagnostics` answer, for the response `id` it is given: undefined when it sent no
 * `diagnostics` object (the response then has no such field), else its verdict against the request
 * it names; its own fingerprint is kept under `id` for a later request to name. `server`: the
 * server's state, whose store it is.
 */
export function diagnoseRequest(
  server: object,
  id: string,
  body: JsonObject,
  request: AnthropicRequest,
  rendering: AnthropicRendering,
): Diagnostics | undefined {
  if (request.diagnostics === undefined) return undefined;
  let store = stores.get(server);
  if (store === undefined) {
    store = new Map();
    stores.set(server, store);
  }
  const current = fingerprintOf(body, request, rendering);
  const named = request.diagnostics.previousMessageId;
  let diagnostics: Diagnostics = null;
  if (named !== null) {
    const previous = store.get(named);
    const reason = previous === undefined ? { type: 'previous_message_not_found' as const } : compare(previous, current);
    diagnostics = reason === null ? null : { cache_miss_reason: reason };
  }
  store.set(id, current);
  if (store.size > CAPACITY) store.delete(store.keys().next().value as string);
  return diagnostics;
}
