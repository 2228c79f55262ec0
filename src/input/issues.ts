import type { z } from 'zod';
import { InputError, formatPath, type InputErrorInit } from './errors.js';

/*
 * Zod's default messages ("Invalid input: expected string, received undefined") become plain rules.
 * Passed per parse, so messages a schema states itself still win and nobody else's zod is affected.
 */

const TYPE_NAMES: Record<string, string> = {
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/** A value as a rule names it ("an array", "the number 3", "null"). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? `the number ${value}` : 'a number';
  return `a ${typeof value}`;
}

export const plainWords: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'is required';
      return `must be ${TYPE_NAMES[iss.expected] ?? iss.expected}, not ${describeValue(iss.input)}`;
    case 'too_small': {
      const min = Number(iss.minimum);
      if (iss.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      if (iss.origin === 'array') return `must hold at least ${min} item${min === 1 ? '' : 's'}`;
      return `must be ${iss.inclusive ? 'at least' : 'greater than'} ${min}`;
    }
    case 'too_big':
      return `must be ${iss.inclusive ? 'at most' : 'less than'} ${Number(iss.maximum)}`;
    case 'invalid_value':
      return `must be one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      // A discriminated union whose discriminator matched no option: the field and the values it takes, not zod's text.
      const { discriminator, options } = iss as { discriminator?: unknown; options?: unknown };
      if (typeof discriminator !== 'string' || !Array.isArray(options) || options.length === 0) return undefined;
      const given = typeof iss.input === 'object' && iss.input !== null ? (iss.input as Record<string, unknown>)[discriminator] : undefined;
      const list = options.map((o) => JSON.stringify(o)).join(', ');
      if (given === undefined) return `is required (one of ${list})`;
      return `must be one of ${list}, not ${typeof given === 'string' ? JSON.stringify(given) : describeValue(given)}`;
    }
    default:
      return undefined;
  }
};

/** The first issue of a failed parse, as a located rule. */
export function firstIssue(error: z.ZodError): Pick<InputErrorInit, 'path' | 'rule'> {
  const issue = error.issues[0];
  if (!issue) return { path: '', rule: 'is not valid' };
  const path = [...issue.path];
  // An unknown key is reported at the key itself, so the path points at what to remove.
  if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) path.push(issue.keys[0] ?? '');
  return { path: formatPath(path), rule: issue.message };
}

/** Parses with plain-worded errors, or throws an InputError located in `source`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, source: Pick<InputErrorInit, 'file' | 'line'>): z.output<S> {
  const result = schema.safeParse(value, { error: plainWords });
  if (result.success) return result.data;
  throw new InputError({ ...source, ...firstIssue(result.error) });
}
