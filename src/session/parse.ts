import { InputError } from '../input/errors.js';
import { assertSafeJson } from '../input/json.js';
import { loadingOf } from '../shapes/loading.js';
import { type ParentSession, shapeOfInput } from '../shapes/registry.js';

/**
 * Validates an already-parsed session object (from a file or from code) and returns that same
 * object. zod rebuilds the keys it knows in schema order, and a fork must send the parent's
 * objects in the parent's own key order (byte fidelity), so the parsed copy is thrown away.
 */
export function parseSession(json: unknown, source?: string): ParentSession {
  const at = source === undefined ? {} : { file: source };
  assertSafeJson(json, at);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: 'a session must be a JSON object ({ "model", "history", … })' });
  }
  return loadingOf(shapeOfInput(json, source)).parse(json, source) as ParentSession;
}
