import { CHILD_OPENING } from '../fork/child-message.js';
import type { ChatMessage } from './openai-chat/schema.js';

/*
 * OpenAI's prompt cache from GPT-5.6 on is exact at breakpoints. The openai SDK (6.46.0 and later,
 * resources/chat/completions: PromptCacheOptions, ChatCompletionContentPartText.PromptCacheBreakpoint):
 * "Supported for `gpt-5.6` and later models"; a breakpoint "Marks the exact end of a reusable prompt
 * prefix … the boundary is not rounded to a token block"; "With `implicit`, OpenAI creates one
 * implicit breakpoint and writes up to the latest three explicit breakpoints in the request"; "For
 * cache matching, OpenAI considers up to the latest 80 breakpoints in the conversation". OpenAI's
 * GPT-5.6 upgrade guide (quoted in openai/codex#35300): "implicit caching places a managed
 * breakpoint near the latest user or tool message … A prompt with a large stable prefix followed by
 * a changing suffix can therefore lose cache hits". Forks are exactly that prompt: each ends in its
 * own directive, so without a breakpoint at the end of what they share no fork reads another's entry.
 */

/** The marker on an input content part; `explicit` is its only mode. */
export const BREAKPOINT = Object.freeze({ mode: 'explicit' as const });

/** Whether a model takes prompt_cache_options and breakpoints: gpt-5.6 and later (gpt-5.6-sol, gpt-6-luna, …). */
export function takesCacheBreakpoints(model: string): boolean {
  const version = /^(?:[\w.-]+\/)?gpt-(\d+)(?:\.(\d+))?(?![\d.])/.exec(model);
  if (!version) return false;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major > 5 || (major === 5 && minor >= 6);
}

/** Roles whose content is input (a breakpoint never goes on the model's own output). */
const INPUT_ROLES = new Set(['system', 'developer', 'user', 'tool']);

/** How one API's messages carry a breakpoint (Chat Completions' here, the Responses API's in responses-breakpoints.ts). */
export interface BreakpointMarks<M> {
  /** The message with a breakpoint at its end, a copy; undefined for the model's own and for a message with nothing to mark. */
  marked(message: M): M | undefined;
  /** The child message split after its opening, the opening marked; undefined when it does not start with it. */
  openingMarked(message: M): M | undefined;
  /** Whether a request's implicit breakpoint may sit after this message: a user message or a tool's result. */
  takesImplicit(message: M): boolean;
}

/** Where the implicit breakpoint of a request ending at `end` sits: its newest user message or tool result (−1: none). */
export function implicitBreakpointAt<M>(marks: BreakpointMarks<M>, messages: readonly M[], end: number = messages.length): number {
  for (let i = Math.min(end, messages.length) - 1; i >= 0; i--) {
    if (marks.takesImplicit(messages[i] as M)) return i;
  }
  return -1;
}

/**
 * A fork's messages with its breakpoints, on copies of the messages they go on (nothing else
 * moves): one at the end of what every fork shares — on the last shared message when it is input,
 * or, when the shared history ends on the model's own message, on a first part of the child message
 * (message `shared`) that holds only its opening, the same bytes in every fork — and with
 * `parentWarm`, one at the end of the parent's newest user message or tool result, where the
 * parent's own request had its implicit breakpoint and wrote the entry its forks read. A message's
 * string content becomes a single text part carrying the marker: the same text, so the same tokens.
 * The parent's own breakpoints stay; OpenAI writes the latest three explicit ones, and forkpool's
 * come last.
 */
export function placeOpenAIBreakpoints<M>(marks: BreakpointMarks<M>, messages: readonly M[], shared: number, parentWarm: boolean): M[] {
  const out = [...messages];
  const end = Math.min(shared, messages.length);
  const last = messages[end - 1];
  const marked = last === undefined ? undefined : marks.marked(last);
  if (marked !== undefined) out[end - 1] = marked;
  else {
    const child = messages[end];
    const split = child === undefined ? undefined : marks.openingMarked(child);
    if (split !== undefined) out[end] = split;
  }
  if (parentWarm) {
    const at = implicitBreakpointAt(marks, messages, end);
    const warm = at < 0 || at === end - 1 ? undefined : marks.marked(messages[at] as M);
    if (warm !== undefined) out[at] = warm;
  }
  return out;
}

/** Chat Completions' messages: the marker on the last content part (a string becomes one text part). */
export const CHAT_MARKS: BreakpointMarks<ChatMessage> = {
  marked(message) {
    if (!INPUT_ROLES.has(message.role)) return undefined;
    const content = message.content;
    if (typeof content === 'string') return { ...message, content: [{ type: 'text', text: content, prompt_cache_breakpoint: BREAKPOINT }] } as ChatMessage;
    if (!Array.isArray(content) || content.length === 0) return undefined;
    const parts = content as readonly Record<string, unknown>[];
    return { ...message, content: parts.map((part, i) => (i === parts.length - 1 ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part)) } as ChatMessage;
  },
  openingMarked(message) {
    const content = message.content;
    if (message.role !== 'user' || typeof content !== 'string' || !content.startsWith(CHILD_OPENING) || content.length === CHILD_OPENING.length) return undefined;
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
