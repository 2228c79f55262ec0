import type { z } from 'zod';
import { InputError } from './errors.js';
import { parseOrThrow } from './issues.js';
import { assertSafeJson } from './json.js';

/**
 * Checks a parsed session object of one shape (from a file, or from code) against its schema and
 * returns that same object: a fork sends the parent's objects in the parent's own key order (byte
 * fidelity), so zod's rebuilt copy is thrown away. `fields` sketches the object for the error a
 * non-object gets (`{ "format": "openai-chat", "model", "messages", … }`).
 */
export function checkSessionObject<T>(schema: z.ZodType, json: unknown, fields: string, source: string | undefined): T {
  const at = source === undefined ? {} : { file: source };
  assertSafeJson(json, at);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: `a session must be a JSON object (${fields})` });
  }
  parseOrThrow(schema, json, at);
  return json as T;
}
