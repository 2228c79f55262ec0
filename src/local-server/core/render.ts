import type { PromptFields } from './types.js';

/**
 * Deterministic tokenization of a prompt: the prompt-bearing fields rendered in request order
 * (system instruction, tools, tool config, contents), about 4 characters a token, cut into
 * blocks whose keys are chained (each key depends on every character before it).
 */

const CHARS_PER_TOKEN = 4;

export function countTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The rendering of one set of prompt fields (concatenation builds a rope: no repeated copies). */
export function renderFields(fields: PromptFields): string {
  let text = '';
  if (fields.systemInstruction) text += `<system>${JSON.stringify(fields.systemInstruction.parts)}\n`;
  if (fields.tools && fields.tools.length > 0) text += `<tools>${JSON.stringify(fields.tools)}\n`;
  if (fields.toolConfig) text += `<tool_config>${JSON.stringify(fields.toolConfig)}\n`;
  for (const content of fields.contents) {
    text += `<${content.role || 'user'}>${JSON.stringify(content.parts)}\n`;
  }
  return text;
}

interface BlockKeys {
  /** One key per full block, chained: key i identifies the whole text up to the end of block i. */
  keys: number[];
  /** Short hex digest of the whole text (context hash). */
  digest: string;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function seedOf(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Two 32-bit multiplicative lanes over the UTF-16 code units, one pass; a key is taken at every
 * block boundary (53 bits: collisions are negligible at simulator scale). `label` (the model)
 * seeds the chain so different models never share blocks.
 */
function blockKeys(text: string, blockTokens: number, label: string): BlockKeys {
  const blockChars = blockTokens * CHARS_PER_TOKEN;
  const keys: number[] = [];
  let h1 = seedOf(label);
  let h2 = h1 ^ 0x9e3779b9;
  const length = text.length;
  for (let start = 0; start < length; start += blockChars) {
    const end = Math.min(length, start + blockChars);
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 + c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    if (end - start === blockChars) keys.push(fmix(h1) * 0x200000 + (fmix(h2 ^ end) & 0x1fffff));
  }
  const digest = ((fmix(h1 ^ length) ^ fmix(h2)) >>> 0).toString(16).padStart(8, '0');
  return { keys, digest };
}

export interface RenderedPrompt {
  text: string;
  tokens: number;
  keys: number[];
  digest: string;
}

/** Tokens, chained block keys and digest of a rendered prompt; `model` seeds the chain. */
export function tokenizeRendered(text: string, blockTokens: number, model: string): RenderedPrompt {
  const { keys, digest } = blockKeys(text, blockTokens, model);
  return { text, tokens: countTokens(text.length), keys, digest };
}

/** Renders the explicit cache's fields (if any) followed by the request's own. */
export function renderPrompt(parts: readonly PromptFields[], blockTokens: number, model: string): RenderedPrompt {
  let text = '';
  for (const fields of parts) text += renderFields(fields);
  return tokenizeRendered(text, blockTokens, model);
}

/** 8-hex FNV-1a digest of a short string (ids, digests of tool results). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return fmix(h ^ text.length).toString(16).padStart(8, '0');
}
