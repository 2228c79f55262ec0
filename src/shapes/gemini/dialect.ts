import { prefixFields } from './prefix-fields.js';
import type { Content, GeminiSession, GeminiTool, Part } from './schema.js';
import type { Dialect, ToolResponse } from '../dialect.js';
import type { GeminiForkSeed, GeminiRequest } from './request.js';
import type { CallView } from '../view.js';

/** Gemini's shape: results and the user's words share one user message. */
export const geminiDialect: Dialect<Content, GeminiSession, GeminiRequest, GeminiForkSeed> = {
  format: 'gemini',
  split: (session) => ({ head: [], history: session.history }),
  messages: (session) => session.history,
  withConversation: (session, messages, tools) => ({
    ...session,
    ...(tools !== undefined ? { tools: tools as GeminiTool[] } : {}),
    history: messages as Content[],
  }),
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
  mergesTurns: false,
  splitsTurns: false,
  seed(session, parts, how) {
    const out: GeminiForkSeed = {
      format: 'gemini',
      model: session.model,
      contents: parts.contents,
      sharedContents: parts.shared,
      seedCase: parts.seedCase,
      trimmedMessages: parts.trimmedMessages,
    };
    // Verbatim copies: these are the cached prefix, so a fork never edits them. Absent stays absent.
    if (session.systemInstruction !== undefined) out.systemInstruction = how.clone(session.systemInstruction);
    else if (how.systemText !== undefined) out.systemInstruction = { parts: [{ text: how.systemText }] };
    if (session.tools !== undefined) out.tools = how.clone(session.tools);
    if (session.toolConfig !== undefined) out.toolConfig = how.clone(session.toolConfig);
    if (session.generationConfig !== undefined) out.generationConfig = how.clone(session.generationConfig);
    return out;
  },
  // A Gemini seed carries its prefix fields itself.
  seedRequest: (seed, messages) => ({ format: 'gemini', ...prefixFields(seed), contents: messages }),
  seedFieldsChars(seed) {
    const fixed = prefixFields(seed);
    return JSON.stringify([fixed.systemInstruction ?? null, fixed.tools ?? null, fixed.toolConfig ?? null]).length;
  },
};

function responseParts(calls: readonly CallView[], responses: readonly ToolResponse[]): Part[] {
  return calls.map((call, i) => ({
    functionResponse: { ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, response: { ...responses[i] } },
  }));
}
