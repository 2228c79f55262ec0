/** Wire shapes of Anthropic's Messages API, as far as the local server reads and writes them. */

import type { JsonObject } from '../core/types.js';

export type CacheTtl = '5m' | '1h';

/** `cache_control: {type: 'ephemeral', ttl?}`: a cache breakpoint. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: CacheTtl;
}

/** A content block: `text`, `image`, `document`, `tool_use`, `tool_result`, `thinking`, … (others kept as received). */
export interface AnthropicBlock {
  type: string;
  text?: string;
  /** tool_use */
  id?: string;
  name?: string;
  input?: JsonObject;
  /** tool_result */
  tool_use_id?: string;
  content?: string | AnthropicBlock[];
  is_error?: boolean;
  cache_control?: CacheControl;
  [other: string]: unknown;
}

export type AnthropicRole = 'user' | 'assistant' | 'system';

export interface AnthropicMessage {
  role: AnthropicRole;
  content: string | AnthropicBlock[];
}

/** The validated request: the parsed body's own objects (rendered as sent), plus what the server acts on. */
export interface AnthropicRequest {
  model: string;
  /** undefined on count_tokens, which takes none. */
  maxTokens: number | undefined;
  /** The `system` field as sent: a string or text blocks. */
  system: string | AnthropicBlock[] | undefined;
  tools: JsonObject[] | undefined;
  messages: AnthropicMessage[];
  stream: boolean;
  /** Top-level `cache_control`: automatic caching (a breakpoint on the last cacheable block). */
  cacheControl: CacheControl | undefined;
  /** Rendered into the prompt ahead of the messages (changing them invalidates the messages' cache). */
  toolChoice: unknown;
  thinking: unknown;
  /** The `diagnostics` object (cache diagnostics' opt-in); undefined when absent or null. */
  diagnostics: { previousMessageId: string | null } | undefined;
}

/** The blocks the model answers with. */
export type OutputBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: JsonObject };

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens';

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
}

/**
 * `diagnostics.cache_miss_reason` (platform.claude.com/docs/en/build-with-claude/cache-diagnostics,
 * "Cache miss reason types"): the four `*_changed` types carry `cache_missed_input_tokens`.
 */
export type CacheMissReason =
  | { type: 'model_changed' | 'system_changed' | 'tools_changed' | 'messages_changed'; cache_missed_input_tokens: number }
  | { type: 'previous_message_not_found' | 'unavailable' };

/** The response's `diagnostics`: null for no divergence (or nothing named), else the reason (this simulator is never "still running"). */
export type Diagnostics = { cache_miss_reason: CacheMissReason } | null;

export interface AnthropicMessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  stop_details: null;
  container: null;
  /** Present only when the request had a `diagnostics` object. */
  diagnostics?: Diagnostics;
  usage: AnthropicUsage;
}
