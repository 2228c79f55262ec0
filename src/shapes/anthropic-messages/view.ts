import type { AnthropicMessageLike } from './request.js';
import { isRecord } from '../../input/json.js';
import {
  cachedView,
  type MessageReader,
  contentText,
  type MessageView,
  type PartView,
  parsedCall,
  type Recognition,
  viewOfParts,
} from '../view.js';

/** An Anthropic message: a string, or text, thinking, tool_use, tool_result and media blocks. */
function viewAnthropicMessage(message: Readonly<AnthropicMessageLike>): MessageView {
  const parts =
    typeof message.content === 'string' ? [{ kind: 'text', text: message.content } as const] : message.content.flatMap(blockView);
  return viewOfParts(message.role === 'assistant' ? 'model' : message.role === 'user' ? 'user' : 'system', parts);
}

/** Blocks only Anthropic's messages have. */
const OWN_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'document',
]);

function recognizeAnthropicMessage(message: unknown): Recognition {
  if (!isRecord(message) || typeof message.role !== 'string') return 'foreign';
  const content = message.content;
  if (Array.isArray(content) && content.some((block) => isRecord(block) && OWN_BLOCKS.has(String(block.type)))) return 'own';
  return 'compatible';
}

function blockView(block: Readonly<Record<string, unknown>>): PartView[] {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? [{ kind: 'text', text: block.text }] : [];
    case 'thinking':
      return typeof block.thinking === 'string'
        ? [{ kind: 'thinking', text: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) }]
        : [];
    case 'redacted_thinking':
      // Thinking with nothing to read: neither what the model answered nor content a person gave.
      return [];
    case 'tool_use':
      return typeof block.name === 'string' ? [parsedCall(block.id, block.name, block.input)] : [];
    case 'tool_result':
      return [
        {
          kind: 'result',
          result: {
            ...(typeof block.tool_use_id === 'string' ? { id: block.tool_use_id } : {}),
            text: contentText(block.content),
            isError: block.is_error === true,
          },
        },
      ];
    default:
      // Images, documents, server tools' blocks: content with no text of its own.
      return [{ kind: 'media' }];
  }
}

/** Anthropic's reader: the shape's `reader` facet. */
export const anthropicMessagesReader: MessageReader<AnthropicMessageLike> = {
  view: (message) => cachedView(message, viewAnthropicMessage),
  recognize: recognizeAnthropicMessage,
};
