import { breakpointsOf } from './breakpoints.js';
import type { AnthropicCacheUse } from './cache.js';
import { diagnoseRequest } from './diagnostics.js';
import { renderMessages } from './render.js';
import { streamMessage } from './stream.js';
import { toContentBlocks, toPromptFields, type AssistantContent } from './translate.js';
import { validateMessagesRequest } from './validate.js';
import type { AnthropicMessageResponse, AnthropicUsage } from './wire.js';
import { outputTokens, type Exchange, type Sent } from '../core/exchange.js';
import { decodeMs, delay, prefillMs } from '../core/latency.js';
import { planResponse } from '../core/model.js';
import { applyFaults, type FaultMessages } from '../core/request-faults.js';
import type { ServerState } from '../state.js';
import type { JsonObject } from '../core/types.js';

/** POST /v1/messages and /v1/messages/count_tokens: the same scripted model and latency as the other dialects, Anthropic's prompt cache. */

const ANTHROPIC_FAULT_MESSAGES: FaultMessages = {
  '429': 'This request would exceed the rate limit (simulated by the forkpool local server). Please try again later.',
  '500': 'Internal server error',
  '503': 'Service unavailable',
};

/** "total_input_tokens = cache_read_input_tokens + cache_creation_input_tokens + input_tokens", the creation split by TTL. */
function usageOf(prompt: number, cache: AnthropicCacheUse, output: number): AnthropicUsage {
  const created = cache.created5m + cache.created1h;
  return {
    input_tokens: prompt - cache.read - created,
    cache_creation_input_tokens: created,
    cache_read_input_tokens: cache.read,
    cache_creation: { ephemeral_5m_input_tokens: cache.created5m, ephemeral_1h_input_tokens: cache.created1h },
    output_tokens: output,
    service_tier: 'standard',
  };
}

export async function serveMessages(state: ServerState, body: JsonObject, ex: Exchange, requestId: string): Promise<Sent> {
  const request = validateMessagesRequest(body);
  const rendering = renderMessages(request, { bytes: ex.rawBytes, memo: state.prompts });
  const breakpoints = breakpointsOf(rendering, request.cacheControl);
  const plan = planResponse({ fields: [toPromptFields(request)], digest: rendering.prompt.digest, maxOutputTokens: request.maxTokens });
  const fault = applyFaults(state, plan.fail, { scope: 'messages', rawBody: ex.rawBody, res: ex.res }, ANTHROPIC_FAULT_MESSAGES);
  if (fault === 'drop') return 0;

  const prompt = rendering.prompt.tokens;
  const cache = state.anthropic.lookup(rendering, breakpoints);
  const extra = fault === 'slow' ? state.faults.slowMs : 0;
  if (!(await delay(prefillMs(state.latency, prompt - cache.read, cache.read) + extra, ex.signal))) return 0;
  if (!(await delay(plan.sleepMs, ex.signal))) return 0;
  // "a cache entry only becomes available after the first response begins": requests that arrived before now missed it.
  state.anthropic.responseBegun(cache);

  // max_tokens 0 pre-warms the cache: "returns immediately without generating any output … stop_reason: "max_tokens"".
  const prewarm = request.maxTokens === 0;
  // A reply the request's max_tokens cut ends as the API's does: stop_reason "max_tokens".
  const reply: AssistantContent = prewarm ? { content: [], stopReason: 'max_tokens' } : toContentBlocks(plan.parts, plan.cut);
  const output = prewarm ? 0 : outputTokens(plan.parts);
  state.metrics.usage(prompt, cache.read, output);
  const id = `msg_${state.nextResponse().toString(36)}${rendering.prompt.digest}`;
  // Cache diagnostics: on the message, so also on message_start, where "`diagnostics` appears" in a stream.
  const diagnostics = diagnoseRequest(state, id, body, request, rendering);
  const message: AnthropicMessageResponse = {
    id,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    ...(diagnostics !== undefined ? { diagnostics } : {}),
    usage: usageOf(prompt, cache, output),
  };
  if (request.stream) return streamMessage(ex, message, { requestId, latency: state.latency, fault });
  if (!(await delay(decodeMs(state.latency, output), ex.signal))) return 0;
  const text = JSON.stringify(message);
  ex.res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
  ex.res.end(fault === 'malformed' ? text.slice(0, Math.floor(text.length / 2)) : text);
  return 200;
}

/** The prompt's tokens, as the cache and usage count them (no generation, no cache lookup). */
export function serveMessageTokens(body: JsonObject, ex: Exchange, requestId: string): Sent {
  const rendering = renderMessages(validateMessagesRequest(body, true));
  ex.res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
  ex.res.end(JSON.stringify({ input_tokens: rendering.prompt.tokens }));
  return 200;
}
