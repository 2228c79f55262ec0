import type { ChatRequest } from './wire.js';
import { tokenizeRendered, type RenderedPrompt } from '../core/render.js';

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
