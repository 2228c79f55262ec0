import { openAIChatConvert } from './convert.js';
import { placeOpenAIBreakpoints } from '../openai-breakpoints.js';
import type { Shape } from '../shape.js';
import type { ChatMessage, OpenAIChatSession } from './schema.js';
import { openAIChatTelemetry } from './telemetry.js';
import { openAIChatReader } from './view.js';
import { CHAT_MARKS } from './breakpoints.js';
import { markLastShared } from './cache-marker.js';
import { openAIChatDialect } from './dialect.js';

/** OpenAI Chat Completions (and every API that speaks it: DeepSeek, DashScope, vLLM, SGLang). */
export const openAIChatShape: Shape<OpenAIChatSession, ChatMessage> = {
  format: 'openai-chat',
  label: 'OpenAI Chat Completions\' shape ("format": "openai-chat")',
  api: 'OpenAI Chat Completions',
  operation: 'chat',
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: openAIChatDialect,
  convert: openAIChatConvert,
  reader: openAIChatReader,
  telemetry: openAIChatTelemetry,
  cacheMarks: {
    marker: markLastShared,
    openAIBreakpoints: (messages, shared, parentWarm) => placeOpenAIBreakpoints(CHAT_MARKS, messages, shared, parentWarm),
  },
};
