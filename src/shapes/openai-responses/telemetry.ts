import type { OpenAIResponsesRequest, ResponsesItemLike, ResponsesTurn } from './request.js';
import { type ConventionMessage, jsonOrText, type TelemetryContent, textPart } from '../telemetry.js';

/** Responses API items as the conventions' messages; a reply (a turn: the items one response output) is one assistant message. */
export const openAIResponsesTelemetry: TelemetryContent = {
  request(request) {
    const { input, instructions } = (request as OpenAIResponsesRequest).body;
    return { messages: input.map(conventionMessage), ...(typeof instructions === 'string' ? { system: [textPart(instructions)] } : {}) };
  },
  reply(message) {
    const output = (message as Partial<ResponsesTurn>).output;
    if (Array.isArray(output))
      return { role: 'assistant', parts: (output as readonly ResponsesItemLike[]).flatMap((item) => conventionMessage(item).parts) };
    return conventionMessage(message as ResponsesItemLike);
  },
};

/** An item: a message (its text parts), a function call, its output, or reasoning (its summary). */
function conventionMessage(item: ResponsesItemLike): ConventionMessage {
  switch (item.type) {
    case 'function_call':
      return {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: item.call_id,
            name: item.name,
            arguments: jsonOrText(typeof item.arguments === 'string' ? item.arguments : undefined),
          },
        ],
      };
    case 'function_call_output':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: item.call_id, response: item.output }] };
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? (item.summary as { text?: unknown }[]).map((s) => String(s.text ?? '')).join('\n') : '';
      return { role: 'assistant', parts: [{ type: 'reasoning', content: summary }] };
    }
    default: {
      const role = item.role === 'developer' ? 'system' : String(item.role ?? 'user');
      const content = item.content;
      if (typeof content === 'string') return { role, parts: [textPart(content)] };
      const parts = Array.isArray(content)
        ? (content as Record<string, unknown>[]).map((p) => (typeof p.text === 'string' ? textPart(p.text) : { type: String(p.type) }))
        : [];
      return { role, parts };
    }
  }
}
