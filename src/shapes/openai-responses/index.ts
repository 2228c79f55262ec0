import type { Shape } from '../shape.js';
import { openAIResponsesTelemetry } from './telemetry.js';
import { openAIResponsesReader } from './view.js';
import { openAIResponsesDialect, type ResponsesEntry, type ResponsesSessionLike } from './dialect.js';
import { parseOpenAIResponsesSession } from './schema.js';

/** OpenAI's Responses API: input items (messages, calls, their outputs, reasoning) and instructions. */
export const openAIResponsesShape: Shape<ResponsesSessionLike, ResponsesEntry> = {
  format: 'openai-responses',
  label: 'OpenAI Responses\' shape ("format": "openai-responses")',
  api: "OpenAI's Responses API",
  parse: (json, source) => parseOpenAIResponsesSession(json, source) as unknown as ResponsesSessionLike,
  conversationField: 'input',
  messages: (session) => openAIResponsesDialect.messages(session),
  dialect: openAIResponsesDialect,
  reader: openAIResponsesReader,
  telemetry: openAIResponsesTelemetry,
};
