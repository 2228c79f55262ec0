import type { ResponsesItemLike, ResponsesTurn } from './request.js';
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

/**
 * A Responses API input item (a message, a function_call, its function_call_output, a reasoning
 * item) or a fork's own turn (the items one response output, read as one model message).
 */
function viewResponsesEntry(entry: ResponsesItemLike | Readonly<ResponsesTurn>): MessageView {
  const m = entry as Readonly<Record<string, unknown>>;
  if (m.type === undefined && Array.isArray(m.output)) {
    const items = (m.output as readonly ResponsesItemLike[]).map(viewResponsesEntry);
    return viewOfParts(
      'model',
      items.flatMap((item) => item.parts),
      { texts: items.flatMap((item) => item.texts), firstText: items[0]?.firstText },
    );
  }
  switch (m.type) {
    case 'function_call':
      return viewOfParts('model', [stringCall(m.call_id, String(m.name), typeof m.arguments === 'string' ? m.arguments : '')]);
    case 'function_call_output':
      return viewOfParts('tool', [{ kind: 'result', result: textResult(m.call_id, m.output) }], { texts: [], firstText: undefined });
    case 'reasoning':
      // The model's thinking: part of its turn, neither what it answered nor content a person gave.
      return viewOfParts('model', summaryParts(m.summary));
    case 'item_reference':
      return viewOfParts('user', [{ kind: 'media' }]);
    default: {
      // A message (its `type` is "message" or left out); other items read by their role.
      const role = m.role === 'assistant' ? 'model' : m.role === 'user' ? 'user' : 'system';
      return viewOfParts(role, contentParts(m.content));
    }
  }
}

/** Items have a `type` (a message may leave it out), a turn its `output`, a message's parts are input_ and output_ ones. */
function recognizeResponsesEntry(entry: unknown): Recognition {
  if (!isRecord(entry)) return 'foreign';
  if (typeof entry.type === 'string' || Array.isArray(entry.output)) return 'own';
  const content = entry.content;
  if (Array.isArray(content) && content.some((part) => isRecord(part) && /^(input|output)_/.test(String(part.type)))) return 'own';
  return typeof entry.role === 'string' ? 'compatible' : 'foreign';
}

function contentParts(content: unknown): PartView[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part): PartView[] => {
    if (!isRecord(part)) return [];
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string')
      return [{ kind: 'text', text: part.text }];
    if (part.type === 'refusal') return typeof part.refusal === 'string' ? [{ kind: 'text', text: part.refusal, refusal: true }] : [];
    return [{ kind: 'media' }];
  });
}

/** A reasoning item's summary texts (its encrypted content has nothing to read). */
function summaryParts(summary: unknown): PartView[] {
  if (!Array.isArray(summary)) return [];
  return summary.flatMap((s): PartView[] =>
    isRecord(s) && typeof s.text === 'string' && s.text !== '' ? [{ kind: 'thinking', text: s.text }] : [],
  );
}

/** The Responses API's reader: the shape's `reader` facet. */
export const openAIResponsesReader: MessageReader<ResponsesItemLike | ResponsesTurn> = {
  view: (message) => cachedView(message, viewResponsesEntry),
  recognize: recognizeResponsesEntry,
};
