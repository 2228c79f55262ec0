import { CHILD_OPENING } from '../fork/child-message.js';
import type { ChatMessage } from '../session/openai-chat-schema.js';

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
const BREAKPOINT = Object.freeze({ mode: 'explicit' as const });

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

/** Where the implicit breakpoint of a request ending at `end` sits: its newest user or tool message (−1: none). */
export function implicitBreakpointAt(messages: readonly ChatMessage[], end: number = messages.length): number {
  for (let i = Math.min(end, messages.length) - 1; i >= 0; i--) {
    const role = (messages[i] as ChatMessage).role;
    if (role === 'user' || role === 'tool') return i;
  }
  return -1;
}

/**
 * A fork's messages with its breakpoints, on copies of the messages they go on (nothing else
 * moves): one at the end of what every fork shares — on the last shared message when it is input,
 * or, when the shared history ends on the model's own message, on a first part of the child message
 * (message `shared`) that holds only its opening, the same bytes in every fork — and with
 * `parentWarm`, one at the end of the parent's newest user or tool message, where the parent's own
 * request had its implicit breakpoint and wrote the entry its forks read. A message's string content
 * becomes a single text part carrying the marker: the same text, so the same tokens. The parent's own
 * breakpoints stay; OpenAI writes the latest three explicit ones, and forkpool's come last.
 */
export function placeForkBreakpoints(messages: readonly ChatMessage[], shared: number, parentWarm: boolean): ChatMessage[] {
  const out = [...messages];
  const end = Math.min(shared, messages.length);
  const last = messages[end - 1];
  if (last !== undefined && INPUT_ROLES.has(last.role)) {
    const marked = withBreakpoint(last);
    if (marked) out[end - 1] = marked;
  } else {
    const child = messages[end];
    const split = child === undefined ? undefined : withOpeningBreakpoint(child);
    if (split) out[end] = split;
  }
  if (parentWarm) {
    const at = implicitBreakpointAt(messages, end);
    const marked = at < 0 || at === end - 1 ? undefined : withBreakpoint(messages[at] as ChatMessage);
    if (marked) out[at] = marked;
  }
  return out;
}

/** The message with a breakpoint on its last part (a string becomes one text part); undefined when it has no content to mark. */
function withBreakpoint(message: ChatMessage): ChatMessage | undefined {
  const content = message.content;
  if (typeof content === 'string') return { ...message, content: [{ type: 'text', text: content, prompt_cache_breakpoint: BREAKPOINT }] } as ChatMessage;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const parts = content as readonly Record<string, unknown>[];
  return { ...message, content: parts.map((part, i) => (i === parts.length - 1 ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part)) } as ChatMessage;
}

/** The child message as two text parts, the opening (marked) and the rest; undefined when it does not start with the opening. */
function withOpeningBreakpoint(message: ChatMessage): ChatMessage | undefined {
  const content = message.content;
  if (message.role !== 'user' || typeof content !== 'string' || !content.startsWith(CHILD_OPENING) || content.length === CHILD_OPENING.length) return undefined;
  return {
    ...message,
    content: [
      { type: 'text', text: CHILD_OPENING, prompt_cache_breakpoint: BREAKPOINT },
      { type: 'text', text: content.slice(CHILD_OPENING.length) },
    ],
  } as ChatMessage;
}
