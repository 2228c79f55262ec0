import type { AiSdkForkSeed, AiSdkMessageLike, AiSdkRequest } from './request.js';
import type { FunctionDeclaration } from '../dialect.js';
import type { Dialect, ToolResponse } from '../dialect.js';
import type { CallView } from '../view.js';
import { bodyWith } from '../request-body.js';
import { seedWithSystemField, sessionFieldsChars } from '../seed.js';

/** What the dialect needs of an AI SDK session (the session schema, AiSdkSession, has the full shape). */
export interface AiSdkSessionLike {
  format: 'ai-sdk';
  model: string;
  system?: unknown;
  messages: readonly AiSdkMessageLike[];
  /** The AI SDK's tools: an object keyed by name, each with its `inputSchema` as JSON Schema. */
  tools?: Readonly<Record<string, unknown>>;
}

type Part = Readonly<Record<string, unknown>>;

/**
 * A tool as the dialect's `tools` array holds it: the AI SDK keys tools by name, the fork rules list
 * them, so the name travels in the entry and goes back to being the key (the definition's own keys
 * in their order) when the session is written again.
 */
interface NamedTool {
  name: string;
  [key: string]: unknown;
}

/**
 * The Vercel AI SDK's ModelMessage shape (what `generateText`/`streamText` take): the system prompt
 * is a field of its own (system messages may lead `messages` too), calls are `tool-call` parts of an
 * assistant message, their results `tool-result` parts of a `tool` message after it, and the user's
 * words a user message of their own.
 */
export const aiSdkDialect: Dialect<AiSdkMessageLike, AiSdkSessionLike, AiSdkRequest, AiSdkForkSeed> = {
  format: 'ai-sdk',
  split(session) {
    let head = 0;
    while (head < session.messages.length && (session.messages[head] as AiSdkMessageLike).role === 'system') head++;
    // A copy first: slicing a frozen array (a frozen prefix's) is ~100× slower in V8.
    const messages = [...session.messages];
    return { head: messages.slice(0, head), history: messages.slice(head) };
  },
  messages: (session) => session.messages,
  withConversation: (session, messages, tools) => ({
    ...session,
    ...(tools !== undefined ? { tools: toolRecord(tools as readonly NamedTool[]) } : {}),
    messages,
  }),
  tools: (session) =>
    session.tools === undefined ? undefined : Object.entries(session.tools).map(([name, tool]) => ({ name, ...(tool as object) })),
  declareFunction: aiSdkTool,
  userText: (text) => ({ role: 'user', content: text }),
  modelText: (text) => ({ role: 'assistant', content: text }),
  // Results are tool messages of their own, never part of a user turn a window starts at.
  withoutResults: (message) => message,
  redactCalls(message, tools) {
    if (message.role !== 'assistant' || typeof message.content === 'string' || !message.content.some((part) => isSpawnCall(part, tools)))
      return message;
    return { ...message, content: message.content.map((part) => (isSpawnCall(part, tools) ? { ...part, input: {} } : part)) };
  },
  answer(calls, responses, texts) {
    const messages: AiSdkMessageLike[] = calls.length > 0 ? [{ role: 'tool', content: resultParts(calls, responses) }] : [];
    if (texts.length > 0) messages.push(userTexts(texts));
    return { messages, shared: calls.length > 0 ? 1 : 0 };
  },
  completeResults(history, calls, responses, texts) {
    // The last calls' results so far are a tool message: the others join it, as the parent's next one would hold them all.
    const last = history[history.length - 1] as AiSdkMessageLike;
    const opening = typeof last.content === 'string' ? [] : last.content;
    const joined: AiSdkMessageLike = { ...last, content: [...opening, ...resultParts(calls, responses)] };
    return { contents: [...history.slice(0, -1), joined, ...(texts.length > 0 ? [userTexts(texts)] : [])], shared: history.length };
  },
  request(fields, messages): AiSdkRequest {
    return { format: 'ai-sdk', body: bodyWith(fields, 'messages', messages) as AiSdkRequest['body'] };
  },
  mergesTurns: false,
  splitsTurns: false,
  seed: (session, parts, how) => seedWithSystemField<AiSdkMessageLike, AiSdkForkSeed>('ai-sdk', 'system', session, parts, how),
  seedRequest: (seed, messages) => aiSdkDialect.request(seed.session, messages),
  seedFieldsChars: (seed) => sessionFieldsChars(seed.session),
};

/** A function declaration as an AI SDK tool entry (`inputSchema` is the JSON Schema). */
export function aiSdkTool(declaration: FunctionDeclaration): NamedTool {
  return { name: declaration.name, description: declaration.description, inputSchema: declaration.parametersJsonSchema };
}

/** The dialect's tool entries as the AI SDK's object keyed by name. */
function toolRecord(tools: readonly NamedTool[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const { name, ...tool } of tools) record[name] = tool;
  return record;
}

function isSpawnCall(part: Part, tools: ReadonlySet<string>): boolean {
  return part.type === 'tool-call' && typeof part.toolName === 'string' && tools.has(part.toolName);
}

/** A result as the model reads it: the output itself when it is text, an error as one, else the response as JSON. */
function resultParts(calls: readonly CallView[], responses: readonly ToolResponse[]): Part[] {
  return calls.map((call, i) => {
    const response = responses[i] ?? {};
    const { output, error } = response;
    const value =
      typeof error === 'string' && output === undefined
        ? { type: 'error-text', value: error }
        : typeof output === 'string'
          ? { type: 'text', value: output }
          : { type: 'json', value: response };
    return { type: 'tool-result', toolCallId: call.id ?? call.name, toolName: call.name, output: value };
  });
}

function userTexts(texts: readonly string[]): AiSdkMessageLike {
  return texts.length === 1
    ? { role: 'user', content: texts[0] as string }
    : { role: 'user', content: texts.map((text) => ({ type: 'text', text })) };
}
