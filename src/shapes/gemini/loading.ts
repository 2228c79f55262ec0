import { parseOrThrow } from '../../input/issues.js';
import type { ShapeLoading } from '../shape.js';
import { geminiIntake } from './import.js';
import { type GeminiSession, geminiSessionSchema } from './schema.js';

/** Gemini's sessions checked and its logged requests read: the main thread's side of the shape (shape.ts, ShapeLoading). */
export const geminiLoading: ShapeLoading<GeminiSession> = {
  parse(json, source) {
    parseOrThrow(geminiSessionSchema(), json, source === undefined ? {} : { file: source });
    return json as GeminiSession;
  },
  intake: geminiIntake,
};
