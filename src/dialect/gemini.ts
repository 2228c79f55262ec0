import { prefixFields } from '../model/request.js';
import type { Content, GeminiSession, GeminiTool, Part } from '../session/schema.js';
import type { Dialect, ToolResponse } from './dialect.js';
import type { CallView } from './view.js';

/** Gemini's shape: results and the user's words share one user message. */
export const geminiDialect: Dialect<Content, GeminiSession> = {
  format: 'gemini',
  split: (session) => ({ head: [], history: session.history }),
  messages: (session) => session.history,
  withConversation: (session, messages, tools) => ({ ...session, ...(tools !== undefined ? { tools: tools as GeminiTool[] } : {}), history: messages as Content[] }),
  tools: (session) => session.tools,
  declareFunction: (declaration) => ({ functionDeclarations: [{ ...declaration }] }),
  userText: (text) => ({ role: 'user', parts: [{ text }] }),
  modelText: (text) => ({ role: 'model', parts: [{ text }] }),
  withoutResults(message) {
    if (!message.parts.some((part) => part.functionResponse !== undefined)) return message;
    return { ...message, parts: message.parts.filter((part) => part.functionResponse === undefined) };
  },
  redactCalls(message, tools) {
    if (!message.parts.some((part) => part.functionCall && tools.has(part.functionCall.name))) return message;
    return {
      ...message,
      parts: message.parts.map((part) =>
        part.functionCall && tools.has(part.functionCall.name) ? { ...part, functionCall: { ...part.functionCall, args: {} } } : part,
      ),
    };
  },
  answer(calls, responses, texts) {
    const parts = [...responseParts(calls, responses), ...texts.map((text) => ({ text }))];
    return { messages: [{ role: 'user', parts }], shared: texts.length > 0 ? 0 : 1 };
  },
  completeResults(history, calls, responses, texts) {
    const last = history[history.length - 1] as Content;
    const joined: Content = { ...last, parts: [...last.parts, ...responseParts(calls, responses), ...texts.map((text) => ({ text }))] };
    return { contents: [...history.slice(0, -1), joined], shared: history.length - 1 };
  },
  request: (fields, messages) => ({ format: 'gemini', ...prefixFields(fields), contents: messages }),
};

function responseParts(calls: readonly CallView[], responses: readonly ToolResponse[]): Part[] {
  return calls.map((call, i) => ({
    functionResponse: { ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, response: { ...responses[i] } },
  }));
}
