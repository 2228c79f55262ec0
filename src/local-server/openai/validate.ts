import { invalidParam } from './errors.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatRole, ChatToolCall } from './wire.js';
import type { JsonObject } from '../core/types.js';
import { isObject } from '../core/json.js';

/**
 * Validation of a Chat Completions body, naming the field at fault as the real API does. Fields
 * the simulator does not act on (sampling, max_tokens, provider extensions such as
 * prompt_cache_key or enable_thinking) are accepted as OpenAI-compatible servers accept them.
 */

const ROLES: readonly ChatRole[] = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const wrongType = (path: string, expected: string, value: unknown) =>
  invalidParam(path, `Invalid type for '${path}': expected ${expected}, but got ${typeName(value)} instead.`, 'invalid_type');

const missing = (path: string) => invalidParam(path, `Missing required parameter: '${path}'.`, 'missing_required_parameter');

function requireString(value: unknown, path: string): string {
  if (value === undefined) throw missing(path);
  if (typeof value !== 'string') throw wrongType(path, 'a string', value);
  return value;
}

function validatePart(value: unknown, path: string): ChatContentPart {
  if (!isObject(value)) throw wrongType(path, 'an object', value);
  requireString(value.type, `${path}.type`);
  if (value.type === 'text') requireString(value.text, `${path}.text`);
  if (value.cache_control !== undefined && !isObject(value.cache_control))
    throw wrongType(`${path}.cache_control`, 'an object', value.cache_control);
  return value as ChatContentPart;
}

function validateContent(message: JsonObject, path: string, optional: boolean): void {
  const content = message.content;
  if (content === undefined || content === null) {
    if (!optional) throw missing(`${path}.content`);
    return;
  }
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw wrongType(`${path}.content`, 'one of a string or array of objects', content);
  for (let i = 0; i < content.length; i++) validatePart(content[i], `${path}.content[${i}]`);
}

function validateToolCall(value: unknown, path: string): ChatToolCall {
  if (!isObject(value)) throw wrongType(path, 'an object', value);
  requireString(value.id, `${path}.id`);
  if (value.type !== 'function')
    throw invalidParam(`${path}.type`, `Invalid value for '${path}.type': expected 'function'.`, 'invalid_value');
  const fn = value.function;
  if (!isObject(fn)) throw fn === undefined ? missing(`${path}.function`) : wrongType(`${path}.function`, 'an object', fn);
  requireString(fn.name, `${path}.function.name`);
  requireString(fn.arguments, `${path}.function.arguments`);
  return value as unknown as ChatToolCall;
}

function validateMessage(value: unknown, path: string): ChatMessage {
  if (!isObject(value)) throw wrongType(path, 'an object', value);
  const role = value.role;
  if (role === undefined) throw missing(`${path}.role`);
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    throw invalidParam(
      `${path}.role`,
      `Invalid value: ${JSON.stringify(role)}. Supported values are: ${ROLES.map((r) => `'${r}'`).join(', ')}.`,
      'invalid_value',
    );
  }
  if (value.name !== undefined) requireString(value.name, `${path}.name`);
  if (role === 'assistant' && value.tool_calls !== undefined && value.tool_calls !== null) {
    if (!Array.isArray(value.tool_calls)) throw wrongType(`${path}.tool_calls`, 'an array', value.tool_calls);
    for (let i = 0; i < value.tool_calls.length; i++) validateToolCall(value.tool_calls[i], `${path}.tool_calls[${i}]`);
  }
  if (role === 'tool') requireString(value.tool_call_id, `${path}.tool_call_id`);
  if (role === 'function') requireString(value.name, `${path}.name`);
  validateContent(value, path, role === 'assistant');
  return value as ChatMessage;
}

/** Every tool message answers a call of the assistant message before it, and every call is answered. */
function checkToolPairing(messages: readonly ChatMessage[]): void {
  let open: { index: number; ids: Set<string> } | undefined;
  const unanswered = (): never => {
    const at = open as { index: number; ids: Set<string> };
    throw invalidParam(
      `messages.[${at.index}].role`,
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...at.ids].join(', ')}`,
    );
  };
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      if (!open?.ids.delete(message.tool_call_id as string)) {
        throw invalidParam(
          `messages.[${i}].role`,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        );
      }
      return;
    }
    if (open && open.ids.size > 0) unanswered();
    open =
      message.role === 'assistant' && message.tool_calls?.length
        ? { index: i, ids: new Set(message.tool_calls.map((c) => c.id)) }
        : undefined;
  });
  if (open && open.ids.size > 0) unanswered();
}

function validateTools(value: unknown): JsonObject[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrongType('tools', 'an array', value);
  return value.map((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) throw wrongType(path, 'an object', tool);
    requireString(tool.type, `${path}.type`);
    if (tool.type === 'function') {
      if (!isObject(tool.function))
        throw tool.function === undefined ? missing(`${path}.function`) : wrongType(`${path}.function`, 'an object', tool.function);
      requireString(tool.function.name, `${path}.function.name`);
    }
    return tool;
  });
}

export function validateChatRequest(body: JsonObject): ChatRequest {
  if (body.model === undefined) throw invalidParam('model', 'you must provide a model parameter');
  const model = requireString(body.model, 'model');
  const raw = body.messages;
  if (raw === undefined) throw missing('messages');
  if (!Array.isArray(raw)) throw wrongType('messages', 'an array', raw);
  if (raw.length === 0) {
    throw invalidParam(
      'messages',
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'empty_array',
    );
  }
  const messages = raw.map((message, i) => validateMessage(message, `messages[${i}]`));
  checkToolPairing(messages);
  const tools = validateTools(body.tools);
  const stream = body.stream ?? false;
  if (stream !== null && typeof stream !== 'boolean') throw wrongType('stream', 'a boolean', stream);
  const options = body.stream_options;
  let includeUsage = false;
  if (options !== undefined && options !== null) {
    if (!stream) throw invalidParam('stream_options', "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
    if (!isObject(options)) throw wrongType('stream_options', 'an object', options);
    const include = options.include_usage ?? false;
    if (typeof include !== 'boolean') throw wrongType('stream_options.include_usage', 'a boolean', include);
    includeUsage = include;
  }
  return {
    model,
    messages,
    tools,
    stream: stream === true,
    includeUsage,
    cacheMode: cacheModeOf(body.prompt_cache_options),
    maxTokens: maxTokensOf(body),
  };
}

/** The output limit: `max_completion_tokens`, else the older `max_tokens` (DashScope, DeepSeek and vLLM read it still). */
function maxTokensOf(body: JsonObject): number | undefined {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && Number.isSafeInteger(limit) ? limit : undefined;
}

/** `prompt_cache_options.mode` (GPT-5.6 and later): "Defaults to `implicit`". */
function cacheModeOf(options: unknown): 'implicit' | 'explicit' {
  if (options === undefined || options === null) return 'implicit';
  if (!isObject(options)) throw wrongType('prompt_cache_options', 'an object', options);
  const mode = options.mode ?? 'implicit';
  if (mode !== 'implicit' && mode !== 'explicit')
    throw invalidParam('prompt_cache_options.mode', `Invalid value: '${String(mode)}'. Supported values are: 'implicit' and 'explicit'.`);
  return mode;
}
