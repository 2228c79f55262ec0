import type { ShapeLoading } from '../shape.js';
import { openAIChatIntake } from './import.js';
import { type OpenAIChatSession, parseOpenAIChatSession } from './schema.js';

/** Chat Completions sessions checked and its logged requests read: the main thread's side of the shape (shape.ts, ShapeLoading). */
export const openAIChatLoading: ShapeLoading<OpenAIChatSession> = {
  parse: (json, source) => parseOpenAIChatSession(json, source),
  intake: openAIChatIntake,
};
