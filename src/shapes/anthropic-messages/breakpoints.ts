import type { AnthropicMessageLike } from './request.js';

/*
 * Anthropic caches only what a request marks with cache_control breakpoints, at most 4 per
 * request (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching). The parent's own
 * breakpoints stay where they are; forkpool adds, within the limit, one at the end of the inherited
 * history — the same block in every fork — and one on the latest message of each request, so a
 * fork's own turns are cached as it goes.
 */

/** "You can define up to 4 cache breakpoints (using `cache_control` parameters) in your prompt" (the API answers 400 beyond). */
export const MAX_BREAKPOINTS = 4;

export type CacheTtl = '5m' | '1h';

type Block = Readonly<Record<string, unknown>>;

/** Blocks that may carry cache_control (a model's thinking may not). */
const MARKABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result']);

/** The parent's own breakpoints: how many, and whether one has the 5-minute TTL. */
export interface ParentBreakpoints {
  count: number;
  /** A 1-hour breakpoint may not follow a 5-minute one (the API answers 400): forkpool's, which come last, then use 5 minutes. */
  hasFiveMinute: boolean;
}

/** The cache_control breakpoints a session's tools, system blocks and messages (tool results' content included) hold. */
export function parentBreakpoints(session: {
  tools?: readonly unknown[];
  system?: unknown;
  messages: readonly AnthropicMessageLike[];
}): ParentBreakpoints {
  const found: ParentBreakpoints = { count: 0, hasFiveMinute: false };
  const visit = (block: unknown): void => {
    if (block === null || typeof block !== 'object') return;
    const control = (block as Block).cache_control as { ttl?: unknown } | null | undefined;
    if (control !== null && control !== undefined) {
      found.count++;
      if (control.ttl !== '1h') found.hasFiveMinute = true;
    }
    const inner = (block as Block).content;
    if ((block as Block).type === 'tool_result' && Array.isArray(inner)) for (const nested of inner) visit(nested);
  };
  for (const tool of session.tools ?? []) visit(tool);
  if (Array.isArray(session.system)) for (const block of session.system) visit(block);
  for (const message of session.messages) if (typeof message.content !== 'string') for (const block of message.content) visit(block);
  return found;
}

/** The TTL forkpool's breakpoints get: the one asked for, unless the parent's 5-minute ones forbid 1 hour after them. */
export function breakpointTtl(asked: CacheTtl, parent: ParentBreakpoints): CacheTtl {
  return asked === '1h' && parent.hasFiveMinute ? '5m' : asked;
}

/**
 * The request's messages with forkpool's breakpoints placed on copies (the conversation itself
 * keeps none, so a fork's earlier turns never pile up markers): first on the last block of message
 * `sharedEnd − 1` (the end of what every fork inherits), then on the last message, while the
 * parent's own breakpoints leave room.
 */
export function placeBreakpoints(
  messages: readonly AnthropicMessageLike[],
  sharedEnd: number,
  parentBreakpoints: number,
  ttl: CacheTtl,
): AnthropicMessageLike[] {
  const out = [...messages];
  let room = MAX_BREAKPOINTS - parentBreakpoints;
  const control = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const mark = (index: number): void => {
    if (room <= 0 || index < 0 || index >= out.length) return;
    const marked = withBreakpoint(out[index] as AnthropicMessageLike, control);
    if (marked === undefined) return;
    if (marked !== out[index]) room--;
    out[index] = marked;
  };
  mark(Math.min(sharedEnd, out.length) - 1);
  if (out.length - 1 !== sharedEnd - 1) mark(out.length - 1);
  return out;
}

/** The message with cache_control on its last markable block (unchanged when it has one there already). */
function withBreakpoint(message: AnthropicMessageLike, control: Block): AnthropicMessageLike | undefined {
  if (typeof message.content === 'string') {
    if (message.content === '') return undefined;
    return { ...message, content: [{ type: 'text', text: message.content, cache_control: control }] };
  }
  let at = -1;
  message.content.forEach((block, i) => {
    if (typeof block.type === 'string' && MARKABLE.has(block.type)) at = i;
  });
  if (at < 0) return undefined;
  if ((message.content[at] as Block).cache_control !== undefined) return message;
  return { ...message, content: message.content.map((block, i) => (i === at ? { ...block, cache_control: control } : block)) };
}
