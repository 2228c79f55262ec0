import type { Shape } from '../shape.js';
import { anthropicMessagesTelemetry } from './telemetry.js';
import { anthropicMessagesReader } from './view.js';
import { type AnthropicSessionLike, anthropicMessagesDialect } from './dialect.js';
import type { AnthropicMessageLike } from '../../model/types.js';
import { parseAnthropicMessagesSession } from './schema.js';

/** Anthropic's Messages API: content blocks, a system field, cache_control breakpoints. */
export const anthropicMessagesShape: Shape<AnthropicSessionLike, AnthropicMessageLike> = {
  format: 'anthropic-messages',
  label: 'Anthropic Messages\' shape ("format": "anthropic-messages")',
  api: "Anthropic's Messages API",
  parse: (json, source) => parseAnthropicMessagesSession(json, source) as unknown as AnthropicSessionLike,
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: anthropicMessagesDialect,
  reader: anthropicMessagesReader,
  telemetry: anthropicMessagesTelemetry,
};
