import { createHash } from 'node:crypto';
import type { ChatRequest } from './wire.js';
import { countTokens, tokenizeRendered, type RenderedPrompt } from '../core/render.js';

/**
 * The prompt of a Chat Completions request as the simulated cache sees it: the tool declarations
 * first (providers render them ahead of the conversation, so changing a tool invalidates it all),
 * then each message as the JSON it was sent as, in request order. A change anywhere invalidates
 * every block after it.
 */

export interface ChatRendering {
  prompt: RenderedPrompt;
  model: string;
  /** Character offset in `prompt.text` where each message ends. */
  messageEnds: number[];
}

export function renderChat(request: ChatRequest, blockTokens: number): ChatRendering {
  let text = '';
  if (request.tools && request.tools.length > 0) text += `<tools>${JSON.stringify(request.tools)}\n`;
  const messageEnds: number[] = [];
  for (const message of request.messages) {
    text += `${JSON.stringify(message)}\n`;
    messageEnds.push(text.length);
  }
  return { prompt: tokenizeRendered(text, blockTokens, request.model), model: request.model, messageEnds };
}

export interface Boundary {
  /** Index of the message the prefix ends with. */
  message: number;
  tokens: number;
  /** Identifies model + the whole text up to the end of that message. */
  key: string;
}

/** Keys of the prefixes ending at each of `messages` (indexes, ascending), in one pass over the text. */
export function boundaries(rendering: ChatRendering, messages: readonly number[]): Boundary[] {
  const hash = createHash('sha1').update(rendering.model).update('\0');
  const out: Boundary[] = [];
  let at = 0;
  for (const message of messages) {
    const end = rendering.messageEnds[message] as number;
    hash.update(rendering.prompt.text.slice(at, end));
    at = end;
    out.push({ message, tokens: countTokens(end), key: hash.copy().digest('hex') });
  }
  return out;
}
