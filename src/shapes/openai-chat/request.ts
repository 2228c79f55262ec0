import type { SeedBase } from '../seed.js';
import type { ChatMessage, OpenAIChatSession } from './schema.js';

/** A Chat Completions request body: the parent's own fields, in its key order, with a fork's messages. */
type ChatRequestBody = Readonly<Record<string, unknown>> & { readonly model: string; readonly messages: readonly ChatMessage[] };

/** One Chat Completions call (OpenAI and compatible APIs). */
export interface OpenAIChatRequest {
  format: 'openai-chat';
  body: ChatRequestBody;
  /**
   * Routes every fork to the same cache (OpenAI's `prompt_cache_key`); the provider sends it where
   * its API takes one. Not part of the body: the parent's own request may have had none.
   */
  promptCacheKey?: string;
}

/**
 * The pieces of a fork's first model request, for a Chat Completions session: `contents` are its
 * messages (the parent's leading system and developer messages first); every other field of the
 * request is the session's own (`session`, in its key order; a private deep copy unless `copy` is false).
 */
export interface OpenAIChatForkSeed extends SeedBase<ChatMessage> {
  format: 'openai-chat';
  session: Readonly<OpenAIChatSession>;
}
