import type { TokenUsage } from '../model/types.js';

/*
 * A conversation's native messages (Gemini Content, Chat Completions messages, Anthropic Messages)
 * read as the content blocks of Qwen Code's stream-json. The shapes mirror @qwen-code/sdk's
 * TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock and Usage; test/stream-json-sdk.test.ts
 * type-checks real lines against that package itself, so these cannot drift from it unnoticed.
 * Reading only: ids a message lacks are named by the caller (stream-json.ts), who knows the turn.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string;
  is_error: boolean;
}

export type AssistantBlock = TextBlock | ThinkingBlock | ToolUseBlock;

/** A call as the message has it: `id` undefined when the model gave none (Gemini often does not). */
export type ReplyBlock = TextBlock | ThinkingBlock | (Omit<ToolUseBlock, 'id'> & { id: string | undefined });

/** What a user-side message holds, in order: results of calls (by id, when it has one) and texts. */
export type AnswerPart = { kind: 'result'; id: string | undefined; content: string; isError: boolean } | { kind: 'text'; text: string };

export interface SdkUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

type Json = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** Gemini's and Anthropic's content lists; a Chat Completions content part list too. */
const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** The message is the model's (Gemini's role "model", an "assistant" elsewhere), whoever added it: a fork's seed holds one. */
export function isModelMessage(message: unknown): boolean {
  return isRecord(message) && (message.role === 'model' || message.role === 'assistant');
}

/** A model reply's blocks in the order it wrote them (images and other media have no SDK block: left out). */
export function replyBlocks(message: unknown): ReplyBlock[] {
  if (!isRecord(message)) return [];
  if (Array.isArray(message.parts)) return records(message.parts).flatMap(geminiReplyPart);
  const blocks = contentBlocks(message.content).flatMap(replyBlockOf);
  // Chat Completions puts its calls beside the content, after it.
  for (const call of records(message.tool_calls)) {
    const fn = call.function;
    if (call.type !== 'function' || !isRecord(fn) || typeof fn.name !== 'string') continue;
    blocks.push({ type: 'tool_use', id: nonEmpty(call.id), name: fn.name, input: parsedArguments(fn.arguments) });
  }
  return blocks;
}

/** A user-side message's results and texts in order: a Gemini answer, a Chat Completions tool or user message, an Anthropic user message. */
export function answerParts(message: unknown): AnswerPart[] {
  if (!isRecord(message)) return [];
  if (Array.isArray(message.parts)) return records(message.parts).flatMap(geminiAnswerPart);
  if (message.role === 'tool') return [{ kind: 'result', id: nonEmpty(message.tool_call_id), ...chatToolResult(message.content) }];
  // A system or developer message (a sub-agent's own instructions) is no user turn.
  if (message.role !== 'user') return [];
  return contentBlocks(message.content).flatMap(answerPartOf);
}

/** A call's usage as the SDK's Usage; cached tokens a provider does not report are left out, not 0. */
export function sdkUsage(usage: TokenUsage | undefined): SdkUsage {
  if (usage === undefined) return { input_tokens: 0, output_tokens: 0 };
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: usage.cacheWriteTokens } : {}),
    ...(usage.cachedTokens !== null ? { cache_read_input_tokens: usage.cachedTokens } : {}),
  };
}

/**
 * Blocks in runs of one type, in order: Qwen Code's assistant messages each hold blocks of a
 * single type (its BaseJsonOutputAdapter starts a new message when the type changes). Adjacent
 * texts (or thoughts) are one block, as its streamed fragments are.
 */
export function runsOfOneType(blocks: readonly AssistantBlock[]): AssistantBlock[][] {
  const runs: AssistantBlock[][] = [];
  for (const block of blocks) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run === undefined || last === undefined || last.type !== block.type) runs.push([block]);
    else if (last.type === 'text' && block.type === 'text') run[run.length - 1] = { type: 'text', text: last.text + block.text };
    // A signed thought (Anthropic's) stays whole: its signature covers its own text only.
    else if (last.type === 'thinking' && block.type === 'thinking' && last.signature === undefined && block.signature === undefined) {
      run[run.length - 1] = { type: 'thinking', thinking: last.thinking + block.thinking };
    } else run.push(block);
  }
  return runs;
}

function geminiReplyPart(part: Json): ReplyBlock[] {
  // An empty text says nothing (the reference skips empty fragments too).
  if (typeof part.text === 'string') return part.text === '' ? [] : part.thought === true ? [{ type: 'thinking', thinking: part.text }] : [{ type: 'text', text: part.text }];
  const call = part.functionCall;
  if (isRecord(call) && typeof call.name === 'string') return [{ type: 'tool_use', id: nonEmpty(call.id), name: call.name, input: call.args ?? {} }];
  return [];
}

function geminiAnswerPart(part: Json): AnswerPart[] {
  if (typeof part.text === 'string') return part.thought === true ? [] : [{ kind: 'text', text: part.text }];
  const response = part.functionResponse;
  if (!isRecord(response)) return [];
  return [{ kind: 'result', id: nonEmpty(response.id), ...geminiResult(isRecord(response.response) ? response.response : {}) }];
}

/** forkpool answers a call with `{ output }` or `{ error }` (shapes/gemini/dialect.ts); any other response is shown whole. */
function geminiResult(response: Json): { content: string; isError: boolean } {
  const { output, error } = response;
  if (typeof error === 'string' && output === undefined) return { content: error, isError: true };
  if (output === undefined) return { content: JSON.stringify(response), isError: false };
  return { content: typeof output === 'string' ? output : JSON.stringify(output), isError: false };
}

/** A Chat Completions tool message: forkpool writes a failed call as the JSON `{"error": …}` (shapes/openai-chat/dialect.ts). */
function chatToolResult(content: unknown): { content: string; isError: boolean } {
  const text = typeof content === 'string' ? content : textOf(content);
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && Object.keys(parsed).length === 1 && typeof parsed.error === 'string') return { content: parsed.error, isError: true };
  } catch {
    // Not JSON: the tool's own text.
  }
  return { content: text, isError: false };
}

/** Chat Completions and Anthropic content: a string is one text; their block kinds do not overlap. */
function contentBlocks(content: unknown): Json[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : records(content);
}

function replyBlockOf(block: Json): ReplyBlock[] {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' && block.text !== '' ? [{ type: 'text', text: block.text }] : [];
    case 'refusal':
      return typeof block.refusal === 'string' ? [{ type: 'text', text: block.refusal }] : [];
    case 'thinking': {
      if (typeof block.thinking !== 'string') return [];
      const signature = stringOr(block.signature);
      return [{ type: 'thinking', thinking: block.thinking, ...(signature !== undefined ? { signature } : {}) }];
    }
    case 'tool_use':
      return typeof block.name === 'string' ? [{ type: 'tool_use', id: nonEmpty(block.id), name: block.name, input: block.input ?? {} }] : [];
    default:
      // redacted_thinking has nothing to read; server tools and media have no SDK block.
      return [];
  }
}

function answerPartOf(block: Json): AnswerPart[] {
  if (block.type === 'text' && typeof block.text === 'string') return [{ kind: 'text', text: block.text }];
  if (block.type !== 'tool_result') return [];
  const content = typeof block.content === 'string' ? block.content : textOf(block.content);
  return [{ kind: 'result', id: nonEmpty(block.tool_use_id), content, isError: block.is_error === true }];
}

/** The texts of a content list, joined (an image in a tool's result has no text to show). */
function textOf(content: unknown): string {
  return records(content)
    .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    .join('');
}

/** The call's arguments as the model wrote them: an object when they are JSON, else the raw text. */
function parsedArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
