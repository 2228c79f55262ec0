import type { SeedBase } from '../seed.js';
import type { Content, GeminiSession, GeminiTool, SystemInstruction } from './schema.js';

/** One model call, in Gemini's shapes. Prefix fields are the parent's, verbatim. */
export interface GeminiRequest {
  format: 'gemini';
  model: string;
  systemInstruction?: unknown;
  tools?: readonly unknown[];
  toolConfig?: unknown;
  generationConfig?: Readonly<Record<string, unknown>>;
  contents: readonly Content[];
  /** Explicit cache name; the prefix fields above must then be absent (the API rejects both). */
  cachedContent?: string;
}

/** The pieces of a fork's first model request, for a Gemini-shaped session. */
export interface GeminiForkSeed extends SeedBase<Content> {
  format: 'gemini';
  systemInstruction?: SystemInstruction;
  tools?: GeminiTool[];
  toolConfig?: GeminiSession['toolConfig'];
  generationConfig?: GeminiSession['generationConfig'];
}
