import type { ConvertFacet } from '../shape.js';
import type { AiSdkSessionLike } from './dialect.js';
import { fromHub } from './from-hub.js';
import type { AiSdkSession } from './schema.js';
import { toHub } from './to-hub.js';

/*
 * The AI SDK's ModelMessage shape (`"format": "ai-sdk"`) ⇄ the hub: to-hub.ts reads a session (its
 * messages: message-reader.ts), from-hub.ts writes one (message-writer.ts). docs/converting.md
 * states the rules for users.
 */

export const aiSdkConvert: ConvertFacet<AiSdkSessionLike> = {
  toHub: (session) => toHub(session as unknown as AiSdkSession),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as AiSdkSessionLike,
  toolCount: (session) => Object.keys(session.tools ?? {}).length,
};
