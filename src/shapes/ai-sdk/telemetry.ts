import type { AiSdkMessageLike, AiSdkRequest } from './request.js';
import { isRecord } from '../../input/json.js';
import { type ConventionMessage, type ConventionPart, type TelemetryContent, textPart } from '../telemetry.js';

/** AI SDK ModelMessages as the conventions' messages: reasoning parts are reasoning, tool-result outputs their value. */
export const aiSdkTelemetry: TelemetryContent = {
  request(request) {
    const { messages, system } = (request as AiSdkRequest).body;
    return { messages: messages.map(conventionMessage), ...(system !== undefined ? { system: systemParts(system) } : {}) };
  },
  reply: (message) => conventionMessage(message as AiSdkMessageLike),
};

function conventionMessage(message: Readonly<AiSdkMessageLike>): ConventionMessage {
  return {
    role: message.role,
    parts: typeof message.content === 'string' ? [textPart(message.content)] : message.content.map(conventionPart),
  };
}

/** The AI SDK's `system`: a string, a system message, or several. */
function systemParts(system: unknown): ConventionPart[] {
  if (typeof system === 'string') return [textPart(system)];
  const messages = Array.isArray(system) ? system : [system];
  return messages.flatMap((m) => (isRecord(m) && typeof m.content === 'string' ? [textPart(m.content)] : []));
}

function conventionPart(part: unknown): ConventionPart {
  if (!isRecord(part)) return { type: 'unknown' };
  switch (part.type) {
    case 'text':
      return textPart(String(part.text));
    case 'reasoning':
      return { type: 'reasoning', content: String(part.text) };
    case 'tool-call':
      return { type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: part.input };
    case 'tool-result':
      return { type: 'tool_call_response', id: part.toolCallId, response: isRecord(part.output) ? part.output.value : undefined };
    default:
      return { type: String(part.type) };
  }
}
