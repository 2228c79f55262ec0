import { invalidParam } from '../openai/errors.js';
import type { AssistantReply } from '../openai/translate.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolCall } from '../openai/wire.js';
import type { JsonObject } from '../core/types.js';
import type { ContentPart, InputItem, OutputItem, ResponsesRequest } from './wire.js';

/**
 * Between a Responses request and the Chat Completions route's machinery: the effective input
 * (instructions, then the items) as the canonical chat messages the chat rendering, prompt cache,
 * and translation to the scripted model already take (openai/render.ts, openai/cache.ts,
 * openai/translate.ts); and the model's reply as output items.
 *
 * Canonical: an item renders the same whether it was sent as an EasyInputMessage, a message item,
 * a part list, or is a stored response's output (previous_response_id), since the model reads the
 * same tokens. So a client that sends the output items back itself, and one that names the
 * response, are served the same prefix from the cache. What the model does not read (item ids,
 * status, annotations) is left out.
 */

/** A text part is its text (a breakpoint kept: it moves no token but marks an entry); images, files, refusals as sent. */
function chatPart(part: ContentPart): ChatContentPart {
  if (part.type !== 'input_text' && part.type !== 'output_text') return part;
  const breakpoint = part.prompt_cache_breakpoint;
  return breakpoint === undefined
    ? { type: 'text', text: part.text ?? '' }
    : { type: 'text', text: part.text ?? '', prompt_cache_breakpoint: breakpoint };
}

/** One plain text part is the same message as a string content. */
function chatContent(content: string | ContentPart[]): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  const parts = content.map(chatPart);
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.type === 'text' && only.prompt_cache_breakpoint === undefined ? (only.text ?? '') : parts;
}

/** One model turn: its reasoning, text and calls, as one assistant message. */
interface Turn {
  content: string | ChatContentPart[] | null;
  calls: ChatToolCall[];
  reasoning: JsonObject[];
}

/**
 * `{role, content, tool_calls}` in that order: openai/unit-ends.ts renders a reply so, and a reply
 * sent back (or continued from) then renders as the unit its response ended with.
 */
function assistantMessage(turn: Turn): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: turn.content };
  if (turn.calls.length > 0) message.tool_calls = turn.calls;
  if (turn.reasoning.length > 0) message.reasoning = turn.reasoning;
  return message;
}

/**
 * The order the API requires of the items, with its own messages (400, param `input`): every
 * function_call_output answers a function_call before it, once ("No tool call found for function
 * call output with call_id call_…."); every call is answered ("No tool output found for function
 * call call_…."); a reasoning item is followed, past other reasoning items, by what the model made
 * after it, an assistant message or a call ("Item 'rs_…' of type 'reasoning' was provided without
 * its required following item.").
 */
function checkItemOrder(items: readonly InputItem[]): void {
  const open = new Set<string>();
  let reasoning: string | undefined;
  for (const item of items) {
    if (item.type === 'reasoning') {
      reasoning ??= item.id;
      continue;
    }
    const followsReasoning =
      item.type === 'function_call' || ((item.type === undefined || item.type === 'message') && item.role === 'assistant');
    if (reasoning !== undefined && !followsReasoning) break;
    reasoning = undefined;
    if (item.type === 'function_call') open.add(item.call_id);
    else if (item.type === 'function_call_output' && !open.delete(item.call_id)) {
      throw invalidParam('input', `No tool call found for function call output with call_id ${item.call_id}.`);
    }
  }
  if (reasoning !== undefined)
    throw invalidParam('input', `Item '${reasoning}' of type 'reasoning' was provided without its required following item.`);
  const [unanswered] = open;
  if (unanswered !== undefined) throw invalidParam('input', `No tool output found for function call ${unanswered}.`);
}

/**
 * The request as the chat route would see it: instructions a developer message first ("a system
 * (or developer) message inserted into the model's context"), then the items in order (the chat
 * rendering puts the tools ahead of all of them, as for Chat Completions). Reasoning,
 * assistant text and calls in a row are one turn (one assistant message), so CALL@n counts model
 * turns as the other routes do.
 */
export function toChatRequest(request: ResponsesRequest, items: readonly InputItem[]): ChatRequest {
  checkItemOrder(items);
  const messages: ChatMessage[] = [];
  if (request.instructions !== null) messages.push({ role: 'developer', content: request.instructions });
  let turn: Turn | undefined;
  const close = (): void => {
    if (turn) messages.push(assistantMessage(turn));
    turn = undefined;
  };
  /** The open turn, or a new one when what comes cannot belong to it (text or reasoning after its text or calls). */
  const turnFor = (start: boolean): Turn => {
    if (turn && start && (turn.content !== null || turn.calls.length > 0)) close();
    turn ??= { content: null, calls: [], reasoning: [] };
    return turn;
  };
  for (const item of items) {
    if (item.type === 'function_call') {
      turnFor(false).calls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === 'reasoning') {
      const summary = item.summary.map((part) => part.text);
      turnFor(true).reasoning.push(item.encrypted_content ? { summary, encrypted_content: item.encrypted_content } : { summary });
    } else if (item.type === 'function_call_output') {
      close();
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: chatContent(item.output) });
    } else if (item.role === 'assistant') {
      turnFor(true).content = chatContent(item.content);
    } else {
      close();
      messages.push({ role: item.role, content: chatContent(item.content) });
    }
  }
  close();
  return {
    model: request.model,
    messages,
    tools: request.tools.length > 0 ? request.tools : undefined,
    stream: request.stream,
    includeUsage: false,
    cacheMode: request.cacheMode,
  };
}

/** The reply as output items: a function_call per call (its call_id the model's), else one message of output_text. */
export function outputItems(reply: AssistantReply, itemId: (prefix: 'msg' | 'fc', index: number) => string): OutputItem[] {
  if (reply.toolCalls) {
    return reply.toolCalls.map((call, i) => ({
      id: itemId('fc', i),
      type: 'function_call',
      status: 'completed',
      arguments: call.function.arguments,
      call_id: call.id,
      name: call.function.name,
    }));
  }
  const text = reply.content ?? '';
  const status = reply.finishReason === 'length' ? 'incomplete' : 'completed';
  return [
    {
      id: itemId('msg', 0),
      type: 'message',
      status,
      content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
      role: 'assistant',
    },
  ];
}
