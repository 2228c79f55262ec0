import { z } from 'zod';
import { failure, type Failure } from '../input/failure.js';

/*
 * Checking a fork's final answer against its task's output schema. A module of its own, which a
 * fork's thread imports at its first structured answer: zod is loaded then, never with the thread
 * (the built worker keeps this file apart: scripts/bundle-worker.mjs).
 */

type OutputProblem = 'not_json' | 'schema_unusable' | 'schema_mismatch';
type SchemaCheck = { ok: true; value: unknown } | { ok: false; error: Failure<OutputProblem> };

/** Parses the final answer (a bare value or one fenced block) and validates it. */
export function checkOutput(text: string, schema: Record<string, unknown>): SchemaCheck {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const candidate = (fenced?.[1] ?? text).trim();
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch {
    return { ok: false, error: failure('not_json', 'the answer is not valid JSON') };
  }
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return {
      ok: false,
      error: failure('schema_unusable', `the output schema cannot be used: ${err instanceof Error ? err.message : String(err)}`),
    };
  }
  const parsed = validator.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: failure('schema_mismatch', issues) };
}
