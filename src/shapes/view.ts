import { isRecord } from '../input/json.js';

/*
 * What forkpool reads of a message, the same for every API's shape: who wrote it, its text, the
 * calls it makes, the results it carries (what each says and whether it failed) and all its parts
 * in order. Each shape reads its own messages (src/shapes/<shape>/view.ts, its dialect's `view`);
 * the fork rules, stream-json, transcripts and the parent's page read those views and never a
 * message's wire form. Reading never changes a message, so what is sent stays in the parent's shape.
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
  /** What the result says, as the model was shown it: a tool's output text, an error's message, else its JSON. */
  text: string;
  /** The result reports a failed call (forkpool's `{ error }` answers, Anthropic's is_error, the AI SDK's error outputs). */
  isError: boolean;
}

/** One part of a message, in the order the message holds them. */
export type PartView =
  /** `refusal`: a model's refusal (Chat Completions' and the Responses API's), shown as text but no text of `texts`. */
  | { kind: 'text'; text: string; refusal?: true }
  /** A model's thinking (Gemini's thought, Anthropic's thinking with its signature, a reasoning summary). */
  | { kind: 'thinking'; text: string; signature?: string }
  /** `input`: the arguments as the model wrote them, parsed when they are JSON, else the raw text. */
  | { kind: 'call'; call: CallView; input: unknown }
  | { kind: 'result'; result: ResultView }
  /** An image, a file, audio: content with no text to read. */
  | { kind: 'media' };

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
  /** Everything it holds, in order (a Chat Completions refusal reads as text here, not in `texts`). */
  parts: readonly PartView[];
}

/**
 * How a shape knows a bare message (one given without its session, as the fork rules' public
 * functions are): 'own' by a mark no other shape's messages have, 'compatible' when it reads the
 * same in several shapes (`{ role: 'user', content: 'hi' }`), 'foreign' when it cannot read it.
 */
export type Recognition = 'own' | 'compatible' | 'foreign';

/** How one shape's messages are read (its folder's view.ts): the Shape's `reader` facet. */
export interface MessageReader<M = AnyMessage> {
  /** The message's view (a frozen message's is read once: cachedView). */
  view(message: M): MessageView;
  /** Whether a bare message is in this shape's form. */
  recognize(message: unknown): Recognition;
}

/** A message of any shape, as neutral code handles it: only the shape's own reader and dialect look inside (the registry's ModelMessage is the union of the built-in shapes'). */
export type AnyMessage = object;

const views = new WeakMap<object, MessageView>();

/** A message's view by its shape's reader; a frozen message (a frozen prefix's) is read once however many forks read it. */
export function cachedView<M extends object>(message: M, read: (message: M) => MessageView): MessageView {
  const frozen = Object.isFrozen(message);
  const known = frozen ? views.get(message) : undefined;
  if (known) return known;
  const view = read(message);
  if (frozen) views.set(message, view);
  return view;
}

/**
 * A view assembled from a message's parts in order: its texts, calls, results and media come from
 * them. `content`: a message whose result is its content (a Chat Completions tool message) reads its texts from that.
 */
export function viewOfParts(
  role: MessageView['role'],
  parts: readonly PartView[],
  content?: Pick<MessageView, 'texts' | 'firstText'>,
): MessageView {
  const first = parts[0];
  return {
    role,
    texts: content?.texts ?? parts.flatMap((p) => (p.kind === 'text' && p.refusal === undefined ? [p.text] : [])),
    firstText: content !== undefined ? content.firstText : first?.kind === 'text' && first.refusal === undefined ? first.text : undefined,
    media: parts.some((p) => p.kind === 'media'),
    calls: parts.flatMap((p) => (p.kind === 'call' ? [p.call] : [])),
    results: parts.flatMap((p) => (p.kind === 'result' ? [p.result] : [])),
    parts,
  };
}

/** A call part whose arguments are already parsed (Gemini's args, Anthropic's and the AI SDK's input): an object, or something the model should not have sent. */
export function parsedCall(id: unknown, name: string, input: unknown): PartView {
  const args: Pick<CallView, 'args' | 'argsError'> =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? { args: input as Record<string, unknown> }
      : { argsError: 'the input is not a JSON object' };
  return { kind: 'call', call: { ...(typeof id === 'string' ? { id } : {}), name, ...args }, input: input ?? {} };
}

/** A call part whose arguments are a JSON string (Chat Completions, the Responses API): the model may write one that is not an object. */
export function stringCall(id: unknown, name: string, raw: string): PartView {
  const call: CallView = { ...(typeof id === 'string' ? { id } : {}), name };
  if (raw.trim() === '') return { kind: 'call', call: { ...call, args: {} }, input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'call', call: { ...call, argsError: 'the arguments are not valid JSON' }, input: raw };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return { kind: 'call', call: { ...call, args: value as Record<string, unknown> }, input: value };
  return { kind: 'call', call: { ...call, argsError: 'the arguments are not a JSON object' }, input: value };
}

/**
 * A result whose content is text (a Chat Completions tool message, a Responses function_call_output):
 * forkpool writes a failed call as the JSON `{"error": …}` (the dialects' `answer`), read back as the error's message.
 */
export function textResult(id: unknown, content: unknown, name?: string): ResultView {
  const text = contentText(content);
  const named = { ...(typeof id === 'string' ? { id } : {}), ...(name !== undefined ? { name } : {}) };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && Object.keys(parsed).length === 1 && typeof parsed.error === 'string')
      return { ...named, text: parsed.error, isError: true };
  } catch {
    // Not JSON: the tool's own text.
  }
  return { ...named, text, isError: false };
}

/** String content as it is; blocks (parts) as their texts, anything else named by its type. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : `[${isRecord(block) ? String(block.type) : 'part'}]`))
    .join('\n');
}
