import type { AiSdkMessageLike, AnthropicMessageLike, ResponsesItemLike, ResponsesTurn } from '../model/types.js';
import type { ChatMessage } from './openai-chat/schema.js';
import type { Content } from './gemini/schema.js';

/*
 * What the fork rules read of a message, the same for every API's shape: who wrote it, its text,
 * the calls it makes and the results it carries. Reading never changes a message; writing is each
 * dialect's own (gemini.ts, openai-chat.ts), so what is sent stays in the parent's shape.
 */

export interface CallView {
  id?: string;
  name: string;
  /** The call's arguments as an object; undefined when they are missing or not a JSON object. */
  args?: Record<string, unknown>;
  /** Why the arguments could not be read (a Chat Completions `arguments` string that is not a JSON object). */
  argsError?: string;
}

export interface ResultView {
  /** The call it answers (Gemini: functionResponse.id; Chat Completions: tool_call_id). */
  id?: string;
  name?: string;
}

export interface MessageView {
  /** 'tool': a Chat Completions tool message; 'system': a system or developer message. */
  role: 'user' | 'model' | 'tool' | 'system';
  /** Its text parts in order (a model's thoughts left out). */
  texts: readonly string[];
  /** The text of its first part, when that part is text. */
  firstText: string | undefined;
  /** It holds content other than text, calls and results (an image, a file, audio). */
  media: boolean;
  calls: readonly CallView[];
  results: readonly ResultView[];
}

export type AnyMessage = Readonly<Content> | Readonly<ChatMessage> | Readonly<AnthropicMessageLike> | Readonly<AiSdkMessageLike> | ResponsesItemLike | Readonly<ResponsesTurn>;

/** A message's view; a frozen message (a frozen prefix's) is read once however many forks read it. */
export function viewMessage(message: AnyMessage): MessageView {
  const frozen = Object.isFrozen(message);
  const known = frozen ? views.get(message) : undefined;
  if (known) return known;
  // Gemini's Content has parts; Chat Completions, Anthropic and AI SDK messages have role and
  // content, and their blocks do not overlap in kind (a user message with string content reads the same in all).
  const view = 'parts' in message ? viewGemini(message as Readonly<Content>) : (viewResponses(message) ?? viewChat(message as Readonly<ChatMessage>));
  if (frozen) views.set(message, view);
  return view;
}

const views = new WeakMap<object, MessageView>();

function viewGemini(message: Readonly<Content>): MessageView {
  const texts: string[] = [];
  const calls: CallView[] = [];
  const results: ResultView[] = [];
  let media = false;
  for (const part of message.parts) {
    if (typeof part.text === 'string') {
      if ((part as { thought?: unknown }).thought !== true) texts.push(part.text);
    } else if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      calls.push({ ...(id !== undefined ? { id } : {}), name, ...(args !== undefined ? { args } : {}) });
    } else if (part.functionResponse) {
      const { id, name } = part.functionResponse;
      results.push({ ...(id !== undefined ? { id } : {}), name });
    } else media = true;
  }
  const first = message.parts[0]?.text;
  return {
    role: message.role === 'model' ? 'model' : 'user',
    texts,
    firstText: typeof first === 'string' ? first : undefined,
    media,
    calls,
    results,
  };
}

function viewChat(message: Readonly<ChatMessage>): MessageView {
  const content = readContent(message.content);
  const { texts, media, firstText } = content;
  switch (message.role) {
    case 'assistant': {
      const calls = (message.tool_calls ?? []).flatMap((call): CallView[] =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, ...readArguments(call.function.arguments) }] : [],
      );
      // Anthropic's calls are tool_use blocks of the content.
      return { role: 'model', texts, firstText, media, calls: [...calls, ...content.calls], results: [] };
    }
    case 'tool':
      // An AI SDK tool message holds its results as tool-result parts; a Chat Completions one answers one call.
      if (!('tool_call_id' in message)) return { role: 'tool', texts, firstText, media, calls: [], results: content.results };
      return { role: 'tool', texts, firstText, media, calls: [], results: [{ id: message.tool_call_id }] };
    case 'user':
      // Anthropic's results are tool_result blocks of a user message.
      return { role: 'user', texts, firstText, media, calls: [], results: content.results };
    default:
      return { role: 'system', texts, firstText, media, calls: [], results: [] };
  }
}

/**
 * A Responses API item that is not a message (a function_call, its output, a reasoning item), or a
 * turn of the fork's own (a response's output items); undefined for a message, which reads as Chat's.
 */
function viewResponses(message: AnyMessage): MessageView | undefined {
  const m = message as Readonly<Record<string, unknown>>;
  if (m.type === undefined && Array.isArray(m.output)) {
    const items = (m.output as readonly ResponsesItemLike[]).map((item) => viewMessage(item));
    const texts = items.flatMap((v) => v.texts);
    return { role: 'model', texts, firstText: items[0]?.firstText, media: items.some((v) => v.media), calls: items.flatMap((v) => v.calls), results: [] };
  }
  switch (m.type) {
    case 'function_call':
      return {
        role: 'model',
        texts: [],
        firstText: undefined,
        media: false,
        calls: [{ ...(typeof m.call_id === 'string' ? { id: m.call_id } : {}), name: String(m.name), ...readArguments(typeof m.arguments === 'string' ? m.arguments : '') }],
        results: [],
      };
    case 'function_call_output':
      return { role: 'tool', texts: [], firstText: undefined, media: false, calls: [], results: [typeof m.call_id === 'string' ? { id: m.call_id } : {}] };
    case 'reasoning':
      // The model's thinking: part of its turn, neither what it answered nor content a person gave.
      return { role: 'model', texts: [], firstText: undefined, media: false, calls: [], results: [] };
    case 'item_reference':
      return { role: 'user', texts: [], firstText: undefined, media: true, calls: [], results: [] };
    default:
      return undefined;
  }
}

type Block = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; toolCallId?: string; toolName?: string };

/** The parts of Chat Completions content, the blocks of Anthropic content, or the parts of AI SDK content (their kinds do not overlap). */
function readContent(content: unknown): { texts: string[]; media: boolean; firstText: string | undefined; calls: CallView[]; results: ResultView[] } {
  if (typeof content === 'string') return { texts: [content], media: false, firstText: content, calls: [], results: [] };
  if (!Array.isArray(content)) return { texts: [], media: false, firstText: undefined, calls: [], results: [] };
  const blocks = content as readonly Block[];
  const texts: string[] = [];
  const calls: CallView[] = [];
  const results: ResultView[] = [];
  let media = false;
  for (const block of blocks) {
    // Chat's and Anthropic's text; the Responses API's input_text and output_text.
    if ((block.type === 'text' || block.type === 'input_text' || block.type === 'output_text') && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use' && typeof block.name === 'string') {
      calls.push({ ...(typeof block.id === 'string' ? { id: block.id } : {}), name: block.name, ...inputArgs(block.input) });
    } else if (block.type === 'tool-call' && typeof block.toolName === 'string') {
      calls.push({ ...(typeof block.toolCallId === 'string' ? { id: block.toolCallId } : {}), name: block.toolName, ...inputArgs(block.input) });
    } else if (block.type === 'tool_result') results.push(typeof block.tool_use_id === 'string' ? { id: block.tool_use_id } : {});
    else if (block.type === 'tool-result') results.push({ ...(typeof block.toolCallId === 'string' ? { id: block.toolCallId } : {}), ...(typeof block.toolName === 'string' ? { name: block.toolName } : {}) });
    // A model's thinking is neither what it answered nor content a person gave.
    else if (!NOT_MEDIA.has(block.type)) media = true;
  }
  const first = blocks[0];
  const firstIsText = first?.type === 'text' || first?.type === 'input_text' || first?.type === 'output_text';
  return { texts, media, firstText: firstIsText ? first.text : undefined, calls, results };
}

const NOT_MEDIA = new Set(['text', 'input_text', 'output_text', 'refusal', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result', 'reasoning', 'tool-approval-request', 'tool-approval-response']);

/** Anthropic's and the AI SDK's calls carry their input parsed: an object, or something the model should not have sent. */
function inputArgs(input: unknown): Pick<CallView, 'args' | 'argsError'> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? { args: input as Record<string, unknown> } : { argsError: 'the input is not a JSON object' };
}

/** Chat Completions sends arguments as a JSON string; the model may write one that is not an object. */
function readArguments(raw: string): Pick<CallView, 'args' | 'argsError'> {
  if (raw.trim() === '') return { args: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { args: value as Record<string, unknown> };
    return { argsError: 'the arguments are not a JSON object' };
  } catch {
    return { argsError: 'the arguments are not valid JSON' };
  }
}
