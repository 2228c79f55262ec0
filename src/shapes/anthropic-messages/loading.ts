import type { ShapeLoading } from '../shape.js';
import type { AnthropicSessionLike } from './dialect.js';
import { anthropicMessagesIntake } from './import.js';
import { parseAnthropicMessagesSession } from './schema.js';

/** Anthropic Messages sessions checked and its logged requests read: the main thread's side of the shape (shape.ts, ShapeLoading). */
export const anthropicMessagesLoading: ShapeLoading<AnthropicSessionLike> = {
  parse: (json, source) => parseAnthropicMessagesSession(json, source) as unknown as AnthropicSessionLike,
  intake: anthropicMessagesIntake,
};
