import { decodePrefix } from '../prefix/decode.js';
import type { ParentSession } from '../shapes/registry.js';
import { markShared } from '../transport/shared-objects.js';

/**
 * A worker's parsed prefixes, by prefix id. Decoding is as costly as a structured clone, so the
 * gain of the SharedArrayBuffer comes from doing it once per worker per prefix; the bound keeps a
 * long-lived engine that runs many prefixes from growing without end.
 */
export function createPrefixStore(capacity = 8) {
  const parsed = new Map<string, Readonly<ParentSession>>();
  return {
    /** The parsed prefix, and whether this call had to decode it. */
    get(id: string, buffer: SharedArrayBuffer, byteLength: number): { session: Readonly<ParentSession>; decoded: boolean } {
      const hit = parsed.get(id);
      if (hit) {
        parsed.delete(id);
        parsed.set(id, hit); // most recently used last
        return { session: hit, decoded: false };
      }
      const session = decodePrefix(buffer, byteLength);
      // Its fields and messages are what every fork's requests share: their bytes are spliced, not re-serialized.
      markShared(session as unknown as Readonly<Record<string, unknown>>);
      parsed.set(id, session);
      if (parsed.size > capacity) parsed.delete(parsed.keys().next().value as string);
      return { session, decoded: true };
    },
  };
}
