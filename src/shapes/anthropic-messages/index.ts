import { anthropicMessagesConvert } from './convert.js';
import type { Shape } from '../shape.js';
import { anthropicMessagesTelemetry } from './telemetry.js';
import { anthropicMessagesReader } from './view.js';
import { placeBreakpoints } from './breakpoints.js';
import { type AnthropicSessionLike, anthropicMessagesDialect } from './dialect.js';
import type { AnthropicMessageLike, AnthropicRequest } from './request.js';

/** Anthropic's Messages API: content blocks, a system field, cache_control breakpoints. */
export const anthropicMessagesShape: Shape<AnthropicSessionLike, AnthropicMessageLike> = {
  format: 'anthropic-messages',
  label: 'Anthropic Messages\' shape ("format": "anthropic-messages")',
  api: "Anthropic's Messages API",
  operation: 'chat',
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: anthropicMessagesDialect,
  convert: anthropicMessagesConvert,
  reader: anthropicMessagesReader,
  telemetry: anthropicMessagesTelemetry,
  cacheMarks: {
    breakpoints(request, shared, parent, ttl) {
      const { body } = request as AnthropicRequest;
      return { ...(request as AnthropicRequest), body: { ...body, messages: placeBreakpoints(body.messages, shared, parent, ttl) } };
    },
  },
};
