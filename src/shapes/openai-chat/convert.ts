import type { ConvertFacet } from '../shape.js';
import { fromHub } from './from-hub.js';
import type { OpenAIChatSession } from './schema.js';
import { toHub } from './to-hub.js';

/*
 * OpenAI Chat Completions' shape (`"format": "openai-chat"`) ⇄ the hub: to-hub.ts reads a session
 * (its messages: message-reader.ts), from-hub.ts writes one (history-writer.ts). docs/converting.md
 * states the rules for users.
 */

export const openAIChatConvert: ConvertFacet<OpenAIChatSession> = {
  toHub,
  fromHub,
  toolCount: (session) => session.tools?.length ?? 0,
};
