import type { ShapeLoading } from '../shape.js';
import type { AiSdkSessionLike } from './dialect.js';
import { aiSdkIntake } from './import.js';
import { parseAiSdkSession } from './schema.js';

/** AI SDK sessions checked and its logged requests read: the main thread's side of the shape (shape.ts, ShapeLoading). */
export const aiSdkLoading: ShapeLoading<AiSdkSessionLike> = {
  parse: (json, source) => parseAiSdkSession(json, source),
  intake: aiSdkIntake,
};
