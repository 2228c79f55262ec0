/** What the option schemas say of an option: its schema at a path, its default, its values. */
import { z } from 'zod';
import { optionDocs } from './option-doc.js';

/** The schema under optional, default, transform and check wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

export function objectAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodObject | undefined {
  const s = leafAt(schema, path);
  return s instanceof z.ZodObject ? s : undefined;
}

/** The schema of the value at `path` (unwrapped), or undefined when the path leads nowhere. */
export function leafAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    s = s instanceof z.ZodObject ? (s.shape[key as string] as z.ZodType | undefined) : undefined;
    if (s === undefined) return undefined;
    s = unwrap(s);
  }
  return s;
}

/** The option's schema as declared (with its doc and default), at a path such as ['retry', 'maxAttempts']. */
export function declaredAt(schema: z.ZodObject, path: readonly string[]): z.ZodType {
  const parent = path.length === 1 ? schema : leafAt(schema, path.slice(0, -1));
  const declared = parent instanceof z.ZodObject ? (parent.shape[path[path.length - 1] as string] as z.ZodType | undefined) : undefined;
  if (declared === undefined) throw new Error(`no option ${path.join('.')}`);
  return declared;
}

/** What an option is when it is absent: its fixed default, or who decides (undefined: neither, no default). */
export type OptionDefault = { value: string | number | boolean } | { text: string } | undefined;

export function defaultOf(schema: z.ZodObject, path: readonly string[]): OptionDefault {
  const declared = declaredAt(schema, path);
  const text = optionDocs.get(declared)?.defaultText;
  if (text !== undefined) return { text };
  let s: z.ZodType = declared;
  while (s instanceof z.ZodOptional || s instanceof z.ZodPipe) s = s instanceof z.ZodPipe ? (s.in as z.ZodType) : (s.unwrap() as z.ZodType);
  if (!(s instanceof z.ZodDefault)) return undefined;
  const value: unknown = s.def.defaultValue;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? { value } : undefined;
}

/** What the value of an option may be, as a flag's help and the docs say it: its values, or its range. */
export type OptionValues =
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'integer'; min: number; max: number | undefined }
  | { kind: 'number'; above: 0 }
  | { kind: 'boolean' }
  | { kind: 'other' };

export function valuesOf(schema: z.ZodObject, path: readonly string[]): OptionValues {
  const leaf = leafAt(schema, path);
  if (leaf instanceof z.ZodEnum) return { kind: 'enum', values: leaf.options.map(String) };
  if (leaf instanceof z.ZodBoolean) return { kind: 'boolean' };
  if (leaf instanceof z.ZodNumber) {
    if (!leaf.isInt) return { kind: 'number', above: 0 };
    const max = leaf.maxValue ?? Number.MAX_SAFE_INTEGER;
    return { kind: 'integer', min: leaf.minValue ?? 0, max: max < Number.MAX_SAFE_INTEGER ? max : undefined };
  }
  return { kind: 'other' };
}
