import type { OpenAIResponsesForkSeed, OpenAIResponsesRequest, ResponsesItemLike, ResponsesTurn } from './request.js';
import type { FunctionDeclaration } from '../dialect.js';
import type { Dialect, ToolResponse } from '../dialect.js';
import type { CallView } from '../view.js';
import { bodyWith } from '../request-body.js';
import { seedWithSystemField, sessionFieldsChars } from '../seed.js';

/** What the dialect needs of a Responses session (the session schema has the full shape). */
export interface ResponsesSessionLike {
  format: 'openai-responses';
  model: string;
  instructions?: unknown;
  /** The conversation: a string (one user message) or input items. */
  input: string | readonly ResponsesItemLike[];
  tools?: readonly unknown[];
}

/** An entry of a fork's conversation: one of the parent's input items, or a turn of its own (a response's output). */
export type ResponsesEntry = ResponsesItemLike | ResponsesTurn;

/**
 * OpenAI's Responses API shape (`client.responses.create`): the conversation is a list of items —
 * messages, `function_call`s, their `function_call_output`s, `reasoning` — and a model turn is the
 * items one response output, so consecutive model items are one turn (mergesTurns). The system
 * prompt is `instructions`, or leading system and developer messages. A fork's own turns are kept
 * as the response gave them (`{ role: 'assistant', output }`) and sent as their items, in order,
 * reasoning and its encrypted content included.
 */
export const openAIResponsesDialect: Dialect<ResponsesEntry, ResponsesSessionLike, OpenAIResponsesRequest, OpenAIResponsesForkSeed> = {
  format: 'openai-responses',
  split(session) {
    const items = inputItems(session.input);
    let head = 0;
    while (head < items.length && isInstruction(items[head] as ResponsesItemLike)) head++;
    return { head: items.slice(0, head), history: items.slice(head) };
  },
  messages: (session) => inputItems(session.input),
  withConversation: (session, messages, tools) => ({
    ...session,
    ...(tools !== undefined ? { tools } : {}),
    input: flatten(messages),
  }),
  tools: (session) => session.tools,
  declareFunction: responsesFunctionTool,
  userText: (text) => ({ role: 'user', content: text }),
  modelText: (text) => ({ role: 'assistant', content: text }),
  // Results are items of their own, never part of a user message a window starts at.
  withoutResults: (entry) => entry,
  redactCalls(entry, tools) {
    if (isTurn(entry))
      return entry.output.some((item) => isSpawnCall(item, tools))
        ? { ...entry, output: entry.output.map((item) => redacted(item, tools)) }
        : entry;
    return redacted(entry, tools);
  },
  answer(calls, responses, texts) {
    const entries: ResponsesEntry[] = calls.map((call, i) => outputItem(call, responses[i] ?? {}));
    if (texts.length > 0) entries.push(userTexts(texts));
    return { messages: entries, shared: calls.length };
  },
  completeResults(history, calls, responses, texts) {
    const { messages, shared } = this.answer(calls, responses, texts);
    return { contents: [...history, ...messages], shared: history.length + shared };
  },
  request(fields, messages): OpenAIResponsesRequest {
    // A fork's own turns go as the items they are.
    return { format: 'openai-responses', body: bodyWith(fields, 'input', flatten(messages)) as OpenAIResponsesRequest['body'] };
  },
  mergesTurns: true,
  splitsTurns: true,
  seed: (session, parts, how) =>
    seedWithSystemField<ResponsesEntry, OpenAIResponsesForkSeed>('openai-responses', 'instructions', session, parts, how),
  seedRequest: (seed, messages) => openAIResponsesDialect.request(seed.session as unknown as ResponsesSessionLike, messages),
  // The session's fields as they are (its `input` counted among them, as it always was).
  seedFieldsChars: (seed) => sessionFieldsChars(seed.session),
};

/** A function declaration as a Responses function tool (`parameters` is the JSON Schema; the API requires `strict`). */
function responsesFunctionTool(declaration: FunctionDeclaration): Readonly<Record<string, unknown>> {
  return {
    type: 'function',
    name: declaration.name,
    description: declaration.description,
    parameters: declaration.parametersJsonSchema,
    strict: false,
  };
}

/** A session's input as items: a string is the one user message the API reads it as. */
function inputItems(input: string | readonly ResponsesItemLike[]): ResponsesItemLike[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
}

function isTurn(entry: ResponsesEntry): entry is ResponsesTurn {
  return Array.isArray((entry as { output?: unknown }).output) && (entry as { type?: unknown }).type === undefined;
}

/** The entries as the input items a request sends: a turn of the fork's own is its output items. */
function flatten(entries: readonly ResponsesEntry[]): ResponsesItemLike[] {
  return entries.flatMap((entry) => (isTurn(entry) ? entry.output : [entry]));
}

function isInstruction(item: ResponsesItemLike): boolean {
  return (item.type === undefined || item.type === 'message') && (item.role === 'system' || item.role === 'developer');
}

function isSpawnCall(item: ResponsesItemLike, tools: ReadonlySet<string>): boolean {
  return item.type === 'function_call' && typeof item.name === 'string' && tools.has(item.name);
}

function redacted(item: ResponsesItemLike, tools: ReadonlySet<string>): ResponsesItemLike {
  return isSpawnCall(item, tools) ? { ...item, arguments: '{}' } : item;
}

/** A result as the model reads it: the output itself when it is text, else the response as JSON. */
function outputItem(call: CallView, response: ToolResponse): ResponsesItemLike {
  const output = response.output;
  return {
    type: 'function_call_output',
    call_id: call.id ?? call.name,
    output: typeof output === 'string' ? output : JSON.stringify(response),
  };
}

function userTexts(texts: readonly string[]): ResponsesItemLike {
  return texts.length === 1
    ? { role: 'user', content: texts[0] as string }
    : { role: 'user', content: texts.map((text) => ({ type: 'input_text', text })) };
}
