import { parseOrThrow } from '../../input/issues.js';
import type { Shape } from '../shape.js';
import { geminiTelemetry } from './telemetry.js';
import { geminiReader } from './view.js';
import { geminiDialect } from './dialect.js';
import { type Content, type GeminiSession, GeminiSessionSchema } from './schema.js';

/** Gemini's shape (@google/genai): the default, so a session may leave its `format` out. */
export const geminiShape: Shape<GeminiSession, Content> = {
  format: 'gemini',
  label: "Gemini's shape",
  api: "Gemini's API",
  parse(json, source) {
    parseOrThrow(GeminiSessionSchema, json, source === undefined ? {} : { file: source });
    return json as GeminiSession;
  },
  conversationField: 'history',
  messages: (session) => session.history,
  dialect: geminiDialect,
  reader: geminiReader,
  telemetry: geminiTelemetry,
};
