import type { SeedBase } from '../seed.js';
import type { AnthropicMessagesSession } from './schema.js';

/**
 * A message of Anthropic's Messages API as the engine passes it through: role and content blocks,
 * validated by the session schema (AnthropicMessage) and otherwise never looked into.
 */
export interface AnthropicMessageLike {
  /** 'system': the API's mid-conversation system message (some models only). */
  role: 'user' | 'assistant' | 'system';
  content: string | readonly Readonly<Record<string, unknown>>[];
}

/** One Messages API call: the parent's own body (system, tools, settings in its key order) with a fork's messages. */
export interface AnthropicRequest {
  format: 'anthropic-messages';
  body: Readonly<Record<string, unknown>> & {
    readonly model: string;
    readonly max_tokens: number;
    readonly messages: readonly AnthropicMessageLike[];
  };
}

/**
 * The pieces of a fork's first model request, for an Anthropic Messages session: `contents` are its
 * messages; the system prompt, tools and settings are the session's own (`session`, in its key
 * order; a private deep copy unless `copy` is false). A fresh fork of a session without a system
 * prompt gets the fork's own in `session.system`.
 */
export interface AnthropicForkSeed extends SeedBase<AnthropicMessageLike> {
  format: 'anthropic-messages';
  session: Readonly<AnthropicMessagesSession>;
}
