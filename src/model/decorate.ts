import type { CacheMarks } from '../shapes/cache-marks.js';
import { findShape, shapeNamed, type ModelRequest } from '../shapes/registry.js';
import type { AnyMessage } from '../shapes/view.js';
import type { CachePlan, RequestCache } from './plan.js';

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
export function requestDecorator(
  plan: Pick<CachePlan, 'request' | 'shape'>,
  at: { shared: number; window: string; stored?: number | undefined },
): RequestDecorator {
  const r: RequestCache = plan.request;
  // A seed's messages are a fresh array of its own: grown in place, never copied whole per fork.
  const asIs = (messages: AnyMessage[]): AnyMessage[] => messages;
  switch (r.mechanism) {
    case 'none':
      return { start: asIs, request: (base) => base };
    case 'cache-key':
      return keyedDecorator(plan.shape, r, at.shared);
    case 'marker': {
      const marker = need(plan.shape, marksOf(plan.shape).marker, 'a cache_control marker');
      return { start: (messages) => marker(messages, at.shared), request: (base) => base };
    }
    case 'breakpoints': {
      const breakpoints = need(plan.shape, marksOf(plan.shape).breakpoints, 'cache_control breakpoints');
      // Placed on copies per request: the conversation itself keeps none, so earlier turns never pile them up.
      return { start: asIs, request: (base) => breakpoints(base, at.shared, r.parent, r.ttl) };
    }
    case 'stored-response': {
      // A fork that cannot name the stored response re-sends its conversation, as under 'cache-key'.
      const keyed = keyedDecorator(plan.shape, r, at.shared);
      const stored = at.stored;
      if (stored === undefined) return keyed;
      return {
        start: (messages) => messages.slice(stored),
        request: (base) => {
          // The messages were cut to the fork's own: only a request whose shape names a stored response can name what holds the rest.
          const named = marksOf(base.format).storedResponse;
          if (named === undefined)
            throw new Error(`a stored response holds the conversation of a Responses request only, not of a ${base.format} one`);
          return keyed.request(named(base, r.responseId));
        },
      };
    }
    case 'cached-content': {
      const cache = r.caches[at.window];
      if (cache === undefined) return { start: asIs, request: (base) => base };
      return {
        explicitTokens: cache.tokens,
        start: (messages) => messages.slice(cache.sharedContents),
        // A request of a shape without explicit caches goes as it is.
        request: (base) => marksOf(base.format).cachedContent?.(base, cache.name) ?? base,
      };
    }
  }
}

/** OpenAI's routing key on every request, and breakpoints placed once on the messages a conversation starts from. */
function keyedDecorator(
  shape: CachePlan['shape'],
  r: { key?: string; breakpoints?: { parentWarm: boolean } },
  shared: number,
): RequestDecorator {
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
export function measuredMessages(
  plan: Pick<CachePlan, 'request' | 'shape'>,
  messages: readonly AnyMessage[],
  shared: number,
): readonly AnyMessage[] {
  const r = plan.request;
  if (r.mechanism === 'marker') return need(plan.shape, marksOf(plan.shape).marker, 'a cache_control marker')(messages, shared);
  if ((r.mechanism === 'cache-key' || r.mechanism === 'stored-response') && r.breakpoints)
    return withBreakpoints(plan.shape, messages, shared, r.breakpoints.parentWarm);
  return messages;
}

/** Whether requests in this shape can name a stored response (and send only what follows it). */
export function namesStoredResponses(format: string): boolean {
  return findShape(format)?.cacheMarks.storedResponse !== undefined;
}

/** How many items of its own a request that names a stored response sends; undefined in a shape that names none. */
export function itemsAfterStoredResponse(request: ModelRequest): number | undefined {
  return marksOf(request.format).storedResponseItems?.(request);
}

/** OpenAI's breakpoints, on the shape's messages (Chat Completions messages, Responses items). */
function withBreakpoints(shape: CachePlan['shape'], messages: readonly AnyMessage[], shared: number, parentWarm: boolean): AnyMessage[] {
  return need(shape, marksOf(shape).openAIBreakpoints, "OpenAI's breakpoints")(messages, shared, parentWarm);
}

/** Where the cache mechanisms write on a shape's requests. */
function marksOf(format: string): CacheMarks<AnyMessage, ModelRequest> {
  return shapeNamed(format).cacheMarks as CacheMarks<AnyMessage, ModelRequest>;
}

/** A mechanism the plan asks for, as the shape writes it; a plan asking for one the shape lacks is a provider module's error. */
function need<T>(format: string, mark: T | undefined, what: string): T {
  if (mark === undefined) throw new TypeError(`the cache plan puts ${what} on requests in ${shapeNamed(format).label}, which takes none`);
  return mark;
}
