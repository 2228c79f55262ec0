import { fmix } from './chain.js';
import type { PromptUnit } from './prompt-hash.js';
import type { PromptFields } from './types.js';

/**
 * Deterministic rendering of a prompt's fields: the prompt-bearing fields in request order
 * (system instruction, tools, tool config, contents), one unit each (each content its own), cut
 * into chained blocks by core/prompt-hash.ts.
 */

/** The bytes each field was sent as, when known (core/json-spans.ts). */
export interface FieldSources {
  systemInstruction?: Uint8Array | undefined;
  tools?: Uint8Array | undefined;
  toolConfig?: Uint8Array | undefined;
  /** One per content, or none. */
  contents?: readonly Uint8Array[] | undefined;
}

function unit(kind: string, source: Uint8Array | undefined, render: () => string): PromptUnit {
  return { kind, source, marked: false, render: () => [render()] };
}

export function fieldUnits(fields: PromptFields, sources: FieldSources = {}): PromptUnit[] {
  const units: PromptUnit[] = [];
  const { systemInstruction, tools, toolConfig } = fields;
  if (systemInstruction)
    units.push(unit('system', sources.systemInstruction, () => `<system>${JSON.stringify(systemInstruction.parts)}\n`));
  if (tools && tools.length > 0) units.push(unit('tools', sources.tools, () => `<tools>${JSON.stringify(tools)}\n`));
  if (toolConfig) units.push(unit('tool_config', sources.toolConfig, () => `<tool_config>${JSON.stringify(toolConfig)}\n`));
  fields.contents.forEach((content, i) => {
    units.push(unit('content', sources.contents?.[i], () => `<${content.role || 'user'}>${JSON.stringify(content.parts)}\n`));
  });
  return units;
}

/** 8-hex FNV-1a digest of a short string (ids, digests of tool results). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return fmix(h ^ text.length)
    .toString(16)
    .padStart(8, '0');
}
