import type { AiSdkMessageLike } from './request.js';
import { isRecord } from '../../input/json.js';
import {
  cachedView,
  type MessageReader,
  type MessageView,
  type PartView,
  parsedCall,
  type Recognition,
  type ResultView,
  viewOfParts,
} from '../view.js';

/** An AI SDK ModelMessage: a string, or text, reasoning, tool-call, tool-result, image and file parts; a `tool` message holds results. */
function viewAiSdkMessage(message: Readonly<AiSdkMessageLike>): MessageView {
  const role = message.role === 'assistant' ? 'model' : message.role === 'tool' ? 'tool' : message.role === 'user' ? 'user' : 'system';
  if (typeof message.content === 'string') return viewOfParts(role, [{ kind: 'text', text: message.content }]);
  // A provider-executed tool's result in an assistant message is the model's own doing, no result the conversation answers with.
  const parts = message.content.filter((part) => role !== 'model' || part.type !== 'tool-result').flatMap(partView);
  return viewOfParts(role, parts);
}

/** Parts only the AI SDK's messages have (their kinds are kebab-case), and a tool message without Chat's tool_call_id. */
const OWN_PARTS = new Set(['tool-call', 'tool-result', 'reasoning', 'tool-approval-request', 'tool-approval-response']);

function recognizeAiSdkMessage(message: unknown): Recognition {
  if (!isRecord(message) || typeof message.role !== 'string') return 'foreign';
  const content = message.content;
  if (Array.isArray(content) && content.some((part) => isRecord(part) && OWN_PARTS.has(String(part.type)))) return 'own';
  return message.role === 'tool' && !('tool_call_id' in message) ? 'own' : 'compatible';
}

function partView(part: Readonly<Record<string, unknown>>): PartView[] {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? [{ kind: 'text', text: part.text }] : [];
    case 'reasoning':
      return typeof part.text === 'string' ? [{ kind: 'thinking', text: part.text }] : [];
    case 'tool-call':
      return typeof part.toolName === 'string' ? [parsedCall(part.toolCallId, part.toolName, part.input)] : [];
    case 'tool-result':
      return [{ kind: 'result', result: resultView(part) }];
    case 'tool-approval-request':
    case 'tool-approval-response':
      // Asking a person to approve a call is neither what the model answered nor content a person gave.
      return [];
    default:
      return [{ kind: 'media' }];
  }
}

/** A tool-result's output: its value (text as it is, JSON as JSON), an error when its type says so (dialect.ts writes `error-text`). */
function resultView(part: Readonly<Record<string, unknown>>): ResultView {
  const output = isRecord(part.output) ? part.output : {};
  const text =
    typeof output.value === 'string'
      ? output.value
      : output.value === undefined
        ? `[${String(output.type)}]`
        : JSON.stringify(output.value);
  const isError = output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
  return {
    ...(typeof part.toolCallId === 'string' ? { id: part.toolCallId } : {}),
    ...(typeof part.toolName === 'string' ? { name: part.toolName } : {}),
    text,
    isError,
  };
}

/** The AI SDK's reader: the shape's `reader` facet. */
export const aiSdkReader: MessageReader<AiSdkMessageLike> = {
  view: (message) => cachedView(message, viewAiSdkMessage),
  recognize: recognizeAiSdkMessage,
};
