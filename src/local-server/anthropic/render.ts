import type { AnthropicBlock, AnthropicRequest, CacheControl } from './wire.js';
import type { MessageRendering } from '../core/boundaries.js';
import { CHARS_PER_TOKEN } from '../core/chain.js';
import { bodySpans, bytesOf, elementBytes } from '../core/json-spans.js';
import { hashPrompt, startOf, type PromptUnit, type SentBody } from '../core/prompt-hash.js';
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

/** Its `messageEnds` and `marks` are per block, for `boundaries` (core/boundaries.ts): the key of the prefix ending at each block. */
export interface AnthropicRendering extends MessageRendering {
  blocks: RenderedBlock[];
}

const RUNS = new Set(['tool_use', 'tool_result']);
const NOT_CACHEABLE = new Set(['thinking', 'redacted_thinking']);

/** Anthropic's cache has no fixed blocks: the chained block keys of the rendering go unused (its digest is the context hash). */
const KEY_BLOCK_TOKENS = 64;

/** A content block as sent, where it is, and the tag it is rendered under. */
interface SentBlock {
  path: string;
  tag: string;
  block: JsonObject;
}

function contentBlocks(path: string, tag: string, content: string | AnthropicBlock[]): SentBlock[] {
  if (typeof content === 'string') return [{ path, tag, block: { type: 'text', text: content } }];
  return content.map((block, i) => ({ path: `${path}.${i}`, tag, block }));
}

function renderBlock({ tag, block }: SentBlock): string {
  const { cache_control: _marker, ...rest } = block;
  return `<${tag}>${JSON.stringify(rest)}\n`;
}

function blockUnit(kind: string, source: Uint8Array | undefined, blocks: readonly SentBlock[]): PromptUnit {
  return { kind, source, marked: true, render: () => blocks.map(renderBlock) };
}

/** Where each block is, its place for the lookback, its breakpoint and whether it can be cached; `ends`: where each ends. */
function describe(blocks: readonly SentBlock[], ends: readonly number[]): RenderedBlock[] {
  const out: RenderedBlock[] = [];
  let position = -1;
  blocks.forEach(({ path, block }, i) => {
    const type = typeof block.type === 'string' ? block.type : 'tool';
    const previous = out[out.length - 1];
    if (!(previous && RUNS.has(type) && previous.type === type)) position++;
    const cacheable = !NOT_CACHEABLE.has(type) && !(type === 'text' && block.text === '');
    out.push({ path, type, end: ends[i] as number, position, cacheControl: block.cache_control as CacheControl | undefined, cacheable });
  });
  return out;
}

/**
 * With the body's bytes (`sent`), the tools, the system prompt and each message are remembered by
 * the bytes they were sent as (core/prefix-memo.ts): a request repeating an earlier one's leading
 * messages hashes only the rest. A message whose breakpoint moved is a new message.
 */
export function renderMessages(request: AnthropicRequest, sent?: SentBody): AnthropicRendering {
  const spans = sent ? bodySpans(sent.bytes, 'messages') : undefined;
  const bytes = (key: string): Uint8Array | undefined => (sent && spans ? bytesOf(sent.bytes, spans.members.get(key)) : undefined);
  const messageSources = sent && spans ? elementBytes(sent.bytes, spans, request.messages.length) : undefined;
  const units: PromptUnit[] = [];
  const tools = (request.tools ?? []).map((block, i): SentBlock => ({ path: `tools.${i}`, tag: 'tool', block }));
  if (tools.length > 0) units.push(blockUnit('anthropic.tools', bytes('tools'), tools));
  const system = request.system === undefined ? [] : contentBlocks('system', 'system', request.system);
  if (request.system !== undefined) units.push(blockUnit('anthropic.system', bytes('system'), system));
  if (request.toolChoice !== undefined || request.thinking !== undefined) {
    const text = `<settings>${JSON.stringify({ tool_choice: request.toolChoice, thinking: request.thinking })}\n`;
    // Two small fields, known by their rendering.
    units.push({ kind: 'anthropic.settings', source: Buffer.from(text), marked: false, render: () => [text] });
  }
  const messages = request.messages.map((message, i) => contentBlocks(`messages.${i}.content`, message.role, message.content));
  for (const [i, blocks] of messages.entries()) units.push(blockUnit('anthropic.message', messageSources?.[i], blocks));
  const start = startOf(`anthropic\0${request.model}\0${KEY_BLOCK_TOKENS}`, request.model);
  const prompt = hashPrompt(units, start, KEY_BLOCK_TOKENS * CHARS_PER_TOKEN, spans ? sent?.memo : undefined);
  return {
    prompt,
    model: request.model,
    blocks: describe([...tools, ...system, ...messages.flat()], prompt.ends),
    messageEnds: prompt.ends,
    marks: prompt.marks,
  };
}
