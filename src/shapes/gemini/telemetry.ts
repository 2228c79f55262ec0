import type { GeminiRequest } from '../../model/types.js';
import { type ConventionMessage, type ConventionPart, type TelemetryContent, textPart } from '../telemetry.js';
import type { Content } from './schema.js';

/** Gemini's Content as the conventions' messages: a user message of function responses only is the tool's. */
export const geminiTelemetry: TelemetryContent = {
  request(request) {
    const { contents, systemInstruction } = request as GeminiRequest;
    const system = systemInstruction as Content | undefined;
    return { messages: contents.map(conventionMessage), ...(system?.parts ? { system: system.parts.map(conventionPart) } : {}) };
  },
  reply: (message) => conventionMessage(message as Content),
};

function conventionMessage(content: Readonly<Content>): ConventionMessage {
  const parts = content.parts.map(conventionPart);
  const answers = parts.length > 0 && parts.every((p) => p.type === 'tool_call_response');
  return { role: content.role === 'model' ? 'assistant' : answers ? 'tool' : 'user', parts };
}

function conventionPart(part: Readonly<Record<string, unknown>>): ConventionPart {
  if (typeof part.text === 'string') return part.thought === true ? { type: 'reasoning', content: part.text } : textPart(part.text);
  const call = part.functionCall as { id?: string; name?: string; args?: unknown } | undefined;
  if (call) return { type: 'tool_call', ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, arguments: call.args ?? {} };
  const answer = part.functionResponse as { id?: string; name?: string; response?: unknown } | undefined;
  if (answer) return { type: 'tool_call_response', ...(answer.id !== undefined ? { id: answer.id } : {}), response: answer.response };
  return { type: Object.keys(part)[0] ?? 'unknown' };
}
