import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolCall, FinishReason } from './wire.js';
import type { JsonObject, PromptFields, WireContent, WirePart } from '../core/types.js';
import { isObject } from '../core/json.js';

/**
 * Between a Chat Completions request and what the scripted model reads (Gemini-shaped contents):
 * system/developer messages → the system instruction; user → user text; assistant → model text and
 * functionCall parts; tool (and the older function) messages → functionResponse parts, named by the
 * call they answer. And back: the model's parts → assistant content or tool_calls.
 */

function textParts(content: ChatMessage['content']): WirePart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ text: content }];
  // Non-text parts (images, audio, files) stay readable to RECALL as JSON.
  return content.map((part: ChatContentPart) => (part.type === 'text' ? { text: part.text ?? '' } : { contentPart: part }));
}

/** `arguments` as the object it encodes; text that is not a JSON object is kept as `{arguments: text}`. */
function argsOf(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
  } catch {
    // not JSON: kept as sent
  }
  return { arguments: text };
}

function responseOf(content: ChatMessage['content']): JsonObject {
  return { content: content ?? '' };
}

export function toPromptFields(request: ChatRequest): PromptFields {
  const system: WirePart[] = [];
  const contents: WireContent[] = [];
  const callNames = new Map<string, string>();
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(message.content));
        break;
      case 'user':
        contents.push({ role: 'user', parts: textParts(message.content) });
        break;
      case 'assistant': {
        const calls: WirePart[] = (message.tool_calls ?? []).map((call) => {
          callNames.set(call.id, call.function.name);
          return { functionCall: { id: call.id, name: call.function.name, args: argsOf(call.function.arguments) } };
        });
        contents.push({ role: 'model', parts: [...textParts(message.content), ...calls] });
        break;
      }
      case 'tool': {
        const id = message.tool_call_id as string;
        contents.push({
          role: 'user',
          parts: [{ functionResponse: { id, name: callNames.get(id) ?? '', response: responseOf(message.content) } }],
        });
        break;
      }
      case 'function':
        contents.push({
          role: 'user',
          parts: [{ functionResponse: { name: message.name as string, response: responseOf(message.content) } }],
        });
        break;
    }
  }
  const fields: PromptFields = { contents };
  if (system.length > 0) fields.systemInstruction = { parts: system };
  if (request.tools) fields.tools = request.tools;
  return fields;
}

export interface AssistantReply {
  content: string | null;
  toolCalls: ChatToolCall[] | undefined;
  finishReason: FinishReason;
}

/** The model's parts as an assistant message: tool_calls (arguments as JSON text) when it calls, else its text. */
/** `cut`: the request's output limit ended the reply (finish_reason "length"). */
export function toAssistantReply(parts: readonly WirePart[], cut = false): AssistantReply {
  const toolCalls: ChatToolCall[] = [];
  for (const part of parts) {
    const call = part.functionCall;
    if (call)
      toolCalls.push({
        id: call.id ?? `call_${toolCalls.length}`,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      });
  }
  if (toolCalls.length > 0) return { content: null, toolCalls, finishReason: 'tool_calls' };
  return { content: parts.map((part) => part.text ?? '').join(''), toolCalls: undefined, finishReason: cut ? 'length' : 'stop' };
}
