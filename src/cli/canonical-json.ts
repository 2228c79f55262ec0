/**
 * Canonical JSON: object keys sorted by UTF-16 code unit, no whitespace. Equal data gives equal
 * bytes whatever the key order it was built with: what makes a journal's task hashes stable.
 * (Never for anything sent to a model: that keeps the parent's own key order.)
 * Values JSON cannot represent faithfully are refused rather than silently changed.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
  }
  if (ancestors.has(value)) throw new TypeError('canonicalJson: the value contains a cycle');
  ancestors.add(value);
  let out: string;
  if (Array.isArray(value)) {
    // Like JSON.stringify, a hole or undefined in an array becomes null (positions matter).
    out = `[${Array.from(value, (item: unknown) => (item === undefined ? 'null' : write(item, ancestors))).join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const fields: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const field = record[key];
      if (field === undefined) continue; // an absent optional, as JSON.stringify does
      fields.push(`${JSON.stringify(key)}:${write(field, ancestors)}`);
    }
    out = `{${fields.join(',')}}`;
  }
  ancestors.delete(value);
  return out;
}
