import type { Issues } from '../convert-issues.js';
import { type HubMessage, type HubSession, type HubSettings, type HubTool, partWhat } from '../hub.js';
import { HistoryWriter, isBlank } from './history-writer.js';
import type { AnthropicMessagesSession, AnthropicTool } from './schema.js';

/*
 * The hub → Anthropic Messages' shape (docs/converting.md states the rules for users). The way
 * there follows what Qwen Code's own converter sends when it reaches a model through Anthropic's
 * API (QwenLM/qwen-code, packages/core/src/core/anthropicContentGenerator/converter.ts,
 * AnthropicContentConverter, as at commit 05a9c6e43e4eb34b670d6d96602ac0f6cded9f34).
 *
 * From the hub: leading system text → `system`, its texts joined with "\n" (left out when empty;
 * a whitespace-only one is left out and listed). A model message → an "assistant" message, a
 * user message → a "user" message; consecutive messages of one role are merged (the API reads
 * them as one turn) and a user turn holds its tool_result blocks first. Text → a text block
 * (empty and whitespace-only text left out and listed). A thought with a signature in a model
 * message → a thinking block; one without, or in a user message, is left out and listed. A call →
 * tool_use (its id when the API takes it, `^[a-zA-Z0-9_-]+$`, else `tool_<n>`), a result →
 * tool_result (a response's `output` when a string, else its `error` when a string, else the
 * response as JSON; an error output is_error). Base64 JPEG, PNG, GIF and WebP images → image
 * blocks, PDFs in user messages → document blocks. Tools → `{ name, description?, input_schema }`
 * (`{ "type": "object", "properties": {} }` without parameters; a schema whose type is not
 * object is an error). Tool choice: auto, any, a named tool, none. The output limit → max_tokens
 * (8,192 when the source has none: the API requires one, and the result notes it), stop
 * sequences, a thinking budget (0 → disabled, 1,024 or more → enabled). temperature, top_p and
 * top_k are unsupported (forkpool refuses them for Anthropic sessions), and so is anything else.
 * Output keys, in this order: format, model, system, tools, tool_choice, messages, max_tokens,
 * thinking, stop_sequences.
 */

/** The max_tokens of a session that names none (the Messages API requires one): forkpool's choice. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

type Json = Record<string, unknown>;

const SAMPLING_REFUSED = 'forkpool refuses sampling fields in Anthropic sessions: the API version it sends answers them with a 400 error';

export function fromHub(hub: HubSession, issues: Issues): AnthropicMessagesSession {
  issues.opaque(hub.extras);
  const leading = hub.messages.findIndex((message) => message.role !== 'system' && message.role !== 'developer');
  const systemMessages = leading < 0 ? hub.messages : hub.messages.slice(0, leading);
  const system = systemOf(systemMessages, issues);
  issues.opaque(hub.toolExtras);
  const tools = hub.tools.map((tool) => anthropicTool(tool, issues));
  issues.opaque(hub.toolChoiceExtras);
  const toolChoice = hub.toolChoice ? toolChoiceOf(hub.toolChoice, issues) : undefined;
  const messages = new HistoryWriter(hub, issues).messages(hub.messages.slice(systemMessages.length));
  if (messages.length === 0) {
    issues.fail(
      hub.conversation,
      'an anthropic-messages session needs at least one message, and nothing is left to convert (no history, or only parts left out)',
    );
  }
  const settings = settingsOf(hub, issues);
  return {
    format: 'anthropic-messages',
    model: hub.model,
    ...(system !== undefined ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    messages,
    ...settings,
  } as AnthropicMessagesSession;
}

function systemOf(messages: readonly HubMessage[], issues: Issues): string | undefined {
  const texts: string[] = [];
  for (const message of messages) {
    issues.opaque(message.extras);
    for (const part of message.parts) {
      if (part.kind === 'thought') issues.drop(part.path, 'thought');
      else if (part.kind === 'opaque') issues.opaque([part]);
      else if (part.kind !== 'text') issues.unsupported(part.path, partWhat(part), 'a system prompt holds text only');
      else {
        issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) issues.unsupported(part.path, 'prompt_cache_breakpoint');
        if (part.text !== '') texts.push(part.text);
      }
    }
  }
  const text = texts.join('\n');
  if (text === '') return undefined;
  if (isBlank(text)) {
    issues.drop(messages[0]?.path ?? 'system', 'a whitespace-only system instruction');
    return undefined;
  }
  return text;
}

function anthropicTool(tool: HubTool, issues: Issues): AnthropicTool {
  issues.opaque(tool.extras);
  if (tool.strict === true || tool.strict === null)
    issues.unsupported(tool.fieldsPath, tool.strict === null ? 'strict null' : 'strict', 'forkpool writes no strict Anthropic tools');
  let schema: Json = tool.parameters ?? { type: 'object', properties: {} };
  if (schema.type === undefined) schema = { type: 'object', ...schema };
  else if (schema.type !== 'object') {
    issues.fail(
      tool.path,
      `the parameters schema has "type" ${JSON.stringify(schema.type)}: an Anthropic tool's input_schema is an object schema ("type": "object")`,
    );
  }
  return {
    name: tool.name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    input_schema: schema as AnthropicTool['input_schema'],
  };
}

function toolChoiceOf(choice: NonNullable<HubSession['toolChoice']>, issues: Issues): NonNullable<AnthropicMessagesSession['tool_choice']> {
  const value = choice.value;
  switch (value.kind) {
    case 'auto':
      return { type: 'auto' };
    case 'required':
      return { type: 'any' };
    case 'none':
      return { type: 'none' };
    case 'function':
      return { type: 'tool', name: value.name };
    case 'allowed':
      issues.unsupported(
        choice.path,
        value.what,
        'tool_choice names one tool ({ "type": "tool" }) or none: all declared tools are allowed',
      );
      return { type: value.mode === 'auto' ? 'auto' : 'any' };
  }
}

function settingsOf(hub: HubSession, issues: Issues): Json {
  issues.opaque(hub.settingExtras);
  const s = hub.settings;
  for (const setting of [s.temperature, s.topP, s.topK]) {
    if (setting !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what, SAMPLING_REFUSED);
  }
  for (const setting of [s.seed, s.responseFormat, s.reasoningEffort, s.parallelToolCalls, s.promptCacheOptions, s.promptCacheRetention]) {
    if (setting === undefined) continue;
    issues.opaque(setting.extras);
    if (setting.value !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what);
  }
  let maxTokens = s.maxOutputTokens?.value;
  if (maxTokens === undefined || maxTokens === null) {
    maxTokens = DEFAULT_ANTHROPIC_MAX_TOKENS;
    issues.note(
      `max_tokens ${DEFAULT_ANTHROPIC_MAX_TOKENS}: the session sets no maxOutputTokens (forkpool's choice; the Messages API requires one)`,
    );
  }
  const thinking = thinkingOf(s.thinkingBudget, issues);
  const stop = s.stop?.value;
  const stops = typeof stop === 'string' ? [stop] : stop;
  return {
    max_tokens: maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(stops !== undefined && stops !== null ? { stop_sequences: stops } : {}),
  };
}

function thinkingOf(setting: HubSettings['thinkingBudget'], issues: Issues): Json | undefined {
  if (setting === undefined) return undefined;
  issues.opaque(setting.extras);
  const budget = setting.value;
  if (budget === undefined) return undefined;
  if (budget === 0) return { type: 'disabled' };
  if (typeof budget === 'number' && Number.isInteger(budget) && budget >= 1024) return { type: 'enabled', budget_tokens: budget };
  const at = setting.inner ?? setting;
  issues.unsupported(
    at.path,
    `${at.what} ${JSON.stringify(budget)}`,
    'Anthropic takes a thinking budget of at least 1,024 tokens (or 0: thinking disabled)',
  );
  return undefined;
}
