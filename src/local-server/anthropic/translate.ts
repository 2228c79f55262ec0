import type { AnthropicBlock, AnthropicMessage, AnthropicRequest, OutputBlock, StopReason } from './wire.js';
import { shortHash } from '../core/render.js';
import type { JsonObject, PromptFields, WireContent, WirePart } from '../core/types.js';

/**
 * Between a Messages API request and what the scripted model reads (Gemini-shaped contents):
 * `system` (a string or text blocks, and mid-conversation system messages) → the system
 * instruction; user and assistant text blocks → text; assistant `tool_use` → functionCall parts
 * (input as args); user `tool_result` → functionResponse parts named by the tool_use they answer.
 * Thinking, images, documents and other blocks stay in the request as opaque parts (readable to
 * RECALL as JSON, never text). And back: the model's parts → `text` and `tool_use` blocks.
 */

/** A tool result's content as the model reads it: a string, text blocks joined, or (with other blocks) the blocks as sent. */
function resultOf(block: AnthropicBlock): JsonObject {
  const content = block.content;
  let value: unknown = content ?? '';
  if (Array.isArray(content) && content.every((inner) => inner.type === 'text'))
    value = content.map((inner) => inner.text ?? '').join('\n');
  return block.is_error === true ? { content: value, is_error: true } : { content: value };
}

function partsOf(content: AnthropicMessage['content'], callNames: Map<string, string>): WirePart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((block): WirePart => {
    switch (block.type) {
      case 'text':
        return { text: block.text ?? '' };
      case 'tool_use':
        callNames.set(block.id as string, block.name as string);
        return { functionCall: { id: block.id as string, name: block.name as string, args: block.input ?? {} } };
      case 'tool_result': {
        const id = block.tool_use_id as string;
        return { functionResponse: { id, name: callNames.get(id) ?? '', response: resultOf(block) } };
      }
      default:
        return { anthropicBlock: block };
    }
  });
}

export function toPromptFields(request: AnthropicRequest): PromptFields {
  const callNames = new Map<string, string>();
  const system: WirePart[] = request.system === undefined ? [] : partsOf(request.system, callNames);
  const contents: WireContent[] = [];
  for (const message of request.messages) {
    const parts = partsOf(message.content, callNames);
    if (message.role === 'system') system.push(...parts);
    else contents.push({ role: message.role === 'assistant' ? 'model' : 'user', parts });
  }
  const fields: PromptFields = { contents };
  if (system.length > 0) fields.systemInstruction = { parts: system };
  if (request.tools) fields.tools = request.tools;
  return fields;
}

export interface AssistantContent {
  content: OutputBlock[];
  stopReason: StopReason;
}

/** The model's parts as content blocks: `tool_use` (ids `toolu_<hash>`) when it calls, else its text. */
/** `cut`: the request's max_tokens ended the reply. */
export function toContentBlocks(parts: readonly WirePart[], cut = false): AssistantContent {
  const content: OutputBlock[] = [];
  for (const part of parts) {
    const call = part.functionCall;
    if (call)
      content.push({
        type: 'tool_use',
        id: `toolu_${shortHash(call.id ?? `${call.name}:${content.length}`)}`,
        name: call.name,
        input: call.args ?? {},
      });
    else if (part.text !== undefined) content.push({ type: 'text', text: part.text });
  }
  return { content, stopReason: cut ? 'max_tokens' : content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn' };
}
