import type { ModelRequest } from '../model/types.js';
import { prefixFields, type PrefixSource } from './gemini/prefix-fields.js';
import type { Dialect } from './dialect.js';
import { dialectFor } from './registry.js';
import type { AnyMessage } from './view.js';

/**
 * A fork's seed as its requests read it (src/fork's ForkSeed is one): Gemini's carries its prefix
 * fields itself, the other shapes the session whose fields every request repeats.
 */
export type SeedFields =
  | ({ format: 'gemini' } & PrefixSource)
  | { format: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'ai-sdk'; session: Readonly<Record<string, unknown>> };

/** The dialect a seed is written in. */
export function seedDialect(seed: SeedFields): Dialect<AnyMessage, unknown> {
  return dialectFor(seed.format);
}

/** A request of the seed's shape with these messages: the seed's own fields, in their order. */
export function seedRequest(seed: SeedFields, messages: readonly AnyMessage[]): ModelRequest {
  return seedDialect(seed).request(seed.format === 'gemini' ? seed : seed.session, messages);
}

/** The size of what a seed's requests send besides their messages (instructions, tools, settings), in characters. */
export function seedFieldsChars(seed: SeedFields): number {
  if (seed.format !== 'gemini') {
    const { messages: _messages, format: _format, ...fields } = seed.session;
    return JSON.stringify(fields).length;
  }
  const fixed = prefixFields(seed);
  return JSON.stringify([fixed.systemInstruction ?? null, fixed.tools ?? null, fixed.toolConfig ?? null]).length;
}
