import type { Opaque } from '../hub.js';

/** The keys of an object beyond `known`, as opaque items at `path`. */
export function extraKeys(value: object, known: readonly string[], path: string, why?: Opaque['why']): Opaque[] {
  return Object.entries(value)
    .filter(([key, v]) => !known.includes(key) && v !== undefined)
    .map(([key]) => ({ path, what: key, ...(why === undefined ? {} : { why }) }));
}
