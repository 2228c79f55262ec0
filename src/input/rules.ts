import { z } from 'zod';
import { describeValue, plainWords } from './issues.js';

/*
 * Plain-words validation helpers shared by the session schemas (Gemini's, openai-chat's and
 * anthropic-messages'): each states the rule a value broke in the words the loader prints after
 * file, line and path, instead of zod's defaults.
 */

export const nonEmpty = (what: string) => z.string().min(1, { error: `${what} must not be empty` });

export const JsonObjectSchema = z.record(z.string(), z.unknown(), {
  error: (iss) => (iss.input === undefined ? 'is required' : 'must be a JSON object'),
});

export const positiveInteger = z
  .number({ error: 'must be a positive integer' })
  .int({ error: 'must be a positive integer' })
  .positive({ error: 'must be a positive integer' });

const quoted = (words: readonly string[]) => words.map((w) => JSON.stringify(w)).join(', ');

/** `"a", "b" or "c"` */
export function choices(words: readonly string[]): string {
  const q = words.map((w) => JSON.stringify(w));
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q.at(-1)}`;
}

/** A kind as a rule names it: a string quoted, anything else described. */
export const kindOf = (kind: unknown) => (typeof kind === 'string' ? JSON.stringify(kind) : describeValue(kind));

/** The error of a strict object: an unknown key is named (the path points at it), with the keys it takes. */
export function strictFields(what: string, allowed: readonly string[], hints: Record<string, string> = {}) {
  return {
    error: (iss: z.core.$ZodRawIssue) => {
      if (iss.code !== 'unrecognized_keys') return undefined;
      const keys = iss.keys as string[];
      const key = keys.length === 1 ? (keys[0] ?? '') : undefined;
      if (key !== undefined && Object.hasOwn(hints, key)) return hints[key];
      const subject = keys.length === 1 ? `is not a field of ${what}` : `${quoted(keys)} are not fields of ${what}`;
      return `${subject} (allowed: ${allowed.join(', ')})`;
    },
  };
}

/** Runs `schema` on a value of a custom check, keeping each inner issue and its path (worded by the loader's plain-words map). */
export function pushIssuesOf(schema: z.ZodType, value: unknown, issues: z.core.$ZodRawIssue[]): void {
  const result = schema.safeParse(value, { error: plainWords });
  if (result.success) return;
  for (const issue of result.error.issues) issues.push({ ...issue, input: value } as z.core.$ZodRawIssue);
}

type JsonTypeInput<B> = z.input<NonNullable<B[keyof B]>>;

/**
 * A value that is a string, an array or an object, each validated by its own schema. zod's union
 * would report a bad part deep inside an array as "Invalid input" on the whole value; this keeps
 * the inner issue and its path.
 */
export function byJsonType<B extends { string?: z.ZodType; array?: z.ZodType; object?: z.ZodType }>(
  expected: string,
  branches: B,
): z.ZodCustom<JsonTypeInput<B>, JsonTypeInput<B>> {
  return z.custom<JsonTypeInput<B>>().check((ctx) => {
    const value: unknown = ctx.value;
    const kind =
      typeof value === 'string'
        ? 'string'
        : Array.isArray(value)
          ? 'array'
          : value !== null && typeof value === 'object'
            ? 'object'
            : undefined;
    const branch = kind === undefined ? undefined : branches[kind];
    if (!branch) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: value === undefined ? 'is required' : `must be ${expected}, not ${describeValue(value)}`,
      });
      return;
    }
    pushIssuesOf(branch, value, ctx.issues);
  });
}

/** The error of a discriminated union whose discriminator matched no option. */
export function unknownKind(
  key: string,
  what: string,
  allowed: readonly string[],
  refused: Record<string, string> = {},
): { error: (iss: z.core.$ZodRawIssue) => string | undefined } {
  return {
    error: (iss) => {
      if (iss.code === 'invalid_type') return `${what} must be a JSON object, not ${describeValue(iss.input)}`;
      // A discriminated union reports invalid_union only when the discriminator matched no option.
      if (iss.code !== 'invalid_union') return undefined;
      const input = iss.input as Record<string, unknown>;
      const kind = input[key];
      if (kind === undefined) return `is required (allowed: ${choices(allowed)})`;
      if (typeof kind === 'string' && Object.hasOwn(refused, kind)) return refused[kind];
      return `must be ${choices(allowed)}, not ${kindOf(kind)}`;
    },
  };
}

export type KindInput<K> = z.input<NonNullable<K[keyof K]>>;

/**
 * An object validated by the schema of its `key` ("type" or "role"), each reported at its own path.
 * A kind in `refused` gets its own rule; any other unknown kind gets the list of the kinds taken here.
 */
export function byKind<K extends Record<string, z.ZodType>>(
  key: 'type' | 'role',
  what: string,
  kinds: K,
  refused: Record<string, string> = {},
): z.ZodCustom<KindInput<K>, KindInput<K>> {
  const allowed = Object.keys(kinds);
  return z.custom<KindInput<K>>().check((ctx) => {
    const value: unknown = ctx.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: value === undefined ? 'is required' : `${what} must be a JSON object, not ${describeValue(value)}`,
      });
      return;
    }
    const kind = (value as Record<string, unknown>)[key];
    const branch = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (branch) {
      pushIssuesOf(branch, value, ctx.issues);
      return;
    }
    const message =
      kind === undefined
        ? `is required (allowed: ${choices(allowed)})`
        : typeof kind === 'string' && Object.hasOwn(refused, kind)
          ? (refused[kind] ?? '')
          : `must be ${choices(allowed)}, not ${kindOf(kind)}`;
    ctx.issues.push({ code: 'custom', input: kind, path: [key], message });
  });
}

/** Unknown keys in words: which are not fields of `what`, the allowed ones, and why only those. */
export function unknownKeysRule(keys: readonly string[], what: string, allowed: readonly string[], why: string): string {
  const list = keys.map((k) => JSON.stringify(k)).join(', ');
  const subject = keys.length === 1 ? `is not a ${what} field` : `${list} are not ${what} fields`;
  return `${subject} (allowed: ${allowed.join(', ')}); ${why}`;
}
