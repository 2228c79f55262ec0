import type { OpenAIChatRequest } from './request.js';
import { type ConventionMessage, type ConventionPart, jsonOrText, type TelemetryContent, textPart } from '../telemetry.js';
import type { ChatMessage } from './schema.js';

/** Chat Completions messages as the conventions' messages: a developer message is a system one, a tool message answers its call. */
export const openAIChatTelemetry: TelemetryContent = {
  request: (request) => ({ messages: (request as OpenAIChatRequest).body.messages.map(conventionMessage) }),
  reply: (message) => conventionMessage(message as ChatMessage),
};

function conventionMessage(message: Readonly<ChatMessage>): ConventionMessage {
  const m = message as Readonly<Record<string, unknown>>;
  const role = m.role === 'developer' ? 'system' : String(m.role);
  if (role === 'tool') return { role, parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content }] };
  const parts: ConventionPart[] = [];
  if (typeof m.content === 'string') parts.push(textPart(m.content));
  else if (Array.isArray(m.content)) {
    for (const p of m.content as Record<string, unknown>[])
      parts.push(typeof p.text === 'string' ? textPart(p.text) : { type: String(p.type) });
  }
  if (typeof m.refusal === 'string') parts.push(textPart(m.refusal));
  for (const call of (m.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[] | undefined) ?? []) {
    parts.push({ type: 'tool_call', id: call.id, name: call.function?.name, arguments: jsonOrText(call.function?.arguments) });
  }
  return { role, parts };
}
