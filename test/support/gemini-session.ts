import type { GeminiSession, ParentSession } from '../../src/index.js';
import { sessionFormat } from '../../src/shapes/registry.js';

/*
 * What the library hands back typed as any shape's session (a frozen prefix's session, a decoded
 * prefix), read as the Gemini session a test gave it: a session in another shape throws here,
 * so a test reading `history` or `systemInstruction` never reads undefined from the wrong shape.
 */
export function geminiSession(session: Readonly<ParentSession>): Readonly<GeminiSession> {
  const format = sessionFormat(session);
  if (format !== 'gemini') throw new TypeError(`expected a session in Gemini's shape, got one in ${JSON.stringify(format)}`);
  return session as Readonly<GeminiSession>;
}
