import type { ChatMessage, ChatTool, OpenAIChatSession } from './schema.js';
import type { FunctionDeclaration } from '../dialect.js';
import type { Dialect, ToolResponse } from '../dialect.js';
import type { CallView } from '../view.js';
import { bodyWith } from '../request-body.js';
import { sessionFieldsChars } from '../seed.js';
import type { OpenAIChatForkSeed, OpenAIChatRequest } from './request.js';

/** Chat Completions' shape: one `tool` message per result, the user's words in a message of their own. */
export const openAIChatDialect: Dialect<ChatMessage, OpenAIChatSession, OpenAIChatRequest, OpenAIChatForkSeed> = {
  format: 'openai-chat',
  split(session) {
    let head = 0;
    while (head < session.messages.length && isInstruction(session.messages[head] as ChatMessage)) head++;
    // A copy first: slicing a frozen array (a frozen prefix's) is ~100× slower in V8.
    const messages = [...session.messages];
    return { head: messages.slice(0, head), history: messages.slice(head) };
  },
  messages: (session) => session.messages,
  withConversation: (session, messages, tools) => ({
    ...session,
    ...(tools !== undefined ? { tools: tools as ChatTool[] } : {}),
    messages: messages as ChatMessage[],
  }),
  tools: (session) => session.tools,
  declareFunction: chatFunctionTool,
  userText: (text) => ({ role: 'user', content: text }),
  modelText: (text) => ({ role: 'assistant', content: text }),
  // Results are tool messages of their own, never part of a user turn a window starts at.
  withoutResults: (message) => message,
  redactCalls(message, tools) {
    if (message.role !== 'assistant' || !message.tool_calls?.some((call) => call.type === 'function' && tools.has(call.function.name))) {
      return message;
    }
    return {
      ...message,
      tool_calls: message.tool_calls.map((call) =>
        call.type === 'function' && tools.has(call.function.name) ? { ...call, function: { ...call.function, arguments: '{}' } } : call,
      ),
    };
  },
  answer(calls, responses, texts) {
    const messages: ChatMessage[] = calls.map((call, i) => toolMessage(call, responses[i] ?? {}));
    if (texts.length > 0) messages.push(userTexts(texts));
    return { messages, shared: calls.length };
  },
  completeResults(history, calls, responses, texts) {
    const { messages, shared } = this.answer(calls, responses, texts);
    return { contents: [...history, ...messages], shared: history.length + shared };
  },
  request(fields, messages) {
    return { format: 'openai-chat', body: bodyWith(fields, 'messages', messages) as { model: string; messages: readonly ChatMessage[] } };
  },
  mergesTurns: false,
  splitsTurns: false,
  seed(session, parts, how) {
    // A fresh fork of a session without instructions gets the fork's own, as a Gemini one does.
    const lead =
      parts.head.length === 0 && how.systemText !== undefined ? [systemMessage(how.systemText)] : how.clone(parts.head as ChatMessage[]);
    return {
      format: 'openai-chat',
      model: session.model,
      // The request's other fields (tools, settings): a private copy too unless copy is false.
      session: how.copy ? structuredClone(session) : session,
      contents: [...lead, ...parts.contents],
      sharedContents: lead.length + parts.shared,
      seedCase: parts.seedCase,
      trimmedMessages: parts.trimmedMessages,
    };
  },
  seedRequest: (seed, messages) => openAIChatDialect.request(seed.session, messages),
  seedFieldsChars: (seed) => sessionFieldsChars(seed.session),
};

/** A function declaration as a Chat Completions tool (`parameters` is the JSON Schema). */
export function chatFunctionTool(declaration: FunctionDeclaration): ChatTool {
  return {
    type: 'function',
    function: { name: declaration.name, description: declaration.description, parameters: declaration.parametersJsonSchema },
  };
}

/** A system message: the fork's own instructions, for a fresh fork of a session that has none. */
function systemMessage(text: string): ChatMessage {
  return { role: 'system', content: text };
}

function isInstruction(message: ChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

/** A result as the model reads it: the output itself when it is text, else the response as JSON. */
function toolMessage(call: CallView, response: ToolResponse): ChatMessage {
  const output = response.output;
  return { role: 'tool', tool_call_id: call.id ?? call.name, content: typeof output === 'string' ? output : JSON.stringify(response) };
}

function userTexts(texts: readonly string[]): ChatMessage {
  return texts.length === 1
    ? { role: 'user', content: texts[0] as string }
    : { role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) };
}
