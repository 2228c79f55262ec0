import { CHARS_PER_TOKEN } from '../core/chain.js';
import { bodySpans, bytesOf, elementBytes } from '../core/json-spans.js';
import { hashPrompt, startOf, type HashedPrompt } from '../core/prompt-hash.js';
import { fieldUnits, type FieldSources } from '../core/render.js';
import type { PromptFields } from '../core/types.js';
import type { ServerState } from '../state.js';
import type { StoredCache } from './explicit-cache.js';
import type { GenerateRequest } from './wire.js';

/**
 * The prompt of a Gemini request as the cache sees it: the explicit cache's fields (rendered once,
 * when it was created) or the request's system instruction, tools and tool config, then its
 * contents. With the body's bytes, each field and content is remembered by the bytes it was sent as
 * (core/prefix-memo.ts): a request repeating an earlier one's leading contents hashes only the rest.
 */

/** The explicit cache's fields (if any) followed by the request's own, in request order: what the model reads. */
export function promptFields(request: GenerateRequest, cache: StoredCache | undefined): PromptFields[] {
  if (cache) return [cache.fields, { contents: request.contents }];
  const own: PromptFields = { contents: request.contents };
  if (request.systemInstruction) own.systemInstruction = request.systemInstruction;
  if (request.tools) own.tools = request.tools;
  if (request.toolConfig) own.toolConfig = request.toolConfig;
  return [own];
}

/** `body`: the bytes of a generateContent request whose top level is `request` (undefined: nothing is remembered). */
export function geminiPrompt(
  state: ServerState,
  request: GenerateRequest,
  model: string,
  cache: StoredCache | undefined,
  body: Buffer | undefined,
): HashedPrompt {
  const blockChars = state.cache.config.blockTokens * CHARS_PER_TOKEN;
  const spans = body ? bodySpans(body, 'contents') : undefined;
  const memo = body && spans ? state.prompts : undefined;
  const sources: FieldSources = {};
  if (body && spans) {
    sources.contents = elementBytes(body, spans, request.contents.length);
    sources.systemInstruction = bytesOf(body, spans.members.get('systemInstruction'));
    sources.tools = bytesOf(body, spans.members.get('tools'));
    sources.toolConfig = bytesOf(body, spans.members.get('toolConfig'));
  }
  if (cache) {
    const start = { key: `gemini-cache\0${cache.name}\0${model}\0${blockChars}`, segment: cache.prefix(model) };
    return hashPrompt(fieldUnits({ contents: request.contents }, { contents: sources.contents }), start, blockChars, memo);
  }
  const [own] = promptFields(request, undefined) as [PromptFields];
  return hashPrompt(fieldUnits(own, sources), startOf(`gemini\0${model}\0${blockChars}`, model), blockChars, memo);
}
