import type { AiSdkMessageLike, AnthropicMessageLike, ModelMessage, ModelRequest, ResponsesItemLike, ResponsesTurn } from '../model/types.js';
import type { ChatMessage } from '../shapes/openai-chat/schema.js';
import type { Content } from '../shapes/gemini/schema.js';

/*
 * Prompts and completions as the GenAI conventions' opt-in content attributes shape them
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`: JSON strings of
 * `{ role, parts: [{ type, … }] }`), from any of the three request shapes. This is telemetry, read
 * by people: it never feeds a request, so mapping parts loosely here costs no byte of fidelity.
 * Binary parts (images, files) are named by their kind, never copied.
 */

type Part = Record<string, unknown> & { type: string };
interface ConventionMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/** What a call sent, as the content attributes carry it (strings of JSON). */
export interface CallContent {
  input: string;
  system?: string;
}

export function requestContent(request: ModelRequest): CallContent {
  switch (request.format) {
    case 'gemini': {
      const system = request.systemInstruction as Content | undefined;
      return { input: JSON.stringify(request.contents.map(geminiMessage)), ...(system?.parts ? { system: JSON.stringify(system.parts.map(geminiPart)) } : {}) };
    }
    case 'openai-chat':
      return { input: JSON.stringify(request.body.messages.map(chatMessage)) };
    case 'anthropic-messages': {
      const system = request.body.system;
      return {
        input: JSON.stringify(request.body.messages.map(anthropicMessage)),
        ...(system !== undefined ? { system: JSON.stringify(typeof system === 'string' ? [text(system)] : Array.isArray(system) ? system.map(anthropicPart) : []) } : {}),
      };
    }
    case 'ai-sdk': {
      const system = request.body.system;
      return { input: JSON.stringify(request.body.messages.map(aiSdkMessage)), ...(system !== undefined ? { system: JSON.stringify(aiSdkSystem(system)) } : {}) };
    }
    case 'openai-responses': {
      const instructions = request.body.instructions;
      return { input: JSON.stringify(request.body.input.map(responsesItem)), ...(typeof instructions === 'string' ? { system: JSON.stringify([text(instructions)]) } : {}) };
    }
  }
}

/** The model's reply, as `gen_ai.output.messages`. */
export function replyContent(message: ModelMessage, finishReason: string | undefined): string {
  const m = conventionMessage(message);
  return JSON.stringify([{ ...m, role: 'assistant', ...(finishReason !== undefined ? { finish_reason: finishReason } : {}) }]);
}

/** Any shape's message. */
function conventionMessage(message: ModelMessage): ConventionMessage {
  if ('parts' in message) return geminiMessage(message as Content);
  // A Responses turn: the items one response output.
  if (Array.isArray((message as { output?: unknown }).output)) {
    return { role: 'assistant', parts: ((message as ResponsesTurn).output as readonly ResponsesItemLike[]).flatMap((item) => responsesItem(item).parts) };
  }
  const content = (message as { content?: unknown }).content;
  // Anthropic's blocks carry `type`; a Chat Completions message has tool_calls or a tool role; the AI SDK's parts are kebab-case.
  if (Array.isArray(content) && content.some((b) => isRecord(b) && (b.type === 'tool_use' || b.type === 'tool_result' || b.type === 'thinking'))) {
    return anthropicMessage(message as AnthropicMessageLike);
  }
  if (Array.isArray(content) && content.some((b) => isRecord(b) && (b.type === 'tool-call' || b.type === 'tool-result' || b.type === 'reasoning'))) {
    return aiSdkMessage(message as AiSdkMessageLike);
  }
  return chatMessage(message as ChatMessage);
}

function text(content: string): Part {
  return { type: 'text', content };
}

function geminiMessage(content: Readonly<Content>): ConventionMessage {
  const parts = content.parts.map(geminiPart);
  const answers = parts.length > 0 && parts.every((p) => p.type === 'tool_call_response');
  return { role: content.role === 'model' ? 'assistant' : answers ? 'tool' : 'user', parts };
}

function geminiPart(part: Readonly<Record<string, unknown>>): Part {
  if (typeof part.text === 'string') return part.thought === true ? { type: 'reasoning', content: part.text } : text(part.text);
  const call = part.functionCall as { id?: string; name?: string; args?: unknown } | undefined;
  if (call) return { type: 'tool_call', ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, arguments: call.args ?? {} };
  const answer = part.functionResponse as { id?: string; name?: string; response?: unknown } | undefined;
  if (answer) return { type: 'tool_call_response', ...(answer.id !== undefined ? { id: answer.id } : {}), response: answer.response };
  return { type: Object.keys(part)[0] ?? 'unknown' };
}

function chatMessage(message: Readonly<ChatMessage>): ConventionMessage {
  const m = message as Readonly<Record<string, unknown>>;
  const role = m.role === 'developer' ? 'system' : String(m.role);
  if (role === 'tool') return { role, parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content }] };
  const parts: Part[] = [];
  if (typeof m.content === 'string') parts.push(text(m.content));
  else if (Array.isArray(m.content)) {
    for (const p of m.content as Record<string, unknown>[]) parts.push(typeof p.text === 'string' ? text(p.text) : { type: String(p.type) });
  }
  if (typeof m.refusal === 'string') parts.push(text(m.refusal));
  for (const call of (m.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[] | undefined) ?? []) {
    parts.push({ type: 'tool_call', id: call.id, name: call.function?.name, arguments: jsonOrText(call.function?.arguments) });
  }
  return { role, parts };
}

function anthropicMessage(message: Readonly<AnthropicMessageLike>): ConventionMessage {
  const parts = typeof message.content === 'string' ? [text(message.content)] : message.content.map(anthropicPart);
  const answers = parts.length > 0 && parts.every((p) => p.type === 'tool_call_response');
  return { role: answers ? 'tool' : message.role, parts };
}

function anthropicPart(block: unknown): Part {
  if (!isRecord(block)) return { type: 'unknown' };
  switch (block.type) {
    case 'text':
      return text(String(block.text));
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

function aiSdkMessage(message: Readonly<AiSdkMessageLike>): ConventionMessage {
  return { role: message.role, parts: typeof message.content === 'string' ? [text(message.content)] : message.content.map(aiSdkPart) };
}

/** The AI SDK's `system`: a string, a system message, or several. */
function aiSdkSystem(system: unknown): Part[] {
  if (typeof system === 'string') return [text(system)];
  const messages = Array.isArray(system) ? system : [system];
  return messages.flatMap((m) => (isRecord(m) && typeof m.content === 'string' ? [text(m.content)] : []));
}

function aiSdkPart(part: unknown): Part {
  if (!isRecord(part)) return { type: 'unknown' };
  switch (part.type) {
    case 'text':
      return text(String(part.text));
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

/** A Responses API item: a message (its text parts), a function call, its output, or reasoning (its summary). */
function responsesItem(item: ResponsesItemLike): ConventionMessage {
  switch (item.type) {
    case 'function_call':
      return { role: 'assistant', parts: [{ type: 'tool_call', id: item.call_id, name: item.name, arguments: jsonOrText(typeof item.arguments === 'string' ? item.arguments : undefined) }] };
    case 'function_call_output':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: item.call_id, response: item.output }] };
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? (item.summary as { text?: unknown }[]).map((s) => String(s.text ?? '')).join('\n') : '';
      return { role: 'assistant', parts: [{ type: 'reasoning', content: summary }] };
    }
    default: {
      const role = item.role === 'developer' ? 'system' : String(item.role ?? 'user');
      const content = item.content;
      if (typeof content === 'string') return { role, parts: [text(content)] };
      const parts = Array.isArray(content) ? (content as Record<string, unknown>[]).map((p) => (typeof p.text === 'string' ? text(p.text) : { type: String(p.type) })) : [];
      return { role, parts };
    }
  }
}

function jsonOrText(value: string | undefined): unknown {
  if (value === undefined) return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
