/**
 * Wire shapes of OpenAI's Responses API (POST /v1/responses), as far as the local server reads and
 * writes them; the openai SDK's resources/responses/responses.d.ts (6.49) has the full ones.
 */

import type { JsonObject } from '../core/types.js';

/** A content part as received: input_text/output_text carry `text`, refusal `refusal`; images and files are kept as sent. */
export type ContentPart = {
  type: string;
  text?: string;
  refusal?: string;
  prompt_cache_breakpoint?: JsonObject;
  [other: string]: unknown;
};

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

/** A message: EasyInputMessage (no `type`, content a string or parts) or a message item (`type: 'message'`). */
type MessageItem = { type?: 'message'; role: MessageRole; content: string | ContentPart[]; [other: string]: unknown };
type FunctionCallItem = { type: 'function_call'; call_id: string; name: string; arguments: string; [other: string]: unknown };
type FunctionCallOutputItem = { type: 'function_call_output'; call_id: string; output: string | ContentPart[]; [other: string]: unknown };
type ReasoningItem = {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string | null;
  [other: string]: unknown;
};

/** An item of a request's `input` (or of a stored response's output, which a later request continues from). */
export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem;

type OutputText = { type: 'output_text'; annotations: never[]; logprobs: never[]; text: string };

/** The model's output items, with the key order of the API's own (a message: id, type, status, content, role). */
type OutputMessage = {
  id: string;
  type: 'message';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OutputText[];
  role: 'assistant';
};
type OutputFunctionCall = {
  id: string;
  type: 'function_call';
  status: 'in_progress' | 'completed';
  arguments: string;
  call_id: string;
  name: string;
};
export type OutputItem = OutputMessage | OutputFunctionCall;

/** The validated request: its own input items, and what the server acts on or echoes. */
export interface ResponsesRequest {
  model: string;
  input: InputItem[];
  instructions: string | null;
  tools: JsonObject[];
  stream: boolean;
  /** `store`: "Whether to store the generated model response for later retrieval via API." Default true. */
  store: boolean;
  previousResponseId: string | null;
  /** prompt_cache_options.mode (GPT-5.6 and later; default implicit). */
  cacheMode: 'implicit' | 'explicit';
  /** prompt_cache_options.comparison_response_id: the response its prompt cache diagnostics compare with (diagnostics.ts). */
  comparisonResponseId: string | null;
  /** The body's settings the Response echoes (sampling, tool_choice, prompt_cache_key, …), defaults filled in. */
  settings: JsonObject;
}

export type ResponsesUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

/** Why the prompt cache did not reuse the compared response's prefix (the API reference's CacheMissReasonTypeEnum). */
export type CacheMissReason =
  | 'model_changed'
  | 'prompt_cache_key_changed'
  | 'tools_changed'
  | 'text_format_changed'
  | 'reasoning_effort_changed'
  | 'verbosity_changed'
  | 'context_compacted'
  | 'input_changed'
  | 'service_tier_changed';

/** A Response's `prompt_cache_diagnostics`, for a request that named a response to compare with. */
export type PromptCacheDiagnostics =
  | { type: 'cache_hit' }
  | { type: 'cache_miss'; reason: CacheMissReason; cache_missed_tokens: number; comparison_reusable_tokens: number }
  | { type: 'comparison_response_not_found' }
  | { type: 'unavailable' };

/** The Response object: as `response.created` carries it (in progress, no output) and as it completes. */
export type ResponseObject = {
  id: string;
  object: 'response';
  created_at: number;
  /** `incomplete`: max_output_tokens ended it (incomplete_details says so). */
  status: 'in_progress' | 'completed' | 'incomplete';
  completed_at: number | null;
  error: null;
  incomplete_details: null | { reason: 'max_output_tokens' };
  instructions: string | null;
  model: string;
  output: OutputItem[];
  previous_response_id: string | null;
  store: boolean;
  tools: JsonObject[];
  usage: ResponsesUsage | null;
  /** Only on a completed response to a request that named one to compare with. */
  prompt_cache_diagnostics?: PromptCacheDiagnostics;
  [setting: string]: unknown;
};
