import { geminiConvert } from './convert.js';
import type { Shape } from '../shape.js';
import type { Content, GeminiSession } from './schema.js';
import { geminiTelemetry } from './telemetry.js';
import { geminiReader } from './view.js';
import { geminiDialect } from './dialect.js';
import type { GeminiRequest } from './request.js';

/** Gemini's shape (@google/genai): the default, so a session may leave its `format` out. */
export const geminiShape: Shape<GeminiSession, Content> = {
  format: 'gemini',
  label: "Gemini's shape",
  api: "Gemini's API",
  operation: 'generate_content',
  conversationField: 'history',
  messages: (session) => session.history,
  dialect: geminiDialect,
  convert: geminiConvert,
  reader: geminiReader,
  telemetry: geminiTelemetry,
  cacheMarks: {
    // The API rejects cachedContent beside systemInstruction, tools or toolConfig: the cache holds them.
    cachedContent(request, name) {
      const { model, generationConfig, contents } = request as GeminiRequest;
      return { format: 'gemini', model, cachedContent: name, ...(generationConfig ? { generationConfig } : {}), contents };
    },
  },
};
