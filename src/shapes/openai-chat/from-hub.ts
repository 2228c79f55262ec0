import { given, type Issues } from '../convert-issues.js';
import { bookkeepingNote, type HubResponseFormat, type HubSession, type HubTool, type HubToolChoice } from '../hub.js';
import { HistoryWriter } from './history-writer.js';
import type { ChatTool, OpenAIChatSession } from './schema.js';

/*
 * The hub → OpenAI Chat Completions' shape (docs/converting.md states the rules for users).
 *
 * From the hub: leading system messages of a shape with one system text (Gemini's systemInstruction)
 * → one "system" message, a string for one text, text parts for several; system and developer
 * messages otherwise as they are. A user message → its results as "tool" messages (in order),
 * then its text as one "user" message (the user's words follow the results even when they came
 * first). A model message → one "assistant" message: its text as `content` (one text a string,
 * several text parts; left out when there is none, or null when the source writes it so), its calls
 * as `tool_calls` (text before calls). Thoughts are left out and listed. A call keeps its id; one
 * without gets `call_<n>` (its place among the session's calls; a suffix when taken); a result
 * answers a call of the model message just before (only tool messages between), by id, else by
 * name. A tool message holds `output` when the response is exactly `{ output: <text> }` and that
 * text is not itself a JSON object, else the response as JSON. Tools → "function" tools; tool
 * choice as Chat's; the output limit → max_tokens, or max_completion_tokens when the source's
 * counts reasoning tokens.
 * Output keys, in this order: format, model, messages, tools, tool_choice, parallel_tool_calls,
 * temperature, top_p, max_tokens / max_completion_tokens, reasoning_effort, response_format,
 * seed, stop, prompt_cache_options, prompt_cache_retention.
 */

type Json = Record<string, unknown>;

export function fromHub(hub: HubSession, issues: Issues): OpenAIChatSession {
  issues.opaque(hub.extras);
  const messages = new HistoryWriter(hub, issues).messages();
  if (messages.length === 0) {
    issues.fail(
      hub.conversation,
      'an openai-chat session needs at least one message, and nothing is left to convert (no system instruction, no history)',
    );
  }
  if (hub.settings.bookkeeping) issues.note(bookkeepingNote(hub.settings.bookkeeping, 'Chat Completions messages'));
  issues.opaque(hub.toolExtras);
  const tools = hub.tools.map((tool) => chatTool(tool, issues));
  issues.opaque(hub.toolChoiceExtras);
  const toolChoice = hub.toolChoice ? chatToolChoice(hub.toolChoice.value) : undefined;
  return {
    format: 'openai-chat',
    model: hub.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...settingsFromHub(hub, issues),
  } as OpenAIChatSession;
}

function chatTool(tool: HubTool, issues: Issues): ChatTool {
  issues.opaque(tool.extras);
  if (tool.strict === null) {
    issues.unsupported(
      tool.path,
      'strict null',
      'the Responses API then makes the schema strict and Chat Completions does not: set strict to true or false',
    );
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...given('description', tool.description ?? undefined),
      ...given('parameters', tool.parameters),
      ...(tool.strict === true ? { strict: true } : {}),
    },
  } as ChatTool;
}

function chatToolChoice(choice: HubToolChoice): NonNullable<OpenAIChatSession['tool_choice']> {
  switch (choice.kind) {
    case 'function':
      return { type: 'function', function: { name: choice.name } };
    case 'allowed':
      return {
        type: 'allowed_tools',
        allowed_tools: { mode: choice.mode, tools: choice.names.map((name) => ({ type: 'function', function: { name } })) },
      };
    default:
      return choice.kind;
  }
}

function settingsFromHub(hub: HubSession, issues: Issues): Json {
  issues.opaque(hub.settingExtras);
  const s = hub.settings;
  for (const setting of [s.topK, s.thinkingBudget]) {
    if (setting === undefined) continue;
    issues.opaque(setting.extras);
    if (setting.value !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what);
  }
  issues.opaque(s.reasoningEffort?.extras);
  let effort = s.reasoningEffort?.value;
  if (effort === 'max') {
    issues.unsupported(s.reasoningEffort?.path ?? '', 'effort "max"', 'Chat Completions\' efforts go up to "xhigh"');
    effort = undefined;
  }
  issues.opaque(s.responseFormat?.extras);
  const format = s.responseFormat?.value;
  let retention = s.promptCacheRetention?.value;
  if (s.promptCacheOptions !== undefined && retention != null) {
    issues.unsupported('', 'prompt_cache_retention', 'Chat Completions takes it or prompt_cache_options, not both');
    retention = undefined;
  }
  const limit = s.maxOutputTokens;
  return {
    ...given('parallel_tool_calls', s.parallelToolCalls?.value ?? undefined),
    ...given('temperature', s.temperature?.value),
    ...given('top_p', s.topP?.value),
    ...given(limit?.countsReasoning ? 'max_completion_tokens' : 'max_tokens', limit?.value),
    ...given('reasoning_effort', effort),
    ...given('response_format', format === undefined ? undefined : format === null ? null : chatResponseFormat(format)),
    ...given('seed', s.seed?.value),
    ...given('stop', s.stop?.value),
    ...given('prompt_cache_options', s.promptCacheOptions?.value),
    ...given('prompt_cache_retention', retention),
  };
}

function chatResponseFormat(format: HubResponseFormat): Json {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format;
  return {
    type: 'json_schema',
    json_schema: { name: name ?? 'response', ...given('description', description), ...given('schema', schema), ...given('strict', strict) },
  };
}
