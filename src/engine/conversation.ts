import type { Dialect, ToolResponse } from '../dialect/dialect.js';
import { geminiDialect } from '../dialect/gemini.js';
import { anthropicMessagesDialect, type AnthropicSessionLike } from '../dialect/anthropic-messages.js';
import { placeBreakpoints, type CacheTtl } from '../dialect/breakpoints.js';
import { markLastShared } from '../dialect/cache-marker.js';
import { openAIChatDialect } from '../dialect/openai-chat.js';
import type { AnyMessage, CallView } from '../dialect/view.js';
import type { ForkSeed } from '../fork/index.js';
import { prefixFields } from '../model/request.js';
import type { AnthropicMessageLike, ModelMessage, ModelRequest } from '../model/types.js';
import type { ExplicitCacheRef } from './protocol.js';

/**
 * A fork's conversation as it grows, in its session's own shape: what the loop sends next, and the
 * model's messages and the tool results appended to it. The loop never looks inside a message.
 */
export interface Conversation {
  request(): ModelRequest;
  /** A message the model sent back, appended as it came. */
  push(message: ModelMessage): void;
  /** The results of a turn's calls (one response each), then the user's texts, if any. */
  answer(calls: readonly CallView[], responses: readonly ToolResponse[], texts?: readonly string[]): void;
  say(text: string): void;
}

/**
 * Starts from a seed and grows its `contents` in place (a seed's contents are a fresh array of its
 * own: no copy of the whole history per fork); with an explicit cache (Gemini), requests name it
 * and send only what it does not hold.
 */
export interface ConversationOptions {
  /** Gemini: an explicit cache holding the shared part; requests name it and send only the rest. */
  cache?: ExplicitCacheRef | undefined;
  /** Chat Completions: OpenAI's prompt_cache_key for every request. */
  promptCacheKey?: string | undefined;
  /** Chat Completions on DashScope: a cache_control marker on the last shared message. */
  cacheMarker?: boolean | undefined;
  /** Anthropic: place cache_control breakpoints, leaving room for the parent's own (`parent` of the 4). */
  breakpoints?: { parent: number; ttl: CacheTtl } | undefined;
}

export function openConversation(seed: ForkSeed, options: ConversationOptions = {}): Conversation {
  const { cache, promptCacheKey } = options;
  if (seed.format === 'openai-chat') {
    const messages = options.cacheMarker ? markLastShared(seed.contents, seed.sharedContents) : seed.contents;
    return grow(openAIChatDialect as Dialect<AnyMessage, unknown>, messages, () => ({
      ...openAIChatDialect.request(seed.session, messages),
      ...(promptCacheKey !== undefined ? { promptCacheKey } : {}),
    }));
  }
  if (seed.format === 'anthropic-messages') {
    const messages = seed.contents;
    const breakpoints = options.breakpoints;
    return grow(anthropicMessagesDialect as Dialect<AnyMessage, unknown>, messages, () =>
      anthropicMessagesDialect.request(
        seed.session as AnthropicSessionLike,
        breakpoints ? placeBreakpoints(messages as AnthropicMessageLike[], seed.sharedContents, breakpoints.parent, breakpoints.ttl) : (messages as AnthropicMessageLike[]),
      ),
    );
  }
  if (cache) {
    const messages = seed.contents.slice(cache.sharedContents);
    return grow(geminiDialect as Dialect<AnyMessage, unknown>, messages, () => ({
      format: 'gemini',
      model: seed.model,
      cachedContent: cache.name,
      ...(seed.generationConfig ? { generationConfig: seed.generationConfig } : {}),
      contents: messages,
    }));
  }
  const messages = seed.contents;
  return grow(geminiDialect as Dialect<AnyMessage, unknown>, messages, () => ({ format: 'gemini', ...prefixFields(seed), contents: messages }));
}

function grow(dialect: Dialect<AnyMessage, unknown>, messages: AnyMessage[], request: () => ModelRequest): Conversation {
  return {
    request,
    push: (message) => void messages.push(message),
    answer(calls, responses, texts = []) {
      messages.push(...dialect.answer(calls, responses, texts).messages);
    },
    say: (text) => void messages.push(dialect.userText(text)),
  };
}
