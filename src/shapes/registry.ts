import { InputError } from '../input/errors.js';
import { aiSdkShape } from './ai-sdk/index.js';
import type { AiSdkForkSeed, AiSdkMessageLike, AiSdkRequest } from './ai-sdk/request.js';
import type { AiSdkSession } from './ai-sdk/schema.js';
import { anthropicMessagesShape } from './anthropic-messages/index.js';
import type { AnthropicForkSeed, AnthropicMessageLike, AnthropicRequest } from './anthropic-messages/request.js';
import type { AnthropicMessagesSession } from './anthropic-messages/schema.js';
import type { Dialect } from './dialect.js';
import { geminiShape } from './gemini/index.js';
import type { GeminiForkSeed, GeminiRequest } from './gemini/request.js';
import type { Content, GeminiSession } from './gemini/schema.js';
import { openAIChatShape } from './openai-chat/index.js';
import type { OpenAIChatForkSeed, OpenAIChatRequest } from './openai-chat/request.js';
import type { ChatMessage, OpenAIChatSession } from './openai-chat/schema.js';
import { openAIResponsesShape } from './openai-responses/index.js';
import type { OpenAIResponsesForkSeed, OpenAIResponsesRequest, ResponsesItemLike, ResponsesTurn } from './openai-responses/request.js';
import type { OpenAIResponsesSession } from './openai-responses/schema.js';
import type { Shape } from './shape.js';
import { type AnyMessage, cachedView, type MessageView } from './view.js';

/*
 * The registry of API shapes: every other module reaches a shape through it (by a session, a
 * request or a format name) and never names one itself. Adding a shape is a folder of its own and
 * a line here and in loading.ts (docs/shapes.md, "Adding a shape"). A fork's thread loads this
 * module: it lists the shapes without their zod schemas (loading.ts lists those, for the main thread).
 */

const BUILT_IN: readonly Shape[] = [
  geminiShape,
  openAIChatShape,
  openAIResponsesShape,
  anthropicMessagesShape,
  aiSdkShape,
] as unknown as Shape[];

/** The shape a session without a `format` is in. */
const DEFAULT_SHAPE = geminiShape as unknown as Shape;

const shapes = new Map<string, Shape>(BUILT_IN.map((shape) => [shape.format, shape]));

/** A parent session in the shape of the API it was sent to: its `format` says which (Gemini's when absent). */
export type ParentSession = GeminiSession | OpenAIChatSession | OpenAIResponsesSession | AnthropicMessagesSession | AiSdkSession;
/** The built-in shapes' formats. */
export type SessionFormat = 'gemini' | 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'ai-sdk';

/** One model call, in the shape of its session: each shape's request (its folder's request.ts). */
export type ModelRequest = GeminiRequest | OpenAIChatRequest | AnthropicRequest | AiSdkRequest | OpenAIResponsesRequest;

/** A message in the request's own dialect: a Gemini Content, a Chat Completions, Anthropic or AI SDK message, a Responses item or turn. */
export type ModelMessage = Content | ChatMessage | AnthropicMessageLike | AiSdkMessageLike | ResponsesItemLike | ResponsesTurn;

/** The pieces of a fork's first model request, in its session's shape (each shape's seed: its folder's request.ts). */
export type ForkSeed = GeminiForkSeed | OpenAIChatForkSeed | AnthropicForkSeed | AiSdkForkSeed | OpenAIResponsesForkSeed;
/**
 * The seed of a session of one shape, by the session's `format` (the default shape's session may
 * leave it out): a session typed as any shape gets a seed of any shape.
 */
export type ForkSeedOf<S> = S extends { readonly format?: infer F } ? Extract<ForkSeed, { format: NonNullable<F> }> : never;

export type {
  AiSdkForkSeed,
  AiSdkMessageLike,
  AiSdkRequest,
  AnthropicForkSeed,
  AnthropicMessageLike,
  AnthropicRequest,
  GeminiForkSeed,
  GeminiRequest,
  OpenAIChatForkSeed,
  OpenAIChatRequest,
  OpenAIResponsesForkSeed,
  OpenAIResponsesRequest,
  ResponsesItemLike,
  AiSdkSession,
  AnthropicMessagesSession,
  GeminiSession,
  OpenAIChatSession,
  OpenAIResponsesSession,
};

/** A dialect as code that works on every shape sees it: the unions of the shapes' messages, requests and seeds. */
export type AnyDialect<S = unknown> = Dialect<AnyMessage, S, ModelRequest, ForkSeed>;

/** Every registered shape's format, in the order help and errors list them (the default first). */
export function shapeFormats(): string[] {
  return [...shapes.keys()];
}

/** The registered shapes. */
export function allShapes(): Shape[] {
  return [...shapes.values()];
}

/** Formats as a list in words: "a", "b" or "c". */
export function formatList(formats: readonly string[] = shapeFormats()): string {
  const quoted = formats.map((f) => JSON.stringify(f));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : (quoted[0] ?? '');
}

/** The shape of a format; an unknown format is a TypeError listing the known ones. */
export function shapeNamed(format: string): Shape {
  const found = shapes.get(format);
  if (found === undefined) throw new TypeError(`unknown session format ${JSON.stringify(format)}: the formats are ${formatList()}`);
  return found;
}

/** The shape of a format, or undefined. */
export function findShape(format: string): Shape | undefined {
  return shapes.get(format);
}

/** The shape a (validated) session is in. */
export function shapeOf(session: Readonly<object>): Shape {
  const format = (session as { format?: unknown }).format;
  return typeof format === 'string' ? shapeNamed(format) : DEFAULT_SHAPE;
}

/** A session's format: the default shape's unless it says otherwise. */
export function sessionFormat(session: Readonly<ParentSession>): SessionFormat {
  return shapeOf(session).format as SessionFormat;
}

/** A session's messages, whatever its shape calls them. */
export function sessionMessages(session: Readonly<ParentSession>): readonly unknown[] {
  return shapeOf(session).messages(session);
}

/**
 * The shape a JSON object names with its `format` (the default shape's when it names none); a
 * format no shape has is an InputError at `format` listing the known ones.
 */
export function shapeOfInput(json: object, source?: string): Shape {
  const format = (json as { format?: unknown }).format;
  if (format === undefined) return DEFAULT_SHAPE;
  const found = typeof format === 'string' ? shapes.get(format) : undefined;
  if (found === undefined) {
    const list = shapeFormats().map((f, i) => (i === 0 ? `"${f}" (the default)` : `"${f}"`));
    const words = `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
    throw new InputError({
      ...(source === undefined ? {} : { file: source }),
      path: 'format',
      rule: `must be ${words}, not ${JSON.stringify(format)}`,
    });
  }
  return found;
}

/** The reader and writer of one session shape. */
export function dialectFor(format: string): AnyDialect {
  return shapeNamed(format).dialect as unknown as AnyDialect;
}

/** The dialect a session is written in, for code that works on every shape: a session's messages and its dialect always agree. */
export function dialectOf(session: Readonly<ParentSession>): AnyDialect<ParentSession> {
  return shapeOf(session).dialect as unknown as AnyDialect<ParentSession>;
}

/**
 * Adds a shape of one's own to those every thread knows: registerShape (shapes/loading.ts) calls it,
 * with the shape's loading beside. Its format must be new: a format already registered is a TypeError.
 */
export function addShape(shape: Shape): void {
  if (shapes.has(shape.format)) throw new TypeError(`a shape with format ${JSON.stringify(shape.format)} is already registered`);
  shapes.set(shape.format, shape);
}

/**
 * A message's view when its shape is not at hand (the fork rules' public functions take bare
 * messages): read by the shape whose mark it bears, else by the first that reads it alike (a
 * `{ role, content }` message reads the same in each shape that writes one). A value no shape
 * reads is a TypeError. A frozen message (a frozen prefix's) is read once however many forks read it.
 */
export function viewMessage(message: AnyMessage): MessageView {
  return cachedView(message, (m) => readerOf(m).view(m));
}

function readerOf(message: unknown): Shape['reader'] {
  let alike: Shape | undefined;
  for (const shape of shapes.values()) {
    const recognition = shape.reader.recognize(message);
    if (recognition === 'own') return shape.reader;
    if (recognition === 'compatible') alike ??= shape;
  }
  if (alike === undefined) throw new TypeError(`not a message of any registered shape: ${String(JSON.stringify(message)).slice(0, 200)}`);
  return alike.reader;
}
/*
 * The shapes' session types, re-exported here so that no module outside a shape's folder imports
 * one (their schemas and checks are shapes/loading.ts's: the main thread's side).
 */
export type { GeminiTool, Part, SystemInstruction } from './gemini/schema.js';
export type { Content };
export type {
  ChatAssistantMessage,
  ChatContentPart,
  ChatTool,
  ChatToolCall,
  ChatToolMessage,
} from './openai-chat/schema.js';
export type { ChatMessage };
export type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic-messages/schema.js';
export type { AiSdkMessage, AiSdkTool } from './ai-sdk/schema.js';
