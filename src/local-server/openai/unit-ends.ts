import { boundaries, boundaryKey } from '../core/boundaries.js';
import { chainExtend, chainMark, countTokens } from '../core/chain.js';
import { messageText, type ChatRendering } from './render.js';
import type { AssistantReply } from './translate.js';
import type { ChatMessage } from './wire.js';

/**
 * Where a DeepSeek cache prefix unit can end in a rendered prompt, and its key there: at the end of
 * a 64-token block (the chain's block key: intervals, common prefixes) or at the end of a message
 * (the chain's mark: the end of a prompt, the end of a reply). A unit is hit only where one of the
 * request's own ends has its key, so only a whole unit is ever served.
 */

export interface UnitEnd {
  /** A block key (number) or a message-end key (string): the two never collide. */
  key: number | string;
  tokens: number;
}

/** The end of the prompt's first `blocks` blocks. */
export function blockEnd(rendering: ChatRendering, blocks: number, blockTokens: number): UnitEnd {
  return { key: rendering.prompt.keys[blocks - 1] as number, tokens: blocks * blockTokens };
}

/** Every place of this prompt a unit may end at: each full block's end and each message's end. */
export function possibleEnds(rendering: ChatRendering, blockTokens: number): UnitEnd[] {
  const ends: UnitEnd[] = rendering.prompt.keys.map((key, i) => ({ key, tokens: (i + 1) * blockTokens }));
  const messages = rendering.messageEnds.map((_, i) => i);
  for (const b of boundaries(rendering, messages)) ends.push({ key: b.key, tokens: b.tokens });
  return ends;
}

/** "the end position of the user input": the whole rendered prompt (its last message ends it). */
export function promptEnd(rendering: ChatRendering): UnitEnd {
  const last = boundaries(rendering, [rendering.messageEnds.length - 1])[0] as { key: string; tokens: number };
  return { key: last.key, tokens: last.tokens };
}

/**
 * "the end position of the model output": the prompt followed by the reply as the next request of
 * the conversation renders it, `{role: 'assistant', content, tool_calls?}` (content null beside
 * calls), the shape forkpool's engine sends back. A client that sends it back with other JSON (the
 * SDK's message verbatim, with `refusal: null`) renders other text: that unit is then not hit.
 */
export function replyEnd(rendering: ChatRendering, reply: AssistantReply): UnitEnd {
  const message: ChatMessage = { role: 'assistant', content: reply.content, ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}) };
  // No block keys past the prompt are needed: a block no text reaches takes none.
  const state = chainExtend(rendering.prompt.state, messageText(message), Number.MAX_SAFE_INTEGER, []);
  return { key: boundaryKey(rendering.model, chainMark(state)), tokens: countTokens(state.length) };
}
