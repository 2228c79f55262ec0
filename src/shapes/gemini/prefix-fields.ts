import type { GeminiRequest } from '../../model/types.js';

/** Where a Gemini request's prefix fields come from: a parent session, or a fork's seed. */
export type PrefixSource = Pick<GeminiRequest, 'model' | 'systemInstruction' | 'tools' | 'toolConfig' | 'generationConfig'>;

/** A Gemini request without its contents (and without an explicit cache). */
export type PrefixFields = Omit<GeminiRequest, 'format' | 'contents' | 'cachedContent'>;

/**
 * A request's prefix fields, the source's own objects, each present only when the source has it:
 * an absent field stays absent, so the request carries exactly the parent's bytes.
 */
export function prefixFields(source: Readonly<PrefixSource>): PrefixFields {
  return {
    model: source.model,
    ...(source.systemInstruction !== undefined ? { systemInstruction: source.systemInstruction } : {}),
    ...(source.tools !== undefined ? { tools: source.tools } : {}),
    ...(source.toolConfig !== undefined ? { toolConfig: source.toolConfig } : {}),
    ...(source.generationConfig !== undefined ? { generationConfig: source.generationConfig } : {}),
  };
}
