import type { ConvertFacet } from '../shape.js';
import { fromHub } from './from-hub.js';
import type { GeminiSession } from './schema.js';
import { toHub } from './to-hub.js';

/*
 * Gemini's shape ⇄ the hub: to-hub.ts reads a session (its parts: read-part.ts), from-hub.ts writes
 * one (its history: history-writer.ts). docs/converting.md states the rules for users.
 */

export const geminiConvert: ConvertFacet<GeminiSession> = {
  toHub,
  fromHub,
  toolCount: (session) => (session.tools ?? []).reduce((n, tool) => n + (tool.functionDeclarations?.length ?? 0), 0),
};
