/**
 * The chained block keys of a rendered prompt, computed piece by piece: the hash state after any
 * prefix of the text is all that later text needs, so a prompt whose leading pieces were hashed
 * before resumes from the state remembered for them (core/prefix-memo.ts) instead of hashing them
 * again. Hashing a text in pieces gives exactly the keys and digest of hashing it whole.
 */

/** Characters per token of the deterministic tokenizer. */
export const CHARS_PER_TOKEN = 4;

export function countTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Where the hash of a text stands after its first `length` characters. */
export interface ChainState {
  readonly h1: number;
  readonly h2: number;
  readonly length: number;
}

export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** `label` (the model) seeds the chain so different models never share blocks. */
export function chainStart(label: string): ChainState {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  const h1 = h >>> 0;
  return { h1, h2: h1 ^ 0x9e3779b9, length: 0 };
}

/**
 * Two 32-bit multiplicative lanes over the UTF-16 code units, one pass; a key is taken at every
 * block boundary (53 bits: collisions are negligible at simulator scale), pushed onto `keys`: key
 * i identifies the whole text up to the end of block i.
 */
export function chainExtend(state: ChainState, text: string, blockChars: number, keys: number[]): ChainState {
  let { h1, h2 } = state;
  const base = state.length;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const end = Math.min(length, blockChars - ((base + i) % blockChars) + i);
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 + c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    const at = base + i;
    if (at % blockChars === 0) keys.push(fmix(h1) * 0x200000 + (fmix(h2 ^ at) & 0x1fffff));
  }
  return { h1, h2, length: base + length };
}

/** Short hex digest of the whole text hashed so far (the context hash). */
export function chainDigest(state: ChainState): string {
  return ((fmix(state.h1 ^ state.length) ^ fmix(state.h2)) >>> 0).toString(16).padStart(8, '0');
}

/**
 * Identifies the text hashed so far (and the model that seeded it), for the entries that caches
 * write at marked places (core/boundaries.ts): two 32-bit lanes and the length.
 */
export function chainMark(state: ChainState): string {
  return `${state.h1.toString(36)}.${state.h2.toString(36)}.${state.length.toString(36)}`;
}
