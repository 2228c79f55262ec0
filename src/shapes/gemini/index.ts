import { geminiConvert } from './convert.js';
import { parseOrThrow } from '../../input/issues.js';
import type { Shape } from '../shape.js';
import { geminiIntake } from './import.js';
import { geminiTelemetry } from './telemetry.js';
import { geminiReader } from './view.js';
import { geminiDialect } from './dialect.js';
import type { GeminiRequest } from './request.js';
import { type Content, type GeminiSession, geminiSessionSchema } from './schema.js';

/** Gemini's shape (@google/genai): the default, so a session may leave its `format` out. */
export const geminiShape: Shape<GeminiSession, Content> = {
  format: 'gemini',
  label: "Gemini's shape",
  api: "Gemini's API",
  parse(json, source) {
    parseOrThrow(geminiSessionSchema(), json, source === undefined ? {} : { file: source });
    return json as GeminiSession;
  },
  operation: 'generate_content',
  conversationField: 'history',
  messages: (session) => session.history,
  dialect: geminiDialect,
  convert: geminiConvert,
  intake: geminiIntake,
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
