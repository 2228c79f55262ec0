/**
 * The one shape of a failure returned as a value, at every boundary: a machine-readable `kind`
 * to branch on and a `message` for people (and models). Results that can fail carry it as
 * `error`, next to an `ok` or `status` discriminant.
 */
export interface Failure<K extends string = string> {
  readonly kind: K;
  readonly message: string;
}

export function failure<K extends string>(kind: K, message: string): Failure<K> {
  return { kind, message };
}
