import { outputTokens, streamPieces, type Exchange, type Sent } from '../core/exchange.js';
import { invalid } from './errors.js';
import { modelResource, type StoredCache } from './explicit-cache.js';
import { decodeMs, delay, prefillMs } from '../core/latency.js';
import { planResponse } from '../core/model.js';
import type { GenerateRoute } from './routes.js';
import { geminiPrompt, promptFields } from './prompt.js';
import { applyFaults, type FaultMessages } from '../core/request-faults.js';
import type { ServerState } from '../state.js';
import type { JsonObject, WirePart } from '../core/types.js';
import type { GenerateRequest, GenerateResponse, UsageMetadata } from './wire.js';
import { validateCountTokensRequest, validateGenerateRequest } from './validate.js';

/** generateContent, streamGenerateContent and countTokens. */

const JSON_HEADERS = { 'content-type': 'application/json; charset=UTF-8' } as const;

function resolveExplicit(state: ServerState, request: GenerateRequest, model: string): StoredCache | undefined {
  if (request.cachedContent === undefined) return undefined;
  if (request.systemInstruction || request.tools || request.toolConfig) {
    throw invalid(
      'CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\n' +
        'Proposed fix: move those values to CachedContent from GenerateContent request.',
    );
  }
  const cache = state.explicit.get(request.cachedContent);
  if (cache.model !== modelResource(model)) {
    throw invalid(`Model used by GenerateContent request (${modelResource(model)}) and CachedContent (${cache.model}) has to be the same.`);
  }
  return cache;
}

function usage(prompt: number, cached: number, candidates: number): UsageMetadata {
  const meta: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
  };
  // The real API leaves cachedContentTokenCount out when nothing was cached.
  if (cached > 0) {
    meta.cachedContentTokenCount = cached;
    meta.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: cached }];
  }
  return meta;
}

const GEMINI_FAULT_MESSAGES: FaultMessages = {
  '429': 'Resource has been exhausted (e.g. check quota).',
  '500': 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  '503': 'The model is overloaded. Please try again later.',
};

export async function serveGenerate(state: ServerState, route: GenerateRoute, body: JsonObject, ex: Exchange): Promise<Sent> {
  const request = validateGenerateRequest(body);
  const cache = resolveExplicit(state, request, route.model);
  const fields = promptFields(request, cache);
  const rendered = geminiPrompt(state, request, route.model, cache, ex.rawBytes);
  const plan = planResponse({ fields, digest: rendered.digest, maxOutputTokens: maxOutputTokensOf(request) });
  // "MAX_TOKENS: The maximum number of tokens as specified in the request was reached."
  const finishReason = plan.cut ? 'MAX_TOKENS' : 'STOP';

  const fault = applyFaults(state, plan.fail, { scope: route.model, rawBody: ex.rawBody, res: ex.res }, GEMINI_FAULT_MESSAGES);
  if (fault === 'drop') return 0;

  const cached = cache ? cache.tokens : state.cache.lookup(rendered.keys, rendered.tokens);
  const extra = fault === 'slow' ? state.faults.slowMs : 0;
  if (!(await delay(prefillMs(state.latency, rendered.tokens - cached, cached) + extra, ex.signal))) return 0;
  if (!cache) state.cache.admit(rendered.keys, rendered.tokens);
  if (!(await delay(plan.sleepMs, ex.signal))) return 0;

  const candidates = outputTokens(plan.parts);
  state.metrics.usage(rendered.tokens, cached, candidates);
  const meta = usage(rendered.tokens, cached, candidates);
  const head = {
    modelVersion: route.model.replace(/^models\//, ''),
    responseId: `lsr-${state.nextResponse().toString(36)}-${rendered.digest}`,
  };

  if (route.kind === 'generateContent') {
    if (!(await delay(decodeMs(state.latency, candidates), ex.signal))) return 0;
    const response: GenerateResponse = {
      candidates: [{ content: { role: 'model', parts: plan.parts }, finishReason, index: 0 }],
      usageMetadata: meta,
      ...head,
    };
    ex.res.writeHead(200, JSON_HEADERS);
    const text = JSON.stringify(response);
    ex.res.end(fault === 'malformed' ? text.slice(0, Math.floor(text.length / 2)) : text);
    return 200;
  }

  ex.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = streamPieces(plan.parts);
  let sentTokens = 0;
  for (let i = 0; i < pieces.length; i++) {
    const parts = pieces[i] as WirePart[];
    const last = i === pieces.length - 1;
    const tokens = last ? candidates - sentTokens : outputTokens(parts);
    if (!(await delay(decodeMs(state.latency, tokens), ex.signal))) return 0;
    sentTokens += tokens;
    const chunk: GenerateResponse = {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason } : {}) }],
      usageMetadata: usage(rendered.tokens, cached, last ? candidates : sentTokens),
      ...head,
    };
    const data = JSON.stringify(chunk);
    if (fault === 'malformed' && last) ex.res.write(`data: ${data.slice(0, Math.floor(data.length / 2))}\r\n\r\n`);
    else ex.res.write(`data: ${data}\r\n\r\n`);
  }
  ex.res.end();
  return 200;
}

/** `generationConfig.maxOutputTokens`, when the request set it. */
function maxOutputTokensOf(request: GenerateRequest): number | undefined {
  const limit = request.generationConfig?.maxOutputTokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) ? limit : undefined;
}

export function serveCountTokens(state: ServerState, model: string, body: JsonObject, ex: Exchange): Sent {
  const request = validateCountTokensRequest(body);
  const cache = resolveExplicit(state, request, model);
  // countTokens nests its request (generateContentRequest): its bytes are not the request's, nothing is remembered.
  const rendered = geminiPrompt(state, request, model, cache, undefined);
  const response: { totalTokens: number; cachedContentTokenCount?: number; promptTokensDetails: UsageMetadata['promptTokensDetails'] } = {
    totalTokens: rendered.tokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: rendered.tokens }],
  };
  if (cache) response.cachedContentTokenCount = cache.tokens;
  ex.res.writeHead(200, JSON_HEADERS);
  ex.res.end(JSON.stringify(response));
  return 200;
}
