import { CHILD_OPENING } from '../../wording/child-message.js';
import { BREAKPOINT, type BreakpointMarks } from '../openai-breakpoints.js';
import type { ChatMessage } from './schema.js';

/*
 * OpenAI's breakpoints (GPT-5.6 and later) on Chat Completions messages: the placement is
 * shapes/openai-breakpoints.ts's (with its sources), the marks these.
 */

/** Roles whose content is input (a breakpoint never goes on the model's own output). */
const INPUT_ROLES = new Set(['system', 'developer', 'user', 'tool']);

/** Chat Completions' messages: the marker on the last content part (a string becomes one text part). */
export const CHAT_MARKS: BreakpointMarks<ChatMessage> = {
  marked(message) {
    if (!INPUT_ROLES.has(message.role)) return undefined;
    const content = message.content;
    if (typeof content === 'string')
      return { ...message, content: [{ type: 'text', text: content, prompt_cache_breakpoint: BREAKPOINT }] } as ChatMessage;
    if (!Array.isArray(content) || content.length === 0) return undefined;
    const parts = content as readonly Record<string, unknown>[];
    return {
      ...message,
      content: parts.map((part, i) => (i === parts.length - 1 ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part)),
    } as ChatMessage;
  },
  openingMarked(message) {
    const content = message.content;
    if (
      message.role !== 'user' ||
      typeof content !== 'string' ||
      !content.startsWith(CHILD_OPENING) ||
      content.length === CHILD_OPENING.length
    )
      return undefined;
    return {
      ...message,
      content: [
        { type: 'text', text: CHILD_OPENING, prompt_cache_breakpoint: BREAKPOINT },
        { type: 'text', text: content.slice(CHILD_OPENING.length) },
      ],
    } as ChatMessage;
  },
  takesImplicit: (message) => message.role === 'user' || message.role === 'tool',
};
