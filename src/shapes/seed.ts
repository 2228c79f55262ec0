import type { AiSdkMessageLike, AnthropicMessageLike, ResponsesItemLike, ResponsesTurn } from '../model/types.js';
import type { OpenAIResponsesSession } from './openai-responses/schema.js';
import type { AiSdkSession } from './ai-sdk/schema.js';
import type { AnthropicMessagesSession } from './anthropic-messages/schema.js';
import type { ChatMessage, OpenAIChatSession } from './openai-chat/schema.js';
import type { Content, GeminiSession, GeminiTool, SystemInstruction } from './gemini/schema.js';

/*
 * A fork's seed, the pieces of its first request, in each shape. The fork rules (src/fork) decide
 * the messages; each shape's dialect puts them together with the session's own fields (seed()).
 */

/**
 * Where the child message went:
 * - 'continue': the history ends on a model message; the child message is the next user message;
 * - 'mid-turn': the parent was mid-turn (function calls); placeholders, child message, ack, begin;
 * - 'tool-results': the history ends on the real results of the last calls; a call still without
 *   one gets a placeholder, and the child message joins that user message;
 * - 'dropped-user': a trailing user message the parent never answered (no results of the last
 *   calls in it) was dropped first;
 * - 'fresh': no history to inherit; the fork starts like a fresh agent.
 */
export type SeedCase = 'continue' | 'mid-turn' | 'tool-results' | 'dropped-user' | 'fresh';

interface SeedBase<M> {
  model: string;
  contents: M[];
  /**
   * How many leading entries of `contents` are the same for every fork of this session with the
   * same history mode and forkTurns, whatever the directive: the part that can be cached once for all.
   */
  sharedContents: number;
  seedCase: SeedCase;
  /** Leading parent messages left out by forkTurns: when > 0, the history is no longer the parent's prefix. */
  trimmedMessages: number;
}

/** The pieces of a fork's first model request, for a Gemini-shaped session. */
export interface GeminiForkSeed extends SeedBase<Content> {
  format: 'gemini';
  systemInstruction?: SystemInstruction;
  tools?: GeminiTool[];
  toolConfig?: GeminiSession['toolConfig'];
  generationConfig?: GeminiSession['generationConfig'];
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

/**
 * The pieces of a fork's first model request, for an AI SDK session: `contents` are its messages
 * (the session's leading system messages first); the system prompt, tools, providerOptions and
 * settings are the session's own (`session`, in its key order; a private deep copy unless `copy`
 * is false). A fresh fork of a session without a system prompt gets the fork's own in `session.system`.
 */
interface AiSdkForkSeed extends SeedBase<AiSdkMessageLike> {
  format: 'ai-sdk';
  session: Readonly<AiSdkSession>;
}

/**
 * The pieces of a fork's first model request, for a Responses session: `contents` are its input
 * items (a turn of the fork's own as a response's output); instructions, tools and settings are the
 * session's own (`session`, in its key order). A fresh fork of a session without instructions gets the fork's own.
 */
interface OpenAIResponsesForkSeed extends SeedBase<ResponsesItemLike | ResponsesTurn> {
  format: 'openai-responses';
  session: Readonly<OpenAIResponsesSession>;
}

export type ForkSeed = GeminiForkSeed | OpenAIChatForkSeed | AnthropicForkSeed | AiSdkForkSeed | OpenAIResponsesForkSeed;

/** What the fork rules built, for a dialect to make a seed of. */
export interface SeedParts<M> {
  /** The session's head messages (Chat Completions' leading instructions), as split() gave them. */
  head: readonly M[];
  /** The conversation after the head (which the dialect puts before it). */
  contents: M[];
  /** How many leading entries of `contents` every sibling shares. */
  shared: number;
  seedCase: SeedCase;
  trimmedMessages: number;
}

/** How a dialect copies what it takes from the session into a seed. */
export interface SeedCopy {
  /** Messages and prefix fields: a deep copy, or (copy: false) arrays spread and their values shared. */
  clone<T>(value: T): T;
  /** Whether the seed gets a private deep copy of the session's other fields (false: the session's own). */
  copy: boolean;
  /** The fork's own system prompt, for a seed of a session that has none (a fresh fork); undefined: none is added. */
  systemText?: string | undefined;
}

/**
 * The seed of a shape whose system prompt is a field of the session (Anthropic's and the AI SDK's
 * `system`, the Responses API's `instructions`): its head, then the conversation, with the
 * session's own fields. A fresh fork of a session with neither that field nor leading system
 * messages gets the fork's own system prompt there.
 */
export function seedWithSystemField<M>(
  format: 'anthropic-messages' | 'ai-sdk' | 'openai-responses',
  field: 'system' | 'instructions',
  session: Readonly<{ model: string }>,
  parts: SeedParts<M>,
  how: SeedCopy,
): ForkSeed {
  const own = (how.copy ? structuredClone(session) : session) as Readonly<Record<string, unknown>>;
  const fresh = own[field] === undefined && parts.head.length === 0 && how.systemText !== undefined;
  return {
    format,
    model: session.model,
    session: fresh ? { ...own, [field]: how.systemText } : own,
    contents: [...how.clone(parts.head as M[]), ...parts.contents],
    sharedContents: parts.head.length + parts.shared,
    seedCase: parts.seedCase,
    trimmedMessages: parts.trimmedMessages,
  } as ForkSeed;
}
