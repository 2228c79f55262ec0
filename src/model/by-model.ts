// A table keyed by model id prefix, read without the price schemas: a fork's thread reads such tables (Gemini's cache minimums) and never loads zod.

/**
 * A per-model table's entry for a model id: the longest key the id starts with (Gemini's `models/`
 * prefix ignored) among the entries `usable` accepts; undefined when none does.
 */
export function byModelPrefix<T, U extends T = T>(
  table: Readonly<Record<string, T>>,
  model: string,
  usable?: (entry: T) => entry is U,
): U | undefined {
  const id = model.replace(/^models\//, '');
  let best: string | undefined;
  for (const [key, entry] of Object.entries(table)) {
    if (id.startsWith(key) && (usable === undefined || usable(entry)) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : (table[best] as U);
}
