import { createHash } from 'node:crypto';
import { countTokens, type RenderedPrompt } from './render.js';

/**
 * Keys of the prefixes that end at a message (or, for Anthropic, a content block): what the caches
 * written at marked places key their entries by (DashScope's cache_control markers in
 * openai/cache.ts, Anthropic's breakpoints in anthropic/cache.ts).
 */

/** A rendered prompt and where each of its messages (or blocks) ends. */
export interface MessageRendering {
  prompt: RenderedPrompt;
  model: string;
  /** Character offset in `prompt.text` where each message ends. */
  messageEnds: number[];
}

export interface Boundary {
  /** Index of the message the prefix ends with. */
  message: number;
  tokens: number;
  /** Identifies model + the whole text up to the end of that message. */
  key: string;
}

/** Keys of the prefixes ending at each of `messages` (indexes, ascending), in one pass over the text. */
export function boundaries(rendering: MessageRendering, messages: readonly number[]): Boundary[] {
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
