import { aiSdkConvert } from './convert.js';
import type { AiSdkMessageLike } from './request.js';
import type { Shape } from '../shape.js';
import { aiSdkTelemetry } from './telemetry.js';
import { aiSdkReader } from './view.js';
import { type AiSdkSessionLike, aiSdkDialect } from './dialect.js';

/** The Vercel AI SDK's ModelMessage shape: each provider package renders it for its own API. */
export const aiSdkShape: Shape<AiSdkSessionLike, AiSdkMessageLike> = {
  format: 'ai-sdk',
  label: 'the Vercel AI SDK\'s shape ("format": "ai-sdk")',
  api: "an AI SDK provider's API",
  operation: 'chat',
  conversationField: 'messages',
  messages: (session) => session.messages,
  dialect: aiSdkDialect,
  convert: aiSdkConvert,
  reader: aiSdkReader,
  telemetry: aiSdkTelemetry,
  // The AI SDK provider package renders the request: forkpool marks nothing on it.
  cacheMarks: {},
};
