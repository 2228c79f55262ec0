import type { SeedBase } from '../seed.js';
import type { OpenAIResponsesSession } from './schema.js';

/** An input item of OpenAI's Responses API (a message, a function_call, its output, a reasoning item), passed through as it is. */
export type ResponsesItemLike = Readonly<Record<string, unknown>> & { readonly type?: string; readonly role?: string };

/** A model turn of the Responses API: the items one response output, in order (the fork's own turns are kept so). */
export interface ResponsesTurn {
  role: 'assistant';
  output: readonly ResponsesItemLike[];
}

/** One Responses API call: the parent's own body (instructions, tools, settings in its key order) with a fork's input items. */
export interface OpenAIResponsesRequest {
  format: 'openai-responses';
  body: Readonly<Record<string, unknown>> & { readonly model: string; readonly input: readonly ResponsesItemLike[] };
  /** The run's routing key (`prompt_cache_key`), sent unless the parent's body has its own. */
  promptCacheKey?: string;
}

/**
 * The pieces of a fork's first model request, for a Responses session: `contents` are its input
 * items (a turn of the fork's own as a response's output); instructions, tools and settings are the
 * session's own (`session`, in its key order). A fresh fork of a session without instructions gets the fork's own.
 */
export interface OpenAIResponsesForkSeed extends SeedBase<ResponsesItemLike | ResponsesTurn> {
  format: 'openai-responses';
  session: Readonly<OpenAIResponsesSession>;
}
