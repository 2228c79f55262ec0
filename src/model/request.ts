import type { ModelRequest } from './types.js';

/** Where a request's prefix fields come from: a parent session, or a fork's seed. */
export type PrefixSource = Pick<ModelRequest, 'model' | 'systemInstruction' | 'tools' | 'toolConfig' | 'generationConfig'>;

/**
 * A request's prefix fields, the source's own objects, each present only when the source has it:
 * an absent field stays absent, so the request carries exactly the parent's bytes.
 */
export function prefixFields(source: Readonly<PrefixSource>): Omit<ModelRequest, 'contents'> {
  return {
    model: source.model,
    ...(source.systemInstruction !== undefined ? { systemInstruction: source.systemInstruction } : {}),
    ...(source.tools !== undefined ? { tools: source.tools } : {}),
    ...(source.toolConfig !== undefined ? { toolConfig: source.toolConfig } : {}),
    ...(source.generationConfig !== undefined ? { generationConfig: source.generationConfig } : {}),
  };
}
