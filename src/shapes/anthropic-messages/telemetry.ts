import type { AnthropicMessageLike, AnthropicRequest } from './request.js';
import { isRecord } from '../../input/json.js';
import { type ConventionMessage, type ConventionPart, type TelemetryContent, textPart } from '../telemetry.js';

/** Anthropic's messages as the conventions' messages: thinking is reasoning, a user message of tool results only is the tool's. */
export const anthropicMessagesTelemetry: TelemetryContent = {
  request(request) {
    const { messages, system } = (request as AnthropicRequest).body;
    return {
      messages: messages.map(conventionMessage),
      ...(system !== undefined
        ? { system: typeof system === 'string' ? [textPart(system)] : Array.isArray(system) ? system.map(conventionPart) : [] }
        : {}),
    };
  },
  reply: (message) => conventionMessage(message as AnthropicMessageLike),
};

function conventionMessage(message: Readonly<AnthropicMessageLike>): ConventionMessage {
  const parts = typeof message.content === 'string' ? [textPart(message.content)] : message.content.map(conventionPart);
  const answers = parts.length > 0 && parts.every((p) => p.type === 'tool_call_response');
  return { role: answers ? 'tool' : message.role, parts };
}

function conventionPart(block: unknown): ConventionPart {
  if (!isRecord(block)) return { type: 'unknown' };
  switch (block.type) {
    case 'text':
      return textPart(String(block.text));
    case 'thinking':
      return { type: 'reasoning', content: String(block.thinking) };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.tool_use_id, response: block.content };
    default:
      return { type: String(block.type) };
  }
}
