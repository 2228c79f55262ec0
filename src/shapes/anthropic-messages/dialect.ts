import type { AnthropicForkSeed, AnthropicMessageLike, AnthropicRequest } from './request.js';
import type { FunctionDeclaration } from '../dialect.js';
import type { Dialect, ToolResponse } from '../dialect.js';
import type { CallView } from '../view.js';
import { bodyWith } from '../request-body.js';
import { seedWithSystemField, sessionFieldsChars } from '../seed.js';

/** What the dialect needs of an Anthropic-shaped session (the session schema, AnthropicMessagesSession, has the full shape). */
export interface AnthropicSessionLike {
  format: 'anthropic-messages';
  model: string;
  max_tokens: number;
  tools?: readonly unknown[];
  system?: unknown;
  messages: readonly AnthropicMessageLike[];
}

type Block = Readonly<Record<string, unknown>>;

/**
 * Anthropic's Messages API shape: the system prompt is a field of its own, calls are `tool_use`
 * blocks of an assistant message, results are `tool_result` blocks that open the next user
 * message, and the user's words follow them in that same message.
 */
export const anthropicMessagesDialect: Dialect<AnthropicMessageLike, AnthropicSessionLike, AnthropicRequest, AnthropicForkSeed> = {
  format: 'anthropic-messages',
  split: (session) => ({ head: [], history: session.messages }),
  messages: (session) => session.messages,
  withConversation: (session, messages, tools) => ({
    ...session,
    ...(tools !== undefined ? { tools } : {}),
    messages,
  }),
  tools: (session) => session.tools,
  declareFunction: anthropicTool,
  userText: (text) => ({ role: 'user', content: text }),
  modelText: (text) => ({ role: 'assistant', content: text }),
  withoutResults: (message) => withoutToolResults(message),
  redactCalls(message, tools) {
    if (typeof message.content === 'string' || !message.content.some((block) => isSpawnCall(block, tools))) return message;
    return { ...message, content: message.content.map((block) => (isSpawnCall(block, tools) ? { ...block, input: {} } : block)) };
  },
  answer(calls, responses, texts) {
    const content = [...resultBlocks(calls, responses), ...texts.map((text) => ({ type: 'text', text }))];
    return { messages: [{ role: 'user', content }], shared: texts.length > 0 ? 0 : 1 };
  },
  completeResults(history, calls, responses, texts) {
    const last = history[history.length - 1] as AnthropicMessageLike;
    const opening: readonly Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    const joined: AnthropicMessageLike = {
      ...last,
      content: [...opening, ...resultBlocks(calls, responses), ...texts.map((text) => ({ type: 'text', text }))],
    };
    return { contents: [...history.slice(0, -1), joined], shared: history.length - 1 };
  },
  request(fields, messages): AnthropicRequest {
    return { format: 'anthropic-messages', body: bodyWith(fields, 'messages', messages) as AnthropicRequest['body'] };
  },
  mergesTurns: true,
  splitsTurns: false,
  seed: (session, parts, how) =>
    seedWithSystemField<AnthropicMessageLike, AnthropicForkSeed>('anthropic-messages', 'system', session, parts, how),
  // The seed's session is a validated one: every field the request body needs, in its order.
  seedRequest: (seed, messages) => anthropicMessagesDialect.request(seed.session as unknown as AnthropicSessionLike, messages),
  seedFieldsChars: (seed) => sessionFieldsChars(seed.session),
};

/** The message without its tool_result blocks (the same message when it has none). */
function withoutToolResults(message: AnthropicMessageLike): AnthropicMessageLike {
  if (typeof message.content === 'string' || !message.content.some((block) => block.type === 'tool_result')) return message;
  return { ...message, content: message.content.filter((block) => block.type !== 'tool_result') };
}

/** A function declaration as an Anthropic tool (`input_schema` is the JSON Schema). */
export function anthropicTool(declaration: FunctionDeclaration): Block {
  return { name: declaration.name, description: declaration.description, input_schema: declaration.parametersJsonSchema };
}

function isSpawnCall(block: Block, tools: ReadonlySet<string>): boolean {
  return block.type === 'tool_use' && typeof block.name === 'string' && tools.has(block.name);
}

/** A result as the model reads it: the output itself when it is text, else the response as JSON; an error is marked as one. */
function resultBlocks(calls: readonly CallView[], responses: readonly ToolResponse[]): Block[] {
  return calls.map((call, i) => {
    const response = responses[i] ?? {};
    const output = response.output;
    const error = response.error;
    if (typeof error === 'string' && output === undefined) {
      return { type: 'tool_result', tool_use_id: call.id ?? call.name, content: error, is_error: true };
    }
    return {
      type: 'tool_result',
      tool_use_id: call.id ?? call.name,
      content: typeof output === 'string' ? output : JSON.stringify(response),
    };
  });
}
