import { openAIResponsesConvert } from './convert.js';
import { placeOpenAIBreakpoints } from '../openai-breakpoints.js';
import type { Shape } from '../shape.js';
import { openAIResponsesTelemetry } from './telemetry.js';
import { openAIResponsesReader } from './view.js';
import { RESPONSES_MARKS } from './breakpoints.js';
import { openAIResponsesDialect, type ResponsesEntry, type ResponsesSessionLike } from './dialect.js';
import type { OpenAIResponsesRequest } from './request.js';

/** OpenAI's Responses API: input items (messages, calls, their outputs, reasoning) and instructions. */
export const openAIResponsesShape: Shape<ResponsesSessionLike, ResponsesEntry> = {
  format: 'openai-responses',
  label: 'OpenAI Responses\' shape ("format": "openai-responses")',
  api: "OpenAI's Responses API",
  operation: 'chat',
  conversationField: 'input',
  messages: (session) => openAIResponsesDialect.messages(session),
  dialect: openAIResponsesDialect,
  convert: openAIResponsesConvert,
  reader: openAIResponsesReader,
  telemetry: openAIResponsesTelemetry,
  cacheMarks: {
    openAIBreakpoints: (messages, shared, parentWarm) => placeOpenAIBreakpoints(RESPONSES_MARKS, messages, shared, parentWarm),
    storedResponse(request, responseId) {
      const base = request as OpenAIResponsesRequest;
      return { ...base, body: { ...base.body, previous_response_id: responseId } };
    },
    storedResponseItems: (request) => (request as OpenAIResponsesRequest).body.input.length,
  },
};
