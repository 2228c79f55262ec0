import type { AiSdkMessageLike } from '../../model/types.js';
import type { Shape } from '../shape.js';
import { aiSdkTelemetry } from './telemetry.js';
import { aiSdkReader } from './view.js';
import { type AiSdkSessionLike, aiSdkDialect } from './dialect.js';
import { parseAiSdkSession } from './schema.js';

/** The Vercel AI SDK's ModelMessage shape: each provider package renders it for its own API. */
export const aiSdkShape: Shape<AiSdkSessionLike, AiSdkMessageLike> = {
  format: 'ai-sdk',
  label: 'the Vercel AI SDK\'s shape ("format": "ai-sdk")',
  api: "an AI SDK provider's API",
  parse: (json, source) => parseAiSdkSession(json, source),
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: aiSdkDialect,
  reader: aiSdkReader,
  telemetry: aiSdkTelemetry,
};
