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

/**
 * Turns the shared bytes back into the session: what a worker calls once per prefix id.
 * The bytes come from freezePrefix on the main thread, so only the outline is checked here.
 */
export function decodePrefix(buffer: SharedArrayBuffer, byteLength: number = buffer.byteLength): Readonly<ParentSession> {
  if (!Number.isSafeInteger(byteLength) || byteLength < 0 || byteLength > buffer.byteLength) {
    throw new RangeError(`decodePrefix: byteLength ${byteLength} is outside the buffer (${buffer.byteLength} bytes)`);
  }
  const parsed: unknown = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 0, byteLength)));
  if (!isSessionOutline(parsed)) {
    throw new TypeError('decodePrefix: the buffer does not hold a frozen parent session');
  }
  return deepFreeze(parsed);
}

function isSessionOutline(value: unknown): value is ParentSession {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  if (record.format === 'openai-responses') return typeof record.model === 'string' && (typeof record.input === 'string' || Array.isArray(record.input));
  const messages = record.format === 'openai-chat' || record.format === 'anthropic-messages' || record.format === 'ai-sdk' ? record.messages : record.history;
  return typeof record.model === 'string' && Array.isArray(messages);
}
