import { findShape, shapeOf, type ParentSession } from '../shapes/registry.js';
import { deepFreeze } from './deep-freeze.js';

// A fork's thread's side of a frozen prefix (freeze.ts is the main thread's: it checks the session, with zod).

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
  const shape = typeof record.format === 'string' ? findShape(record.format) : record.format === undefined ? shapeOf(record) : undefined;
  if (shape === undefined || typeof record.model !== 'string') return false;
  // Its conversation: a list of messages, or a string where the shape reads one as a message (the Responses API's input).
  const conversation = record[shape.conversationField];
  return Array.isArray(conversation) || (typeof conversation === 'string' && Array.isArray(shape.messages(record)));
}
