import type { DroppedRecord } from './intake.js';
import { isRecord } from '../input/json.js';

/*
 * Reading a logged API request as the API reads it: a field set to null is a field left out, and
 * a field the API does not take on a message is one the client that wrote the log added for its
 * own use (a sender, a display copy, its own reasoning store); the API never saw it. Both are left
 * out and each is listed, all of them in one pass; what is left is validated as the session it is,
 * so only what the API itself would refuse is an error. Objects are copied without those keys, in
 * their own key order; an object with nothing to leave out is returned as it is.
 */

const NULL_REASON = 'null, which the API reads as the field left out';

export interface FieldRules {
  /** The fields the API takes on this object. */
  fields: readonly string[];
  /** Fields that may be null (the API takes null there): kept. */
  nullable?: readonly string[];
  /** Fields the API does not take but forkpool's validation explains better than dropping would (a deprecated field): kept. */
  explained?: readonly string[];
  /** What the object is, in words: `an "assistant" message`. */
  what: string;
}

/** `value` without its null and unknown fields; each one left out goes to `dropped`, at `path`. */
export function withoutExtras(
  value: Record<string, unknown>,
  rules: FieldRules,
  path: string,
  dropped: DroppedRecord[],
): Record<string, unknown> {
  const kept: [string, unknown][] = [];
  let changed = false;
  for (const [key, field] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (field === null && !(rules.nullable ?? []).includes(key)) {
      dropped.push({ path: at, what: `"${key}" of ${rules.what}`, reason: NULL_REASON });
      changed = true;
    } else if (!rules.fields.includes(key) && !(rules.explained ?? []).includes(key)) {
      dropped.push({
        path: at,
        what: `"${key}" of ${rules.what}`,
        reason: `not a field the API takes on ${rules.what}: the client that wrote the log added it for its own use`,
      });
      changed = true;
    } else kept.push([key, field]);
  }
  return changed ? Object.fromEntries(kept) : value;
}

/** Each element of `list` that is an object, through `clean`; anything else is left for validation to name. */
export function eachRecord(list: unknown, clean: (item: Record<string, unknown>, index: number) => Record<string, unknown>): unknown {
  if (!Array.isArray(list)) return list;
  let changed = false;
  const out = list.map((item, index) => {
    if (!isRecord(item)) return item;
    const cleaned = clean(item, index);
    if (cleaned !== item) changed = true;
    return cleaned;
  });
  return changed ? out : list;
}

/** A request body's top-level fields set to null, left out and listed. */
export function withoutNullFields(body: Record<string, unknown>, dropped: DroppedRecord[]): Record<string, unknown> {
  const kept = Object.entries(body).filter(([key, value]) => {
    if (value !== null) return true;
    dropped.push({ path: key, what: 'a request field', reason: NULL_REASON });
    return false;
  });
  return kept.length === Object.keys(body).length ? body : Object.fromEntries(kept);
}

/** What each kind of content part or block takes; objects inside it and arrays of blocks inside it are read the same way. */
export interface BlockRules extends FieldRules {
  /** Fields holding one object, with the fields it takes (`image_url`: `url`, `detail`). */
  objects?: Record<string, FieldRules>;
  /** Fields holding an array of blocks, read by the same table (a tool_result's `content`). */
  blocks?: readonly string[];
}

/**
 * Each content part or block of `list` (an array; anything else is left for validation) of a kind
 * `kinds` names, without its null and unknown fields, all of them listed; objects and blocks inside
 * it likewise. A kind the table does not name is left for validation to name. Kept keys stay in
 * their own order, and an array with nothing to leave out is returned as it is.
 */
export function withoutBlockExtras(
  list: unknown,
  kinds: Readonly<Record<string, BlockRules>>,
  path: string,
  dropped: DroppedRecord[],
): unknown {
  return eachRecord(list, (block, b) => {
    const at = `${path}[${b}]`;
    const kind = block.type;
    const rules = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (rules === undefined) return block;
    let kept = withoutExtras(block, rules, at, dropped);
    for (const [key, inner] of Object.entries(rules.objects ?? {})) {
      const value = kept[key];
      if (!isRecord(value)) continue;
      const cleaned = withoutExtras(value, inner, `${at}.${key}`, dropped);
      if (cleaned !== value) kept = { ...kept, [key]: cleaned };
    }
    for (const key of rules.blocks ?? []) {
      const value = kept[key];
      const cleaned = withoutBlockExtras(value, kinds, `${at}.${key}`, dropped);
      if (cleaned !== value) kept = { ...kept, [key]: cleaned };
    }
    return kept;
  });
}
