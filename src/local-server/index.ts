/**
 * The local model server (a simulator, and it says so): the real @google/genai SDK talks to it
 * through `httpOptions.baseUrl`, the real openai SDK through `baseURL: url + '/v1'`
 * (POST /v1/chat/completions, GET /v1/models; usage and cache rules by the `usage` preset; and the
 * Responses API, POST /v1/responses with stored responses and previous_response_id), the real
 * @anthropic-ai/sdk through `baseURL: url` (POST /v1/messages, /v1/messages/count_tokens; Anthropic's
 * prompt cache at cache_control breakpoints).
 *
 * Scripted model, one command per line of the directive (text after the last `Directive:` in user
 * text; without one, the last real user text):
 *   CALL <tool> <json-object-args>   parallel functionCalls on model turn 1 of the fork
 *   CALL@<n> <tool> <json-args>      on model turn n (turn = 1 + model messages with functionCalls after the directive)
 *   FORK <directive>                 functionCall `agent` {description, prompt, subagent_type:'fork'}, turn 1 only ("\n" = newline)
 *   RECALL <regex>                   final answer lists every distinct match in the whole request
 *   REPLY <text> | JSON <json>       final answer is that text / exactly that JSON
 *   TOKENS <n>                       final answer of n tokens
 *   SLEEP <ms>                       delays the response (aborted when the client disconnects)
 *   FAIL <status> [xN]               first N attempts of this exact request fail (429 carries Retry-After; 529 is Anthropic's overloaded)
 * No command: "Scope: ...\nResult: ..." with a digest of the tool results and a context hash.
 * `<task-notification>` results in later user turns are included in the final answer.
 */
export { startLocalServer, type LocalServer } from './server.js';
export { startLocalServerThread, type LocalServerThread, type LocalServerThreadOptions } from './thread.js';
export type { CapturedRequest, LocalServerOptions } from './state.js';
export type { LocalServerMetrics } from './core/metrics.js';
export { prometheusText } from './core/metrics.js';
export { LATENCY_PRESETS, isLatencyPreset, type LatencyModel, type LatencyPreset } from './core/latency.js';
export { FAULT_KINDS, parseFaultSpec, type FaultKind, type FaultSpec } from './core/faults.js';
export type { PrefixCacheConfig } from './core/prefix-cache.js';
export { DEFAULT_CACHE_CONFIG } from './gemini/cache-rules.js';
export {
  CHAT_CACHE_PRESETS,
  USAGE_PRESETS,
  isUsagePreset,
  type ChatCachePreset,
  type MarkerCacheRules,
  type UsagePreset,
} from './openai/cache-presets.js';
export type { AnthropicCacheOptions } from './anthropic/cache.js';
