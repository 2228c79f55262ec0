import { placeBreakpoints } from '../shapes/anthropic-messages/breakpoints.js';
import { markLastShared } from '../shapes/openai-chat/cache-marker.js';
import { CHAT_MARKS, placeOpenAIBreakpoints } from '../shapes/openai-breakpoints.js';
import { RESPONSES_MARKS } from '../shapes/openai-responses/breakpoints.js';
import type { ResponsesEntry } from '../shapes/openai-responses/dialect.js';
import type { AnyMessage } from '../shapes/view.js';
import type { ChatMessage } from '../shapes/openai-chat/schema.js';
import type { CachePlan, RequestCache } from './plan.js';
import type { AnthropicMessageLike, AnthropicRequest, ModelRequest } from './types.js';

/*
 * The one request path: a conversation's requests, the headless parent's and every fork's, are the
 * shape's own request decorated here as the plan's request mechanism says. Nothing else adds a
 * cache key, a marker, a breakpoint or a cached content to a request.
 */

export interface RequestDecorator {
  /**
   * The messages a conversation starts from and then grows: with an explicit cache, without what it
   * holds; with a marker, the last shared message marked (once, on a copy).
   */
  start(messages: AnyMessage[]): AnyMessage[];
  /** One request as it is sent, from the shape's own request over the grown messages. */
  request(base: ModelRequest): ModelRequest;
  /** The tokens an explicit cache holds for this conversation, when its requests name one. */
  readonly explicitTokens?: number;
}

/**
 * The decorator of one conversation: `shared` is how many of its leading messages every sibling
 * sends alike (the parent's own conversation: all of them), `window` its seed window (which explicit
 * cache it reads), `stored` how many leading messages the parent's stored response holds, when the
 * conversation starts with all of them unchanged (a named response cannot be edited).
 */
export function requestDecorator(plan: Pick<CachePlan, 'request' | 'shape'>, at: { shared: number; window: string; stored?: number | undefined }): RequestDecorator {
  const r: RequestCache = plan.request;
  // A seed's messages are a fresh array of its own: grown in place, never copied whole per fork.
  const asIs = (messages: AnyMessage[]): AnyMessage[] => messages;
  switch (r.mechanism) {
    case 'none':
      return { start: asIs, request: (base) => base };
    case 'cache-key':
      return keyedDecorator(plan.shape, r, at.shared);
    case 'marker':
      return { start: (messages) => markLastShared(messages as readonly ChatMessage[], at.shared) as AnyMessage[], request: (base) => base };
    case 'breakpoints':
      return {
        start: asIs,
        request: (base) => {
          const { body } = base as AnthropicRequest;
          // Placed on copies per request: the conversation itself keeps none, so earlier turns never pile them up.
          return { ...base, body: { ...body, messages: placeBreakpoints(body.messages as AnthropicMessageLike[], at.shared, r.parent, r.ttl) } } as ModelRequest;
        },
      };
    case 'stored-response': {
      // A fork that cannot name the stored response re-sends its conversation, as under 'cache-key'.
      const keyed = keyedDecorator(plan.shape, r, at.shared);
      const stored = at.stored;
      if (stored === undefined) return keyed;
      return {
        start: (messages) => messages.slice(stored),
        request: (base) => {
          // The messages were cut to the fork's own: only a Responses request can name what holds the rest.
          if (base.format !== 'openai-responses') throw new Error(`a stored response holds the conversation of a Responses request only, not of a ${base.format} one`);
          return keyed.request({ ...base, body: { ...base.body, previous_response_id: r.responseId } });
        },
      };
    }
    case 'cached-content': {
      const cache = r.caches[at.window];
      if (cache === undefined) return { start: asIs, request: (base) => base };
      return {
        explicitTokens: cache.tokens,
        start: (messages) => messages.slice(cache.sharedContents),
        // The API rejects cachedContent beside systemInstruction, tools or toolConfig: the cache holds them.
        request: (base) => {
          if (base.format !== 'gemini') return base;
          const { model, generationConfig, contents } = base;
          return { format: 'gemini', model, cachedContent: cache.name, ...(generationConfig ? { generationConfig } : {}), contents };
        },
      };
    }
  }
}

/** OpenAI's routing key on every request, and breakpoints placed once on the messages a conversation starts from. */
function keyedDecorator(shape: CachePlan['shape'], r: { key?: string; breakpoints?: { parentWarm: boolean } }, shared: number): RequestDecorator {
  const { key, breakpoints } = r;
  return {
    start: breakpoints ? (messages) => withBreakpoints(shape, messages, shared, breakpoints.parentWarm) : (messages) => messages,
    request: key === undefined ? (base) => base : (base) => ({ ...base, promptCacheKey: key }) as ModelRequest,
  };
}

/**
 * A seed's messages as the report measures what siblings share: as sent where a marker or a
 * breakpoint makes the shared part a little longer (DashScope's, OpenAI's), as they are otherwise.
 */
export function measuredMessages(plan: Pick<CachePlan, 'request' | 'shape'>, messages: readonly AnyMessage[], shared: number): readonly AnyMessage[] {
  const r = plan.request;
  if (r.mechanism === 'marker') return markLastShared(messages as readonly ChatMessage[], shared);
  if ((r.mechanism === 'cache-key' || r.mechanism === 'stored-response') && r.breakpoints) return withBreakpoints(plan.shape, messages, shared, r.breakpoints.parentWarm);
  return messages;
}

/** OpenAI's breakpoints, on Chat Completions messages or Responses items. */
function withBreakpoints(shape: CachePlan['shape'], messages: readonly AnyMessage[], shared: number, parentWarm: boolean): AnyMessage[] {
  if (shape === 'openai-responses') return placeOpenAIBreakpoints(RESPONSES_MARKS, messages as readonly ResponsesEntry[], shared, parentWarm) as AnyMessage[];
  return placeOpenAIBreakpoints(CHAT_MARKS, messages as readonly ChatMessage[], shared, parentWarm) as AnyMessage[];
}
