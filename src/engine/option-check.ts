import { z } from 'zod';
import { leafAt, objectAt } from './option-read.js';
import { markForkpool } from '../input/forkpool-error.js';

/** Who an error names: `ForkEngine: options`, `ForkEngine.fanOut: options`. */
export interface OptionsSubject {
  /** How a value at this path is named. */
  value(path: readonly PropertyKey[]): string;
  /** How an unknown key at this path is named (default: as a value). */
  key?(path: readonly PropertyKey[]): string;
}

/** The options, checked against their schema: the parsed value (defaults applied), or a TypeError or RangeError naming the first wrong option. */
export function optionsOf<S extends z.ZodType>(schema: S, value: unknown, subject: OptionsSubject): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  // A misspelt name first: the value errors that came with it may be its consequence.
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? (issues[0] as z.core.$ZodIssue);
  throw markForkpool(optionError(schema, issue, subject), 'invalid_option');
}

function optionError(schema: z.ZodType, issue: z.core.$ZodIssue, subject: OptionsSubject): TypeError | RangeError {
  const path = issue.path;
  const name = subject.value(path);
  const input = (issue as { input?: unknown }).input;
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(objectAt(schema, path)?.shape ?? {});
    const key = issue.keys[0] as string;
    return new TypeError(`${(subject.key ?? subject.value)([...path, key])} is not an option (known: ${known.join(', ')})`);
  }
  if (path[0] === 'prices' && path.length > 1) {
    const at = path
      .slice(1)
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('');
    return new TypeError(
      `${subject.value(['prices'])}${at}: ${issue.message} (by model: { input, cachedInput, cacheWrite?, cacheWrite1h?, output } in USD per million tokens, tiers?, cacheStoragePerHour?, contextWindow?: docs/prices.md)`,
    );
  }
  if (issue.code === 'custom')
    return issue.params?.range === true ? new RangeError(`${name} ${issue.message}`) : new TypeError(`${name} ${issue.message}`);
  const leaf = leafAt(schema, path);
  if (issue.code === 'invalid_type' && issue.expected === 'object') return new TypeError(`${name} must be an object, got ${kindOf(input)}`);
  if (issue.code === 'invalid_type' && issue.expected === 'boolean')
    return new TypeError(`${name} must be true or false, got ${JSON.stringify(input)}`);
  if (issue.code === 'invalid_value')
    return new TypeError(`${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(input)}`);
  if (leaf instanceof z.ZodNumber && leaf.isInt) {
    if (typeof input !== 'number') return new TypeError(`${name} must be a number, got ${typeof input}`);
    const max = leaf.maxValue ?? Number.MAX_SAFE_INTEGER;
    if (issue.code === 'too_big' && max < Number.MAX_SAFE_INTEGER) return new RangeError(`${name} must be at most ${max}, got ${input}`);
    return new RangeError(`${name} must be a ${(leaf.minValue ?? 0) >= 1 ? 'positive' : 'non-negative'} integer, got ${input}`);
  }
  const range = issue.code === 'too_small' || issue.code === 'too_big';
  return range ? new RangeError(`${name} ${issue.message}`) : new TypeError(`${name} ${issue.message}`);
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
