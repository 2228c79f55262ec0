import { createHash } from 'node:crypto';
import { takesCacheBreakpoints } from '../openai/cache-presets.js';
import { countTokens } from '../core/chain.js';
import { isObject } from '../core/json.js';
import type { ChatRendering } from '../openai/render.js';
import type { ChatMessage, ChatRequest } from '../openai/wire.js';
import type { CacheMissReason, PromptCacheDiagnostics, ResponsesRequest } from './wire.js';

/*
 * OpenAI's prompt cache diagnostics, as developers.openai.com/api/docs/guides/prompt-caching/diagnostics
 * describes them (read 2026-12):
 * - "Diagnostics are available in the Responses API for GPT-5.6 and later supported models." A
 *   request names "a recent, completed response from the same organization" in
 *   `prompt_cache_options.comparison_response_id`; the Response's `prompt_cache_diagnostics` says
 *   what came of it. Naming one "does not load that response's conversation content or restrict
 *   which matching cache the request can use": the answer and the cache are the same without it.
 * - The answer (the API reference's union, as the openai SDK's later releases type it): `cache_hit`;
 *   `cache_miss` with `reason` (model_changed, prompt_cache_key_changed, tools_changed,
 *   text_format_changed, reasoning_effort_changed, verbosity_changed, context_compacted,
 *   input_changed, service_tier_changed), `cache_missed_tokens` ("the estimated number of input
 *   tokens affected after the first detected divergence") and `comparison_reusable_tokens` ("the
 *   raw token count of the reusable prefix in the compared response"); `comparison_response_not_found`;
 *   `unavailable`. A request that names nothing gets no such field.
 *
 * The simulator's own choices: every completed response is remembered (keys of its prompt and
 * token counts, never its text; the last 10,000, by count), stored or not; one still in progress,
 * failed or forgotten is not found. What the current request was expected to reuse is the compared
 * prompt up to the last message the two send alike (its tools included when they match): a hit when
 * the cache served that much (within a block) or it is shorter than the cache's minimum, else a miss whose reason is the first of the model,
 * prompt_cache_key, service_tier, tools, text.format, reasoning.effort, text.verbosity and the input
 * that differs, `unavailable` when none does (an entry expired or was evicted). `cache_missed_tokens`
 * is what it was expected to reuse less what it was served. A model before GPT-5.6 answers
 * `unavailable`; compaction is not simulated.
 */

/** What is kept of a completed response's request: what keys OpenAI's cache, and its input by message (content keys, token ends). */
interface Fingerprint {
  /** model, prompt_cache_key, service_tier, tools, text.format, reasoning.effort, text.verbosity, in the order they are compared. */
  settings: readonly string[];
  /** A chained key of each message's content (markers left out: a breakpoint moves no token). */
  messages: readonly string[];
  /** Tokens of the prompt up to each message's end, the tools before them included. */
  messageTokens: readonly number[];
  /** Tokens of the tools (ahead of the messages). */
  toolsTokens: number;
}

const SETTING_REASONS: readonly CacheMissReason[] = [
  'model_changed',
  'prompt_cache_key_changed',
  'service_tier_changed',
  'tools_changed',
  'text_format_changed',
  'reasoning_effort_changed',
  'verbosity_changed',
];

const hash = (value: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('base64url');

function settingsOf(request: ResponsesRequest): string[] {
  const { settings } = request;
  const text = isObject(settings.text) ? settings.text : {};
  const reasoning = isObject(settings.reasoning) ? settings.reasoning : {};
  return [
    request.model,
    settings.prompt_cache_key,
    settings.service_tier,
    request.tools,
    text.format,
    reasoning.effort,
    text.verbosity,
  ].map(hash);
}

/** A message as the model reads it: its fields, each content part without its breakpoint, a string content as one text part. */
function contentOf(message: ChatMessage): unknown {
  const { content, ...fields } = message;
  const parts = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  return { ...fields, content: parts.map(({ prompt_cache_breakpoint: _marker, ...part }) => part) };
}

/** Where each message ends in the rendering, in tokens: at parts, the end of its last part. */
function messageTokenEnds(rendering: ChatRendering, count: number): number[] {
  const ends: number[] = new Array<number>(count).fill(0);
  const { parts, messageEnds } = rendering;
  messageEnds.forEach((end, i) => {
    const message = parts ? (parts[i]?.message ?? -1) : i;
    if (message >= 0 && message < count) ends[message] = countTokens(end);
  });
  return ends;
}

function fingerprintOf(request: ResponsesRequest, chat: ChatRequest, rendering: ChatRendering): Fingerprint {
  let chain = '';
  const messages = chat.messages.map((message) => (chain = hash([chain, contentOf(message)])));
  const messageTokens = messageTokenEnds(rendering, chat.messages.length);
  const tools = chat.tools !== undefined && chat.tools.length > 0 ? countTokens(`<tools>${JSON.stringify(chat.tools)}\n`.length) : 0;
  return { settings: settingsOf(request), messages, messageTokens, toolsTokens: tools };
}

/** How near a hit must come: the cache's block (`tolerance`), and the shortest prefix it caches (`minTokens`: anything shorter was not expected to be reused). */
interface MatchRules {
  tolerance: number;
  minTokens: number;
}

/** The verdict on `current` (served `cached` tokens from the cache) against the response it named. */
function compare(previous: Fingerprint, current: Fingerprint, cached: number, rules: MatchRules): PromptCacheDiagnostics {
  let same = 0;
  while (same < previous.messages.length && previous.messages[same] === current.messages[same]) same++;
  const toolsMatch = previous.settings[3] === current.settings[3];
  // The compared prompt up to the last message the two send alike: the prefix this request was expected to reuse.
  const reusable = same > 0 ? (previous.messageTokens[same - 1] as number) : toolsMatch ? previous.toolsTokens : 0;
  if (reusable < rules.minTokens || cached + rules.tolerance >= reusable) return { type: 'cache_hit' };
  const setting = SETTING_REASONS.find((_, i) => previous.settings[i] !== current.settings[i]);
  const reason = setting ?? (same < previous.messages.length ? 'input_changed' : undefined);
  if (reason === undefined) return { type: 'unavailable' };
  return { type: 'cache_miss', reason, cache_missed_tokens: reusable - cached, comparison_reusable_tokens: reusable };
}

/** "Retained for a limited time": here, the last this many responses completed. */
const CAPACITY = 10_000;

/** Fingerprints by response id, oldest first (Map order); one store per server. */
const stores = new WeakMap<object, Map<string, Fingerprint>>();

function storeOf(server: object): Map<string, Fingerprint> {
  let store = stores.get(server);
  if (store === undefined) {
    store = new Map();
    stores.set(server, store);
  }
  return store;
}

/**
 * A request's `prompt_cache_diagnostics`, for the tokens `cached` it was served: undefined when it
 * named no response (the Response then has no such field), else its verdict against the one it named.
 * `server`: the server's state, whose store it is. `completed` keeps the request's fingerprint under
 * its response's id, for a later request to name.
 */
export function diagnoseResponse(
  server: object,
  request: ResponsesRequest,
  chat: ChatRequest,
  rendering: ChatRendering,
  cached: number,
  rules: MatchRules,
): { diagnostics: PromptCacheDiagnostics | undefined; completed: (id: string) => void } {
  const store = storeOf(server);
  const current = fingerprintOf(request, chat, rendering);
  const named = request.comparisonResponseId;
  const previous = named === null ? undefined : store.get(named);
  const diagnostics: PromptCacheDiagnostics | undefined =
    named === null
      ? undefined
      : !takesCacheBreakpoints(request.model)
        ? { type: 'unavailable' }
        : previous === undefined
          ? { type: 'comparison_response_not_found' }
          : compare(previous, current, cached, rules);
  return {
    diagnostics,
    completed(id) {
      store.set(id, current);
      if (store.size > CAPACITY) store.delete(store.keys().next().value as string);
    },
  };
}
