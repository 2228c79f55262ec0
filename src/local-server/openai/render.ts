import type { ChatRequest } from './wire.js';
import type { MessageRendering } from '../core/boundaries.js';
import { CHARS_PER_TOKEN } from '../core/chain.js';
import { bodySpans, bytesOf, elementBytes } from '../core/json-spans.js';
import { hashPrompt, startOf, type PromptUnit, type SentBody } from '../core/prompt-hash.js';

/**
 * The prompt of a Chat Completions request as the simulated cache sees it: the tool declarations
 * first (providers render them ahead of the conversation, so changing a tool invalidates it all),
 * then each message as the JSON it was sent as, in request order. A change anywhere invalidates
 * every block after it. With the body's bytes, each message is remembered by the bytes it was sent
 * as (core/prefix-memo.ts): a request repeating an earlier one's leading messages hashes only the rest.
 */

export type ChatRendering = MessageRendering;

export function renderChat(request: ChatRequest, blockTokens: number, sent?: SentBody): ChatRendering {
  const spans = sent ? bodySpans(sent.bytes, 'messages') : undefined;
  const messages = sent && spans ? elementBytes(sent.bytes, spans, request.messages.length) : undefined;
  const units: PromptUnit[] = [];
  const { tools } = request;
  if (tools && tools.length > 0) {
    const source = sent && spans ? bytesOf(sent.bytes, spans.members.get('tools')) : undefined;
    units.push({ kind: 'chat.tools', source, marked: false, render: () => [`<tools>${JSON.stringify(tools)}\n`] });
  }
  request.messages.forEach((message, i) => {
    units.push({ kind: 'chat.message', source: messages?.[i], marked: true, render: () => [`${JSON.stringify(message)}\n`] });
  });
  const blockChars = blockTokens * CHARS_PER_TOKEN;
  const start = startOf(`chat\0${request.model}\0${blockChars}`, request.model);
  const prompt = hashPrompt(units, start, blockChars, spans ? sent?.memo : undefined);
  return { prompt, model: request.model, messageEnds: prompt.ends, marks: prompt.marks };
}
