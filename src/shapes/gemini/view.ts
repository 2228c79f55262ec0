import { isRecord } from '../../input/json.js';
import {
  cachedView,
  type MessageReader,
  type MessageView,
  type PartView,
  type Recognition,
  type ResultView,
  viewOfParts,
} from '../view.js';
import type { Content, Part } from './schema.js';

/** Gemini's Content: its parts are texts (a thought among them), function calls, function responses and media. */
function viewGeminiMessage(message: Readonly<Content>): MessageView {
  const parts = message.parts.map(partView);
  return viewOfParts(message.role === 'model' ? 'model' : 'user', parts);
}

/** A Gemini message has parts; no other shape's has. */
function recognizeGeminiMessage(message: unknown): Recognition {
  return isRecord(message) && Array.isArray(message.parts) ? 'own' : 'foreign';
}

function partView(part: Readonly<Part>): PartView {
  if (typeof part.text === 'string')
    return (part as { thought?: unknown }).thought === true ? { kind: 'thinking', text: part.text } : { kind: 'text', text: part.text };
  if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    return {
      kind: 'call',
      call: { ...(id !== undefined ? { id } : {}), name, ...(args !== undefined ? { args } : {}) },
      input: args ?? {},
    };
  }
  if (part.functionResponse) {
    const { id, name, response } = part.functionResponse;
    return { kind: 'result', result: { ...(id !== undefined ? { id } : {}), name, ...responseText(isRecord(response) ? response : {}) } };
  }
  return { kind: 'media' };
}

/** forkpool answers a call with `{ output }` or `{ error }` (dialect.ts): the output itself when it is text, an error as one, else the response as JSON. */
function responseText(response: Readonly<Record<string, unknown>>): Pick<ResultView, 'text' | 'isError'> {
  const { output, error } = response;
  if (typeof output === 'string') return { text: output, isError: false };
  if (typeof error === 'string' && output === undefined) return { text: error, isError: true };
  return { text: JSON.stringify(response), isError: false };
}

/** Gemini's reader: the shape's `reader` facet. */
export const geminiReader: MessageReader<Content> = {
  view: (message) => cachedView(message, viewGeminiMessage),
  recognize: recognizeGeminiMessage,
};
