/*
 * Which objects of a request are a frozen prefix's own: its top-level fields and the elements of its
 * arrays (a history's messages), each known by the prefix it came from and its place there. A
 * request that holds them by reference (a worker's seeds share the deep-frozen prefix, never copy
 * it) can have their bytes spliced in instead of serialized again (splice.ts). Identity, not
 * equality: an object a fork copied or decorated is its own, and is serialized as it is.
 */

/** Where a shared object sits: `owner` names one prefix field, `index` the element's place in it (0 for the field itself). */
export interface SharedPlace {
  owner: number;
  index: number;
}

const places = new WeakMap<object, SharedPlace>();
let owners = 0;

/** Records a frozen prefix's fields and their elements as shared; a prefix recorded before keeps its places. */
export function markShared(prefix: Readonly<Record<string, unknown>>): void {
  for (const value of Object.values(prefix)) {
    if (value === null || typeof value !== 'object' || places.has(value)) continue;
    places.set(value, { owner: ++owners, index: 0 });
    if (!Array.isArray(value)) continue;
    const owner = ++owners;
    value.forEach((element: unknown, index) => {
      if (element !== null && typeof element === 'object' && !places.has(element)) places.set(element, { owner, index });
    });
  }
}

/** The place of a shared object, or undefined for anything else. */
export function sharedPlace(value: unknown): SharedPlace | undefined {
  return value !== null && typeof value === 'object' ? places.get(value) : undefined;
}

/** How many leading elements of `list` are consecutive elements of one shared array, and where they start. */
export function sharedRun(list: readonly unknown[]): { place: SharedPlace; length: number } | undefined {
  const first = sharedPlace(list[0]);
  if (first === undefined) return undefined;
  let length = 1;
  while (length < list.length) {
    const next = sharedPlace(list[length]);
    if (next === undefined || next.owner !== first.owner || next.index !== first.index + length) break;
    length++;
  }
  return { place: first, length };
}
