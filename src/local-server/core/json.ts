import { ApiFailure } from './errors.js';
import type { JsonObject } from './types.js';

/**
 * Request bodies as JSON objects, for every dialect: a body that is not one is a 400 with the
 * wording of Google's JSON front end (each dialect writes it in its own error JSON).
 */

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deeper bodies are refused (as Google's JSON front end does); deeper values would overflow the stack when re-serialized. */
const MAX_BODY_DEPTH = 100;

export function parseJsonBody(raw: string): JsonObject {
  let value: unknown;
  try {
    value = raw.length === 0 ? {} : JSON.parse(raw);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // V8 quotes the start of a bad body; keep the message short whatever was sent.
    throw new ApiFailure(400, `Invalid JSON payload received. ${why.length > 200 ? `${why.slice(0, 200)}…` : why}`);
  }
  if (!isObject(value)) throw new ApiFailure(400, 'Invalid JSON payload received. Expected an object at the top level.');
  if (depthExceeds(raw, MAX_BODY_DEPTH)) {
    throw new ApiFailure(400, `Invalid JSON payload received. Nesting is deeper than ${MAX_BODY_DEPTH} levels.`);
  }
  return value;
}

/** Index of the quote closing the string opened at `open` (text.length when none). */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let k = quote - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - k) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * True when valid JSON text nests objects/arrays deeper than `limit`; one pass, no recursion.
 * Strings, most of a prompt's characters, are skipped with indexOf (native) instead of char by char.
 */
function depthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
