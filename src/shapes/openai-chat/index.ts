import type { Shape } from '../shape.js';
import { openAIChatTelemetry } from './telemetry.js';
import { openAIChatReader } from './view.js';
import { openAIChatDialect } from './dialect.js';
import { type ChatMessage, type OpenAIChatSession, parseOpenAIChatSession } from './schema.js';

/** OpenAI Chat Completions (and every API that speaks it: DeepSeek, DashScope, vLLM, SGLang). */
export const openAIChatShape: Shape<OpenAIChatSession, ChatMessage> = {
  format: 'openai-chat',
  label: 'OpenAI Chat Completions\' shape ("format": "openai-chat")',
  api: "OpenAI's Chat Completions API",
  parse: (json, source) => parseOpenAIChatSession(json, source),
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: openAIChatDialect,
  reader: openAIChatReader,
  telemetry: openAIChatTelemetry,
};
