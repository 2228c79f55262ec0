import type { ShapeLoading } from '../shape.js';
import type { ResponsesSessionLike } from './dialect.js';
import { openAIResponsesIntake } from './import.js';
import { parseOpenAIResponsesSession } from './schema.js';

/** Responses sessions checked and its logged requests read: the main thread's side of the shape (shape.ts, ShapeLoading). */
export const openAIResponsesLoading: ShapeLoading<ResponsesSessionLike> = {
  parse: (json, source) => parseOpenAIResponsesSession(json, source) as unknown as ResponsesSessionLike,
  intake: openAIResponsesIntake,
};
