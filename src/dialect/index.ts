import { isAnthropicMessagesSession, isOpenAIChatSession, type ParentSession } from '../session/schema.js';
import { anthropicMessagesDialect } from './anthropic-messages.js';
import type { Dialect } from './dialect.js';
import { geminiDialect } from './gemini.js';
import { openAIChatDialect } from './openai-chat.js';
import type { AnyMessage } from './view.js';

export type { Dialect, ToolResponse } from './dialect.js';
export { viewMessage, type AnyMessage } from './view.js';

/**
 * The dialect a session is written in, for code that works on either shape. The one place the
 * two are told apart: a session's messages and its dialect always agree.
 */
export function dialectOf(session: Readonly<ParentSession>): Dialect<AnyMessage, ParentSession> {
  const dialect = isOpenAIChatSession(session) ? openAIChatDialect : isAnthropicMessagesSession(session) ? anthropicMessagesDialect : geminiDialect;
  return dialect as unknown as Dialect<AnyMessage, ParentSession>;
}
