import { outputTokens, type Exchange, type Sent } from '../core/exchange.js';
import { decodeMs, delay, prefillMs } from '../core/latency.js';
import { planResponse } from '../core/model.js';
import { renderChat } from './render.js';
import { streamReply, type ChunkHead } from './stream.js';
import { toAssistantReply, toPromptFields } from './translate.js';
import { chatUsage } from './usage.js';
import { validateChatRequest } from './validate.js';
import type { ChatCompletion } from './wire.js';
import { applyFaults, type FaultMessages } from '../core/request-faults.js';
import type { ServerState } from '../state.js';
import type { JsonObject } from '../core/types.js';

/** POST /v1/chat/completions: the same scripted model and latency as the Gemini routes, the preset's cache and usage. */

const FINGERPRINT = 'fp_forkpool_local';

export const OPENAI_FAULT_MESSAGES: FaultMessages = {
  '429': 'Rate limit reached for requests (simulated by the forkpool local server). Please try again later.',
  '500': 'The server had an error while processing your request. Sorry about that!',
  '503': 'The engine is currently overloaded, please try again later.',
};

/**
 * The Chat cache's wait, shared with the Responses route: the prefill (less what the cache serves,
 * plus a slow fault), the entry made, the script's SLEEP; then the reply's tokens counted. undefined:
 * the client went away meanwhile.
 */
export async function prefillThenCount(
  state: ServerState,
  call: {
    rendering: ReturnType<typeof renderChat>;
    cache: ReturnType<ServerState['chat']['lookup']>;
    plan: ReturnType<typeof planResponse>;
    fault: unknown;
  },
  signal: AbortSignal,
): Promise<number | undefined> {
  const { rendering, cache, plan } = call;
  const prompt = rendering.prompt.tokens;
  const extra = call.fault === 'slow' ? state.faults.slowMs : 0;
  if (!(await delay(prefillMs(state.latency, prompt - cache.cached, cache.cached) + extra, signal))) return undefined;
  state.chat.prefillDone(rendering, cache);
  if (!(await delay(plan.sleepMs, signal))) return undefined;
  const completion = outputTokens(plan.parts);
  state.metrics.usage(prompt, cache.cached, completion);
  return completion;
}

export async function serveChatCompletions(state: ServerState, body: JsonObject, ex: Exchange): Promise<Sent> {
  const request = validateChatRequest(body);
  const rendering = renderChat(
    request,
    state.chat.implicit.config.blockTokens,
    { bytes: ex.rawBytes, memo: state.prompts },
    state.chat.atBreakpoints(request.model),
  );
  const plan = planResponse({ fields: [toPromptFields(request)], digest: rendering.prompt.digest, maxOutputTokens: request.maxTokens });
  const fault = applyFaults(state, plan.fail, { scope: 'chat.completions', rawBody: ex.rawBody, res: ex.res }, OPENAI_FAULT_MESSAGES);
  if (fault === 'drop') return 0;

  const prompt = rendering.prompt.tokens;
  const cache = state.chat.lookup(request, rendering);
  const completion = await prefillThenCount(state, { rendering, cache, plan, fault }, ex.signal);
  if (completion === undefined) return 0;
  const usage = chatUsage(state.chat.preset, prompt, completion, cache);
  const reply = toAssistantReply(plan.parts, plan.cut);
  const head: ChunkHead = {
    id: `chatcmpl-${state.nextResponse().toString(36)}${rendering.prompt.digest}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    system_fingerprint: FINGERPRINT,
  };

  let sent: Sent;
  if (request.stream) {
    sent = await streamReply(ex, head, reply, {
      usage: request.includeUsage ? usage : undefined,
      completionTokens: completion,
      latency: state.latency,
      fault,
    });
  } else {
    if (!(await delay(decodeMs(state.latency, completion), ex.signal))) return 0;
    const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: reply.content, refusal: null };
    if (reply.toolCalls) message.tool_calls = reply.toolCalls;
    const completionBody: ChatCompletion = {
      id: head.id,
      object: 'chat.completion',
      created: head.created,
      model: head.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
      usage,
      system_fingerprint: FINGERPRINT,
    };
    const text = JSON.stringify(completionBody);
    ex.res.writeHead(200, { 'content-type': 'application/json' });
    ex.res.end(fault === 'malformed' ? text.slice(0, Math.floor(text.length / 2)) : text);
    sent = 200;
  }
  // DashScope's explicit entries exist only once the response has ended ("Cache creation occurs after model response"),
  // and DeepSeek's unit at "the end position of the model output" once there is an output.
  if (sent === 200) state.chat.responseDone(rendering, cache, reply);
  return sent;
}
