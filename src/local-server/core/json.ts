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

/** True when valid JSON text nests objects/arrays deeper than `limit`; one pass, no recursion. */
function depthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
