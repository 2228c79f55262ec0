import { createHash } from 'node:crypto';
import { parseSession } from '../session/parse.js';
import type { ParentSession } from '../shapes/registry.js';
import { estimateTokens } from './tokens.js';
import { deepFreeze } from './deep-freeze.js';

/** A parent session serialized once, ready to be shared with every worker without copying. */
export interface FrozenPrefix {
  /** sha256 (hex) of exactly the frozen bytes: the same session gives the same id, any change (key order included) a new one. */
  id: string;
  /** The session's UTF-8 JSON in its own key order, written once; workers only read them. */
  buffer: SharedArrayBuffer;
  byteLength: number;
  tokenEstimate: number;
  /** The session parsed back from the bytes and deep-frozen (never the caller's object). */
  session: Readonly<ParentSession>;
}

/**
 * Serializes the session once, in its own key order and with JSON.stringify's rules (what the
 * parent's SDK does to the same objects), so that what a fork sends of it is what the parent sent.
 * Never sorted or normalized: sorted keys would miss the cache the parent just filled.
 */
export function freezePrefix(session: unknown): FrozenPrefix {
  // Validated again: callers may hand us an object that never went through the loader.
  const text = JSON.stringify(parseSession(session));
  // Encoded straight into shared memory: no private copy of the bytes to allocate and copy over.
  const byteLength = Buffer.byteLength(text);
  const buffer = new SharedArrayBuffer(byteLength);
  const bytes = Buffer.from(buffer);
  bytes.write(text);
  return {
    id: createHash('sha256').update(bytes).digest('hex'),
    buffer,
    byteLength,
    tokenEstimate: estimateTokens(text),
    session: deepFreeze(JSON.parse(text) as ParentSession),
  };
}
