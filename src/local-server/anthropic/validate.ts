import { invalidRequest } from './errors.js';
import type { AnthropicBlock, AnthropicMessage, AnthropicRequest, AnthropicRole, CacheControl } from './wire.js';
import type { JsonObject } from '../core/types.js';
import { isObject } from '../core/json.js';

/**
 * Validation of a Messages API body, naming the field at fault first as the real API does
 * (`messages.1.content.0.text: Field required`). Fields the simulator does not act on
 * (temperature, metadata, stop_sequences, …) are accepted as they are. Block types it does not
 * know are kept as received.
 */

const ROLES: readonly AnthropicRole[] = ['user', 'assistant', 'system'];

const required = (path: string) => invalidRequest(`${path}: Field required`);
const wrong = (path: string, expected: string) => invalidRequest(`${path}: Input should be ${expected}`);

function requireString(value: unknown, path: string): string {
  if (value === undefined) throw required(path);
  if (typeof value !== 'string') throw wrong(path, 'a valid string');
  return value;
}

function requireObject(value: unknown, path: string): JsonObject {
  if (value === undefined) throw required(path);
  if (!isObject(value)) throw wrong(path, 'a valid dictionary');
  return value;
}

function validateCacheControl(value: unknown, path: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const control = requireObject(value, path);
  if (control.type !== 'ephemeral') throw wrong(`${path}.type`, "'ephemeral'");
  if (control.ttl !== undefined && control.ttl !== '5m' && control.ttl !== '1h') throw wrong(`${path}.ttl`, "'5m' or '1h'");
  return control as unknown as CacheControl;
}

function validateBlock(value: unknown, path: string): AnthropicBlock {
  const block = requireObject(value, path);
  const type = requireString(block.type, `${path}.type`);
  if (type === 'text') requireString(block.text, `${path}.text`);
  if (type === 'tool_use') {
    requireString(block.id, `${path}.id`);
    requireString(block.name, `${path}.name`);
    requireObject(block.input, `${path}.input`);
  }
  if (type === 'tool_result') {
    requireString(block.tool_use_id, `${path}.tool_use_id`);
    const content = block.content;
    if (Array.isArray(content)) for (const [i, inner] of content.entries()) validateBlock(inner, `${path}.content.${i}`);
    else if (content !== undefined && typeof content !== 'string') throw wrong(`${path}.content`, 'a valid string or list');
  }
  const control = validateCacheControl(block.cache_control, `${path}.cache_control`);
  // prompt caching, "What cannot be cached": thinking blocks (directly) and empty text blocks.
  if (control && (type === 'thinking' || type === 'redacted_thinking')) {
    throw invalidRequest(`${path}.cache_control: thinking blocks cannot be cached directly with cache_control`);
  }
  if (control && type === 'text' && block.text === '')
    throw invalidRequest(`${path}.text: cache_control cannot be set for empty text blocks`);
  return block as AnthropicBlock;
}

function validateContent(value: unknown, path: string, textOnly: boolean): string | AnthropicBlock[] {
  if (value === undefined) throw required(path);
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw wrong(path, 'a valid string or list');
  return value.map((item, i) => {
    const block = validateBlock(item, `${path}.${i}`);
    if (textOnly && block.type !== 'text') throw wrong(`${path}.${i}.type`, "'text'");
    return block;
  });
}

function validateMessage(value: unknown, path: string): AnthropicMessage {
  const message = requireObject(value, path);
  const role = message.role;
  if (role === undefined) throw required(`${path}.role`);
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role))
    throw wrong(`${path}.role`, "'user', 'assistant' or 'system'");
  validateContent(message.content, `${path}.content`, role === 'system');
  return message as unknown as AnthropicMessage;
}

const blocksOf = (message: AnthropicMessage | undefined): AnthropicBlock[] =>
  message && Array.isArray(message.content) ? message.content : [];

/** Every tool_use is answered by a tool_result in the next message, and every tool_result answers one of the previous message. */
function checkToolPairing(messages: readonly AnthropicMessage[]): void {
  messages.forEach((message, i) => {
    const previous = messages[i - 1];
    const asked = new Set(
      previous?.role === 'assistant'
        ? blocksOf(previous)
            .filter((b) => b.type === 'tool_use')
            .map((b) => b.id)
        : [],
    );
    blocksOf(message).forEach((block, j) => {
      if (block.type === 'tool_result' && (message.role !== 'user' || !asked.has(block.tool_use_id))) {
        throw invalidRequest(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    });
    const next = messages[i + 1];
    if (message.role !== 'assistant' || next === undefined) return;
    const answered = new Set(
      next.role === 'user'
        ? blocksOf(next)
            .filter((b) => b.type === 'tool_result')
            .map((b) => b.tool_use_id)
        : [],
    );
    const missing = blocksOf(message)
      .filter((b) => b.type === 'tool_use' && !answered.has(b.id))
      .map((b) => b.id);
    if (missing.length > 0) {
      throw invalidRequest(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  });
}

function validateTools(value: unknown): JsonObject[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrong('tools', 'a valid list');
  return value.map((item, i) => {
    const path = `tools.${i}`;
    const tool = requireObject(item, path);
    // Custom tools (no type, or 'custom') declare a name and an input schema; server tools are kept as sent.
    if (tool.type === undefined || tool.type === 'custom') {
      requireString(tool.name, `${path}.name`);
      requireObject(tool.input_schema, `${path}.input_schema`);
    }
    validateCacheControl(tool.cache_control, `${path}.cache_control`);
    return tool;
  });
}

/**
 * `diagnostics` (cache diagnostics' opt-in): an object whose one field, `previous_message_id`, is a
 * response id or null ("pass `"previous_message_id": null` to opt in without a prior message");
 * null or absent is no opt-in. Strict: any other field is refused.
 */
function validateDiagnostics(value: unknown): AnthropicRequest['diagnostics'] {
  if (value === undefined || value === null) return undefined;
  const diagnostics = requireObject(value, 'diagnostics');
  for (const key of Object.keys(diagnostics)) {
    if (key !== 'previous_message_id') throw invalidRequest(`diagnostics.${key}: Extra inputs are not permitted`);
  }
  const id = diagnostics.previous_message_id;
  if (id !== undefined && id !== null && typeof id !== 'string') throw wrong('diagnostics.previous_message_id', 'a valid string');
  return { previousMessageId: id ?? null };
}

/** `countTokens`: the count_tokens route, which takes no max_tokens (nor diagnostics: left as an unread field there). */
export function validateMessagesRequest(body: JsonObject, countTokens = false): AnthropicRequest {
  const model = requireString(body.model, 'model');
  let maxTokens: number | undefined;
  if (!countTokens) {
    const value = body.max_tokens;
    if (value === undefined) throw required('max_tokens');
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong('max_tokens', 'a valid integer');
    // 0 is a cache pre-warm: the prompt is read and cached, nothing is generated (prompt caching, "Pre-warming the cache").
    if (value < 0) throw wrong('max_tokens', 'greater than or equal to 0');
    maxTokens = value;
  }
  const raw = body.messages;
  if (raw === undefined) throw required('messages');
  if (!Array.isArray(raw)) throw wrong('messages', 'a valid list');
  if (raw.length === 0) throw invalidRequest('messages: at least one message is required');
  const messages = raw.map((message, i) => validateMessage(message, `messages.${i}`));
  checkToolPairing(messages);
  const system = body.system === undefined || body.system === null ? undefined : validateContent(body.system, 'system', true);
  const stream = body.stream ?? false;
  if (typeof stream !== 'boolean') throw wrong('stream', 'a valid boolean');
  return {
    model,
    maxTokens,
    system,
    tools: validateTools(body.tools),
    messages,
    stream,
    cacheControl: validateCacheControl(body.cache_control, 'cache_control'),
    toolChoice: body.tool_choice,
    thinking: body.thinking,
    diagnostics: countTokens ? undefined : validateDiagnostics(body.diagnostics),
  };
}
