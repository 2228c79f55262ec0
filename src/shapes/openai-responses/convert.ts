import type { ConvertFacet } from '../shape.js';
import type { ResponsesSessionLike } from './dialect.js';
import { fromHub } from './from-hub.js';
import type { OpenAIResponsesSession } from './schema.js';
import { toHub } from './to-hub.js';

/*
 * OpenAI Responses' shape (`"format": "openai-responses"`) ⇄ the hub: to-hub.ts reads a session
 * (its input items: item-reader.ts), from-hub.ts writes one (item-writer.ts). docs/converting.md
 * states the rules for users.
 */

export const openAIResponsesConvert: ConvertFacet<ResponsesSessionLike> = {
  toHub: (session, issues) => toHub(session as unknown as OpenAIResponsesSession, issues),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as ResponsesSessionLike,
  toolCount: (session) => (session as unknown as OpenAIResponsesSession).tools?.length ?? 0,
};
