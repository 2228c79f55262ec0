import type { AnthropicBlock, AnthropicRequest, CacheControl } from './wire.js';
import { tokenizeRendered, type RenderedPrompt } from '../core/render.js';
import type { JsonObject } from '../core/types.js';

/**
 * The prompt of a Messages request as Anthropic's cache sees it: content blocks in the order
 * "tools, system, and messages (in that order)" (platform.claude.com/docs/en/build-with-claude/
 * prompt-caching, "Prompt caching caches the full prefix"). Each tool definition, system text
 * block and message content block is one block, rendered as the JSON it was sent as without its
 * `cache_control` (moving a breakpoint does not change the content it marks); a string content is
 * one text block. `tool_choice` and the thinking configuration are rendered ahead of the messages
 * (same page, "What invalidates the cache": changing them invalidates message blocks only).
 */

interface RenderedBlock {
  /** Where the block is in the request (`tools.0`, `system`, `messages.3.content.1`). */
  path: string;
  type: string;
  /** Character offset in the rendering where the block ends. */
  end: number;
  /**
   * Its place for the 20-block lookback: "a run of consecutive tool_use blocks counts as one
   * position, and so does a run of consecutive tool_result blocks" (same page, "How automatic
   * prefix checking works").
   */
  position: number;
  cacheControl: CacheControl | undefined;
  /** Neither a thinking block nor an empty text block ("What cannot be cached"). */
  cacheable: boolean;
}

export interface AnthropicRendering {
  prompt: RenderedPrompt;
  model: string;
  blocks: RenderedBlock[];
  /** Block ends, for `boundaries` (core/boundaries.ts): the key of the prefix ending at each block. */
  messageEnds: number[];
}

const RUNS = new Set(['tool_use', 'tool_result']);
const NOT_CACHEABLE = new Set(['thinking', 'redacted_thinking']);

/** Anthropic's cache has no fixed blocks: the chained block keys of the rendering go unused (its digest is the context hash). */
const KEY_BLOCK_TOKENS = 64;

export function renderMessages(request: AnthropicRequest): AnthropicRendering {
  let text = '';
  const blocks: RenderedBlock[] = [];
  let position = -1;
  const add = (path: string, tag: string, block: JsonObject): void => {
    const { cache_control, ...rest } = block;
    text += `<${tag}>${JSON.stringify(rest)}\n`;
    const type = typeof block.type === 'string' ? block.type : 'tool';
    const previous = blocks[blocks.length - 1];
    if (!(previous && RUNS.has(type) && previous.type === type)) position++;
    const cacheable = !NOT_CACHEABLE.has(type) && !(type === 'text' && block.text === '');
    blocks.push({ path, type, end: text.length, position, cacheControl: cache_control as CacheControl | undefined, cacheable });
  };
  const addContent = (path: string, tag: string, content: string | AnthropicBlock[]): void => {
    if (typeof content === 'string') add(path, tag, { type: 'text', text: content });
    else for (const [i, block] of content.entries()) add(`${path}.${i}`, tag, block);
  };
  for (const [i, tool] of (request.tools ?? []).entries()) add(`tools.${i}`, 'tool', tool);
  if (request.system !== undefined) addContent('system', 'system', request.system);
  if (request.toolChoice !== undefined || request.thinking !== undefined) {
    text += `<settings>${JSON.stringify({ tool_choice: request.toolChoice, thinking: request.thinking })}\n`;
  }
  for (const [i, message] of request.messages.entries()) addContent(`messages.${i}.content`, message.role, message.content);
  return {
    prompt: tokenizeRendered(text, KEY_BLOCK_TOKENS, request.model),
    model: request.model,
    blocks,
    messageEnds: blocks.map((block) => block.end),
  };
}
