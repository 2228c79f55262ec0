import { isRecord } from '../../input/json.js';
import {
  cachedView,
  type MessageReader,
  type MessageView,
  type PartView,
  type Recognition,
  stringCall,
  textResult,
  viewOfParts,
} from '../view.js';
import type { ChatMessage } from './schema.js';

/**
 * A Chat Completions message: content (a string or text, refusal, image, audio and file parts),
 * an assistant's tool_calls after it, a tool message's content as the result of one call.
 */
function viewChatMessage(message: Readonly<ChatMessage>): MessageView {
  const m = message as Readonly<Record<string, unknown>>;
  const content = contentParts(m.content);
  switch (m.role) {
    case 'assistant': {
      const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).flatMap((call): PartView[] => {
        const fn = isRecord(call) ? call.function : undefined;
        if (!isRecord(call) || call.type !== 'function' || !isRecord(fn) || typeof fn.name !== 'string') return [];
        return [stringCall(call.id, fn.name, typeof fn.arguments === 'string' ? fn.arguments : '')];
      });
      return viewOfParts('model', [...content, ...calls]);
    }
    case 'tool': {
      // The content is the result; the fork rules read its words as a tool message's texts.
      const words = viewOfParts('tool', content);
      return viewOfParts('tool', [{ kind: 'result', result: textResult(m.tool_call_id, m.content) }], words);
    }
    case 'user':
      return viewOfParts('user', content);
    default:
      return viewOfParts('system', content);
  }
}

/** Any message with a role reads the same here as in the other shapes that write `{ role, content }`, unless another shape's marks say it is theirs. */
function recognizeChatMessage(message: unknown): Recognition {
  if (!isRecord(message) || typeof message.role !== 'string') return 'foreign';
  return 'tool_call_id' in message || 'tool_calls' in message ? 'own' : 'compatible';
}

function contentParts(content: unknown): PartView[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((part): PartView => {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return { kind: 'text', text: part.text };
    if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string')
      return { kind: 'text', text: part.refusal, refusal: true };
    return { kind: 'media' };
  });
}

/** Chat Completions' reader: the shape's `reader` facet. */
export const openAIChatReader: MessageReader<ChatMessage> = {
  view: (message) => cachedView(message, viewChatMessage),
  recognize: recognizeChatMessage,
};
