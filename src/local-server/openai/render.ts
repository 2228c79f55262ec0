import type { ChatContentPart, ChatMessage, ChatRequest } from './wire.js';
import type { MessageRendering } from '../core/boundaries.js';
import { CHARS_PER_TOKEN } from '../core/chain.js';
import { bodySpans, bytesOf, elementBytes } from '../core/json-spans.js';
import { hashPrompt, startOf, type HashedPrompt, type PromptUnit, type SentBody } from '../core/prompt-hash.js';

/**
 * The prompt of a Chat Completions request as the simulated cache sees it: the tool declarations
 * first (providers render them ahead of the conversation, so changing a tool invalidates it all),
 * then each message as the JSON it was sent as, in request order. A change anywhere invalidates
 * every block after it. With the body's bytes, each message is remembered by the bytes it was sent
 * as (core/prefix-memo.ts): a request repeating an earlier one's leading messages hashes only the rest.
 */

/**
 * With `atParts` (OpenAI's models that cache at breakpoints) every content part ends a piece, so a
 * breakpoint on any part has its boundary: `messageEnds`/`marks` are then per part, and `parts` says
 * which message and part each one ends and whether it carries a breakpoint.
 */
export interface ChatRendering extends MessageRendering {
  /** With the chain after the whole prompt: what a reply appended to it renders to (unit-ends.ts). */
  prompt: HashedPrompt;
  parts?: RenderedPart[];
}

interface RenderedPart {
  message: number;
  breakpoint: boolean;
}

/**
 * A message as the cache sees it at parts: its fields but the content, then each part; a text part
 * is its text (a string content is one text part: the same tokens), and no part's breakpoint is
 * part of it (a marker moves no token).
 */
function messagePieces(message: ChatMessage): { pieces: string[]; breakpoints: boolean[] } {
  const { content, ...fields } = message;
  const head = `${JSON.stringify(fields)}\n`;
  const parts: readonly ChatContentPart[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  if (parts.length === 0) return { pieces: [head], breakpoints: [false] };
  const pieces = parts.map((part, i) => {
    const { prompt_cache_breakpoint: _marker, ...rest } = part;
    const text = rest.type === 'text' && typeof rest.text === 'string' ? rest.text : JSON.stringify(rest);
    return i === 0 ? `${head}${text}` : text;
  });
  return { pieces, breakpoints: parts.map((part) => part.prompt_cache_breakpoint !== undefined) };
}

/** A message as the cache sees it (not at parts): the JSON it was sent as, one line. */
export function messageText(message: ChatMessage): string {
  return `${JSON.stringify(message)}\n`;
}

export function renderChat(request: ChatRequest, blockTokens: number, sent?: SentBody, atParts = false): ChatRendering {
  const spans = sent ? bodySpans(sent.bytes, 'messages') : undefined;
  const messages = sent && spans ? elementBytes(sent.bytes, spans, request.messages.length) : undefined;
  const units: PromptUnit[] = [];
  const { tools } = request;
  if (tools && tools.length > 0) {
    const source = sent && spans ? bytesOf(sent.bytes, spans.members.get('tools')) : undefined;
    units.push({ kind: 'chat.tools', source, marked: false, render: () => [`<tools>${JSON.stringify(tools)}\n`] });
  }
  const parts: RenderedPart[] = [];
  request.messages.forEach((message, i) => {
    if (!atParts) {
      units.push({ kind: 'chat.message', source: messages?.[i], marked: true, render: () => [messageText(message)] });
      return;
    }
    const { pieces, breakpoints } = messagePieces(message);
    for (const breakpoint of breakpoints) parts.push({ message: i, breakpoint });
    units.push({ kind: 'chat.message.parts', source: messages?.[i], marked: true, render: () => pieces });
  });
  const blockChars = blockTokens * CHARS_PER_TOKEN;
  const start = startOf(`chat${atParts ? '.parts' : ''}\0${request.model}\0${blockChars}`, request.model);
  const prompt = hashPrompt(units, start, blockChars, spans ? sent?.memo : undefined);
  return { prompt, model: request.model, messageEnds: prompt.ends, marks: prompt.marks, ...(atParts ? { parts } : {}) };
}
