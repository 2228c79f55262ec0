import { sessionFormat, type ParentSession } from '../session/schema.js';
import type { Dialect } from './dialect.js';
import { dialectFor } from './registry.js';
import type { AnyMessage } from './view.js';

export type { Dialect, ToolResponse } from './dialect.js';
export { viewMessage, type AnyMessage } from './view.js';

/**
 * The dialect a session is written in, for code that works on every shape: a session's messages and
 * its dialect always agree.
 */
export function dialectOf(session: Readonly<ParentSession>): Dialect<AnyMessage, ParentSession> {
  return dialectFor(sessionFormat(session)) as Dialect<AnyMessage, ParentSession>;
}
