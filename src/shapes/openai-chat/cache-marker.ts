import type { ChatMessage } from './schema.js';

const EPHEMERAL = Object.freeze({ type: 'ephemeral' as const });

/**
 * DashScope's explicit cache: a `cache_control` marker on the last text part of the last shared
 * message that has text (a tool_calls-only assistant message has none: the one before it is
 * marked). Every fork marks the same message, so the entry the first fork's request writes is the
 * one its siblings read. Returns the messages with that one message replaced, or as they were when
 * nothing can carry a marker.
 */
export function markLastShared(messages: readonly ChatMessage[], shared: number): ChatMessage[] {
  const out = [...messages];
  for (let i = Math.min(shared, messages.length) - 1; i >= 0; i--) {
    const marked = withMarker(messages[i] as ChatMessage);
    if (marked) {
      out[i] = marked;
      return out;
    }
  }
  return out;
}

function withMarker(message: ChatMessage): ChatMessage | undefined {
  const content = message.content;
  if (typeof content === 'string') {
    return { ...message, content: [{ type: 'text', text: content, cache_control: EPHEMERAL }] } as ChatMessage;
  }
  if (!Array.isArray(content)) return undefined;
  const parts = content as readonly { type: string }[];
  let last = -1;
  parts.forEach((part, i) => {
    if (part.type === 'text') last = i;
  });
  if (last < 0) return undefined;
  return { ...message, content: parts.map((part, i) => (i === last ? { ...part, cache_control: EPHEMERAL } : part)) } as ChatMessage;
}
