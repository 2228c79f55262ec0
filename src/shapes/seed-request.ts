import { dialectFor, type AnyDialect, type ForkSeed, type ModelRequest } from './registry.js';
import type { AnyMessage } from './view.js';

/** The dialect a seed is written in. */
export function seedDialect(seed: Readonly<ForkSeed>): AnyDialect {
  return dialectFor(seed.format);
}

/** A request of the seed's shape with these messages: the seed's own fields, in their order. */
export function seedRequest(seed: Readonly<ForkSeed>, messages: readonly AnyMessage[]): ModelRequest {
  return seedDialect(seed).seedRequest(seed, messages);
}

/** The size of what a seed's requests send besides their messages (instructions, tools, settings), in characters. */
export function seedFieldsChars(seed: Readonly<ForkSeed>): number {
  return seedDialect(seed).seedFieldsChars(seed);
}
