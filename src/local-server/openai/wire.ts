/** Wire shapes of the OpenAI Chat Completions API, as far as the local server reads and writes them. */

import type { JsonObject } from '../core/types.js';

/**
 * A content part: `{type: 'text', text}` and others kept as received (`cache_control` marks
 * DashScope's explicit cache, `prompt_cache_breakpoint` OpenAI's from GPT-5.6 on).
 */
export interface ChatContentPart {
  type: string;
  text?: string;
  cache_control?: JsonObject;
  prompt_cache_breakpoint?: JsonObject;
  [other: string]: unknown;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [other: string]: unknown;
}

/** The validated request: the parsed body's own objects (rendered as sent), plus what the server acts on. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: JsonObject[] | undefined;
  stream: boolean;
  /** stream_options.include_usage */
  includeUsage: boolean;
  /** prompt_cache_options.mode (GPT-5.6 and later; default implicit). */
  cacheMode: 'implicit' | 'explicit';
  /** max_completion_tokens (or max_tokens): a longer reply ends there with finish_reason "length". */
  maxTokens?: number | undefined;
}

/** `usage` in the field names of the provider being simulated. */
export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [providerField: string]: unknown;
};

export type FinishReason = 'stop' | 'tool_calls' | 'length';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: 0;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatToolCall[] };
    logprobs: null;
    finish_reason: FinishReason;
  }[];
  usage: ChatUsage;
  system_fingerprint: string;
}

/** A streamed tool call fragment: the first carries id, type and name; later ones only argument text. */
interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: null;
  tool_calls?: ToolCallDelta[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: { index: 0; delta: ChunkDelta; logprobs: null; finish_reason: FinishReason | null }[];
  /** Only with stream_options.include_usage: null on every chunk but the last, which has no choices. */
  usage?: ChatUsage | null;
}
