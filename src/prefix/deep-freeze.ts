/**
 * Freezes a value and everything reachable from it. The frozen prefix object is shared by every
 * fork a worker runs, so one fork must not be able to change what its siblings see.
 * Already-frozen objects are still walked (their children may not be), and cycles are tolerated.
 */
export function deepFreeze<T>(value: T): Readonly<T> {
  freezeAll(value, new WeakSet());
  return value;
}

function freezeAll(value: unknown, seen: WeakSet<object>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeAll((value as Record<string, unknown>)[key], seen);
}
