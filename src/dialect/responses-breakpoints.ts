import { CHILD_OPENING } from '../fork/child-message.js';
import type { ResponsesItemLike } from '../model/types.js';
import type { ResponsesEntry } from './openai-responses.js';

/*
 * OpenAI's breakpoints (GPT-5.6 and later) on the Responses API: the same rules as on Chat
 * Completions (openai-breakpoints.ts has them and their sources), on its items. The openai SDK
 * (resources/responses: ResponseInputText, ResponseInputTextContent, … `prompt_cache_breakpoint`)
 * takes the marker on an input part: a message's `input_text`, `input_image` or `input_file`, or
 * one of a `function_call_output`'s parts.
 */

const BREAKPOINT = Object.freeze({ mode: 'explicit' as const });
const MARKABLE_PARTS = new Set(['input_text', 'input_image', 'input_file']);

function isMessage(item: ResponsesItemLike): boolean {
  return item.type === undefined || item.type === 'message';
}

/** The newest item before `end` a request's implicit breakpoint goes after: a user message or a function's output (−1: none). */
export function implicitItemBreakpointAt(items: readonly ResponsesEntry[], end: number = items.length): number {
  for (let i = Math.min(end, items.length) - 1; i >= 0; i--) {
    const item = items[i] as ResponsesItemLike;
    if ((isMessage(item) && item.role === 'user') || item.type === 'function_call_output') return i;
  }
  return -1;
}

/**
 * A fork's items with its breakpoints, on copies of the items they go on: at the end of what every
 * fork shares — on the last shared item when it is input, else on the child message's opening, a
 * part of its own — and with `parentWarm` where the parent's own request had its implicit one.
 * A string becomes one `input_text` part carrying the marker: the same text, so the same tokens.
 */
export function placeItemBreakpoints(items: readonly ResponsesEntry[], shared: number, parentWarm: boolean): ResponsesEntry[] {
  const out = [...items];
  const end = Math.min(shared, items.length);
  const last = items[end - 1] as ResponsesItemLike | undefined;
  const marked = last === undefined ? undefined : withBreakpoint(last);
  if (marked !== undefined) out[end - 1] = marked;
  else {
    const child = items[end] as ResponsesItemLike | undefined;
    const split = child === undefined ? undefined : withOpeningBreakpoint(child);
    if (split !== undefined) out[end] = split;
  }
  if (parentWarm) {
    const at = implicitItemBreakpointAt(items, end);
    const warm = at < 0 || at === end - 1 ? undefined : withBreakpoint(items[at] as ResponsesItemLike);
    if (warm !== undefined) out[at] = warm;
  }
  return out;
}

/** The item with a breakpoint on its last input part; undefined for the model's own items and items without one. */
function withBreakpoint(item: ResponsesItemLike): ResponsesItemLike | undefined {
  if (isMessage(item) && (item.role === 'user' || item.role === 'system' || item.role === 'developer')) {
    const content = marked(item.content);
    return content === undefined ? undefined : { ...item, content };
  }
  if (item.type === 'function_call_output') {
    const output = marked(item.output);
    return output === undefined ? undefined : { ...item, output };
  }
  return undefined;
}

function marked(content: unknown): unknown[] | undefined {
  if (typeof content === 'string') return [{ type: 'input_text', text: content, prompt_cache_breakpoint: BREAKPOINT }];
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const parts = content as readonly Record<string, unknown>[];
  const last = parts[parts.length - 1] as Record<string, unknown>;
  if (typeof last.type !== 'string' || !MARKABLE_PARTS.has(last.type)) return undefined;
  return parts.map((part, i) => (i === parts.length - 1 ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part));
}

/** The child message as two input_text parts, the opening (marked) and the rest; undefined when it does not start with the opening. */
function withOpeningBreakpoint(item: ResponsesItemLike): ResponsesItemLike | undefined {
  const content = item.content;
  if (!isMessage(item) || item.role !== 'user' || typeof content !== 'string' || !content.startsWith(CHILD_OPENING) || content.length === CHILD_OPENING.length) return undefined;
  return {
    ...item,
    content: [
      { type: 'input_text', text: CHILD_OPENING, prompt_cache_breakpoint: BREAKPOINT },
      { type: 'input_text', text: content.slice(CHILD_OPENING.length) },
    ],
  };
}
