import type { ServerResponse } from 'node:http';
import type { Exchange, Sent } from '../core/exchange.js';
import { decodeMs, delay } from '../core/latency.js';
import { planResponse } from '../core/model.js';
import { applyFaults } from '../core/request-faults.js';
import type { JsonObject } from '../core/types.js';
import type { UsagePreset } from '../openai/cache-presets.js';
import type { ChatCacheUse } from '../openai/cache.js';
import { OpenAIFailure } from '../openai/errors.js';
import { OPENAI_FAULT_MESSAGES, prefillThenCount } from '../openai/generate.js';
import { renderChat } from '../openai/render.js';
import { toAssistantReply, toPromptFields } from '../openai/translate.js';
import type { ServerState } from '../state.js';
import { diagnoseResponse } from './diagnostics.js';
import { effectiveInput, type StoredResponse } from './store.js';
import { openEventStream, streamOutput } from './stream.js';
import { outputItems, toChatRequest } from './translate.js';
import { validateResponsesRequest } from './validate.js';
import type { ResponseObject, ResponsesRequest, ResponsesUsage } from './wire.js';

/**
 * POST /v1/responses: the scripted model, latency and faults of the other routes, and the prompt
 * cache and rendering of the Chat Completions route (the server's `usage` preset), over the
 * request's effective input: with previous_response_id, the stored response's effective input, its
 * output, then this request's input. Only the conversation is carried over. The API reference
 * (openai SDK 6.49, ResponseCreateParams.instructions) says: "When using along with
 * `previous_response_id`, the instructions from a previous response will not be carried over to
 * the next response. This makes it simple to swap out system (or developer) messages in new
 * responses." Tools and settings are per request too: "“tools” parameter, the specification of
 * which tools are available to the AI model, are not part of a conversation maintained by the
 * server" (an answer on community.openai.com/t/1368446, "Tools Not Working After First Turn When
 * Using previous_response_id"). GET and DELETE /v1/responses/{id} serve the stored ones.
 */

/**
 * An unknown (or unstored, or evicted) previous response: 400 with code previous_response_not_found,
 * as the API answers it: `Error code: 400 - {'error': {'message': "Previous response with id
 * 'resp_…' not found.", 'type': 'invalid_request_error', 'param': 'previous_response_id', 'code':
 * 'previous_response_not_found'}}` (the openai Python SDK's BadRequestError after a store=False
 * response; likewise bigduu/Bamboo-agent#513, RooCodeInc/Roo-Code#7709).
 */
function previousOf(state: ServerState, id: string | null): StoredResponse | undefined {
  if (id === null) return undefined;
  const stored = state.responses.get(id);
  if (!stored)
    throw new OpenAIFailure(400, `Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
  return stored;
}

/**
 * `usage` as the Responses API reports it: input_tokens_details.cached_tokens (cache_write_tokens
 * too where the model caches at breakpoints, as on Chat Completions); vLLM (the `none` preset)
 * caches without saying so.
 */
function responsesUsage(preset: UsagePreset, prompt: number, completion: number, cache: ChatCacheUse): ResponsesUsage {
  const details = {
    cached_tokens: preset === 'none' ? 0 : cache.cached,
    ...(cache.breakpoints ? { cache_write_tokens: cache.created } : {}),
  };
  return {
    input_tokens: prompt,
    input_tokens_details: details,
    output_tokens: completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: prompt + completion,
  };
}

function inProgress(request: ResponsesRequest, id: string): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: request.instructions,
    model: request.model,
    output: [],
    previous_response_id: request.previousResponseId,
    store: request.store,
    tools: request.tools,
    usage: null,
    ...request.settings,
  };
}

export async function serveResponses(state: ServerState, body: JsonObject, ex: Exchange): Promise<Sent> {
  const request = validateResponsesRequest(body);
  const previous = previousOf(state, request.previousResponseId);
  const chat = toChatRequest(request, effectiveInput(previous, request.input));
  const rendering = renderChat(chat, state.chat.implicit.config.blockTokens, undefined, state.chat.atBreakpoints(request.model));
  const limit = request.settings.max_output_tokens;
  const plan = planResponse({
    fields: [toPromptFields(chat)],
    digest: rendering.prompt.digest,
    maxOutputTokens: typeof limit === 'number' ? limit : undefined,
  });
  const fault = applyFaults(state, plan.fail, { scope: 'responses', rawBody: ex.rawBody, res: ex.res }, OPENAI_FAULT_MESSAGES);
  if (fault === 'drop') return 0;

  const prompt = rendering.prompt.tokens;
  const cache = state.chat.lookup(chat, rendering);
  const { blockTokens, minTokens } = state.chat.implicit.config;
  const diagnosis = diagnoseResponse(state, request, chat, rendering, cache.cached, {
    tolerance: cache.breakpoints ? 0 : blockTokens,
    minTokens,
  });
  // resp_/msg_/fc_ and hex, as the API's ids; unique per server (serial) and across servers (tag).
  const serial = `${state.responses.tag}${state.nextResponse().toString(16).padStart(8, '0')}${rendering.prompt.digest}`;
  const head = inProgress(request, `resp_${serial}`);
  // The API answers a streamed request at once; the model's output follows its prefill.
  const events = request.stream ? openEventStream(ex.res, fault) : undefined;
  events?.send('response.created', { response: head });
  events?.send('response.in_progress', { response: head });
  const completion = await prefillThenCount(state, { rendering, cache, plan, fault }, ex.signal);
  if (completion === undefined) return 0;
  const reply = toAssistantReply(plan.parts, plan.cut);
  const output = outputItems(reply, (prefix, i) => `${prefix}_${serial}${i.toString(16).padStart(2, '0')}`);
  const usage = responsesUsage(state.chat.preset, prompt, completion, cache);
  const diagnostics = diagnosis.diagnostics !== undefined ? { prompt_cache_diagnostics: diagnosis.diagnostics } : {};
  // max_output_tokens reached: the Response is `incomplete`, says why, and has no completed_at.
  const done: ResponseObject = plan.cut
    ? { ...head, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output, usage, ...diagnostics }
    : { ...head, status: 'completed', completed_at: Math.floor(Date.now() / 1000), output, usage, ...diagnostics };
  const text = JSON.stringify(done);
  if (events) {
    if (!(await streamOutput(events, output, completion, state.latency, ex.signal))) return 0;
    events.send(plan.cut ? 'response.incomplete' : 'response.completed', { response: done }, true);
    ex.res.end();
  } else {
    if (!(await delay(decodeMs(state.latency, completion), ex.signal))) return 0;
    ex.res.writeHead(200, { 'content-type': 'application/json' });
    ex.res.end(fault === 'malformed' ? text.slice(0, Math.floor(text.length / 2)) : text);
  }
  state.chat.responseDone(rendering, cache, reply);
  diagnosis.completed(done.id);
  // Stored as soon as it is sent (the same tick): the client's next request, naming it, comes after.
  if (request.store)
    state.responses.put({ response: done, parent: previous, input: request.input, bytes: ex.rawBytes.length + text.length });
  return 200;
}

/** GET /v1/responses/{id} (the stored Response) and DELETE (gone; a response continuing it keeps what it continued). */
export function serveStoredResponse(
  state: ServerState,
  route: { kind: 'responses.retrieve'; id: string } | { kind: 'responses.delete'; id: string },
  res: ServerResponse,
): Sent {
  const stored = state.responses.get(route.id);
  if (!stored) throw new OpenAIFailure(404, `Response with id '${route.id}' not found.`);
  if (route.kind === 'responses.delete') state.responses.delete(route.id);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(route.kind === 'responses.delete' ? { id: route.id, object: 'response', deleted: true } : stored.response));
  return 200;
}
