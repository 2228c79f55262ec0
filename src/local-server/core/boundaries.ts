import { countTokens } from './chain.js';
import type { RenderedPrompt } from './prompt-hash.js';

/**
 * Keys of the prefixes that end at a message (or, for Anthropic, a content block): what the caches
 * written at marked places key their entries by (DashScope's cache_control markers in
 * openai/cache.ts, Anthropic's breakpoints in anthropic/cache.ts).
 */

/** A rendered prompt and where each of its messages (or blocks) ends. */
export interface MessageRendering {
  prompt: RenderedPrompt;
  model: string;
  /** Character offset in the rendering where each message ends. */
  messageEnds: number[];
  /** The chain's mark at each message end (core/chain.ts chainMark): identifies the whole text up to there. */
  marks: string[];
}

export interface Boundary {
  /** Index of the message the prefix ends with. */
  message: number;
  tokens: number;
  /** Identifies model + the whole text up to the end of that message. */
  key: string;
}

/** The key of a prefix: the model and the chain's mark where it ends (also for a prefix past the prompt: a reply). */
export function boundaryKey(model: string, mark: string): string {
  return `${model}\0${mark}`;
}

/** Keys of the prefixes ending at each of `messages` (indexes, ascending). */
export function boundaries(rendering: MessageRendering, messages: readonly number[]): Boundary[] {
  return messages.map((message) => ({
    message,
    tokens: countTokens(rendering.messageEnds[message] as number),
    key: boundaryKey(rendering.model, rendering.marks[message] as string),
  }));
}
