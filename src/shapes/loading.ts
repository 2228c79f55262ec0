import { aiSdkShape } from './ai-sdk/index.js';
import { aiSdkLoading } from './ai-sdk/loading.js';
import { anthropicMessagesShape } from './anthropic-messages/index.js';
import { anthropicMessagesLoading } from './anthropic-messages/loading.js';
import { geminiShape } from './gemini/index.js';
import { geminiLoading } from './gemini/loading.js';
import { openAIChatShape } from './openai-chat/index.js';
import { openAIChatLoading } from './openai-chat/loading.js';
import { openAIResponsesShape } from './openai-responses/index.js';
import { openAIResponsesLoading } from './openai-responses/loading.js';
import { addShape } from './registry.js';
import type { Shape, ShapeLoading } from './shape.js';

/*
 * The main thread's side of the registry: each shape's loading (its session check and its logged
 * requests' reader), by format. Apart from registry.ts because these are built on the shapes' zod
 * schemas, and a fork's thread, which loads the registry, never checks a session and never loads zod.
 */

const loadings = new Map<string, ShapeLoading>([
  [geminiShape.format, geminiLoading as unknown as ShapeLoading],
  [openAIChatShape.format, openAIChatLoading as unknown as ShapeLoading],
  [openAIResponsesShape.format, openAIResponsesLoading as unknown as ShapeLoading],
  [anthropicMessagesShape.format, anthropicMessagesLoading as unknown as ShapeLoading],
  [aiSdkShape.format, aiSdkLoading as unknown as ShapeLoading],
]);

/** A registered shape's loading: its session check (`parse`) and its logged requests' reader (`intake`). */
export function loadingOf(shape: Shape): ShapeLoading {
  const found = loadings.get(shape.format);
  if (found === undefined) throw new TypeError(`the shape ${JSON.stringify(shape.format)} was registered without its loading`);
  return found;
}

/**
 * Registers a shape of one's own (a made-up one in the tests; see docs/shapes.md): the shape, for
 * every module that reads or writes its messages, and its loading. Its format must be new: a format
 * already registered is a TypeError.
 */
export function registerShape(shape: Shape & ShapeLoading): void {
  addShape(shape);
  loadings.set(shape.format, { parse: (json, source) => shape.parse(json, source), intake: shape.intake });
}

/* What the shapes give the public entry points (session/index.ts, protocol.ts, index.ts): their session schemas and checks. */
export { geminiSessionSchema } from './gemini/schema.js';
export { openAIChatSessionSchema, parseOpenAIChatSession } from './openai-chat/schema.js';
export { anthropicMessagesSessionSchema, parseAnthropicMessagesSession } from './anthropic-messages/schema.js';
