/*
 * Compile-time checks of a schema against an SDK's own types (a type that drifts fails `tsc`):
 * `type _x = Assert<Assignable<Ours, Theirs>>`.
 */

export type Assert<T extends true> = T;
export type Assignable<A, B> = [A] extends [B] ? true : false;
/** The same field names: a type with fewer optional fields would pass for one with more. */
export type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;
