import { CHILD_OPENING } from '../../wording/child-message.js';
import type { ResponsesItemLike } from './request.js';
import { BREAKPOINT, type BreakpointMarks } from '../openai-breakpoints.js';
import type { ResponsesEntry } from './dialect.js';

/*
 * OpenAI's breakpoints (GPT-5.6 and later) on the Responses API: the same placement as on Chat
 * Completions (openai-breakpoints.ts has it and its sources), on its items. The openai SDK
 * (resources/responses: ResponseInputText, ResponseInputTextContent, … `prompt_cache_breakpoint`)
 * takes the marker on an input part: a message's `input_text`, `input_image` or `input_file`, or
 * one of a `function_call_output`'s parts.
 */

const MARKABLE_PARTS = new Set(['input_text', 'input_image', 'input_file']);

function isMessage(item: ResponsesItemLike): boolean {
  return item.type === undefined || item.type === 'message';
}

/** Responses items: the marker on an input item's last input part (a string becomes one `input_text` part). */
export const RESPONSES_MARKS: BreakpointMarks<ResponsesEntry> = {
  marked(entry) {
    const item = entry as ResponsesItemLike;
    if (isMessage(item) && (item.role === 'user' || item.role === 'system' || item.role === 'developer')) {
      const content = markedParts(item.content);
      return content === undefined ? undefined : { ...item, content };
    }
    if (item.type === 'function_call_output') {
      const output = markedParts(item.output);
      return output === undefined ? undefined : { ...item, output };
    }
    return undefined;
  },
  openingMarked(entry) {
    const item = entry as ResponsesItemLike;
    const content = item.content;
    if (
      !isMessage(item) ||
      item.role !== 'user' ||
      typeof content !== 'string' ||
      !content.startsWith(CHILD_OPENING) ||
      content.length === CHILD_OPENING.length
    )
      return undefined;
    return {
      ...item,
      content: [
        { type: 'input_text', text: CHILD_OPENING, prompt_cache_breakpoint: BREAKPOINT },
        { type: 'input_text', text: content.slice(CHILD_OPENING.length) },
      ],
    };
  },
  takesImplicit(entry) {
    const item = entry as ResponsesItemLike;
    return (isMessage(item) && item.role === 'user') || item.type === 'function_call_output';
  },
};

function markedParts(content: unknown): unknown[] | undefined {
  if (typeof content === 'string') return [{ type: 'input_text', text: content, prompt_cache_breakpoint: BREAKPOINT }];
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const parts = content as readonly Record<string, unknown>[];
  const last = parts[parts.length - 1] as Record<string, unknown>;
  if (typeof last.type !== 'string' || !MARKABLE_PARTS.has(last.type)) return undefined;
  return parts.map((part, i) => (i === parts.length - 1 ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part));
}
