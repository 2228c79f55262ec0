import type { ConvertFacet } from '../shape.js';
import type { AnthropicSessionLike } from './dialect.js';
import { fromHub } from './from-hub.js';
import type { AnthropicMessagesSession } from './schema.js';
import { toHub } from './to-hub.js';

/*
 * Anthropic Messages' shape (`"format": "anthropic-messages"`) ⇄ the hub: to-hub.ts reads a session
 * (its blocks: read-block.ts), from-hub.ts writes one (its messages: history-writer.ts).
 * docs/converting.md states the rules for users.
 */

export const anthropicMessagesConvert: ConvertFacet<AnthropicSessionLike> = {
  toHub: (session) => toHub(session as unknown as AnthropicMessagesSession),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as AnthropicSessionLike,
  toolCount: (session) => (session as unknown as AnthropicMessagesSession).tools?.length ?? 0,
};
