import { given, type Issues } from '../convert-issues.js';
import { bookkeepingNote, type HubResponseFormat, type HubSession, type HubTool, type HubToolChoice } from '../hub.js';
import { ItemWriter } from './item-writer.js';
import type { OpenAIResponsesSession, ResponsesFunctionTool } from './schema.js';

/*
 * The hub → OpenAI Responses' shape (docs/converting.md states the rules for users).
 *
 * From the hub: system and developer messages stay input messages of that role, where they
 * stand (`instructions` is not written); content a string when the source wrote one, else
 * input parts (text → input_text, images with a URL → input_image with `detail` its own or
 * "auto", files → input_file). A model message → its text as assistant messages (one per text),
 * then one function_call per call (`arguments` as they are, or the JSON of its args). A result →
 * a function_call_output (text, or input_text parts). Tools → flat function tools (parameters
 * `{ "type": "object", "properties": {} }` when the source has none, noted; `strict` true only
 * when it was true); the output limit → max_output_tokens (at least 16); reasoning effort →
 * reasoning.effort; response format → text.format. seed and stop have no counterpart.
 * Output keys, in the order the Responses schema lists them: format, model, input, tools,
 * tool_choice, parallel_tool_calls, temperature, top_p, max_output_tokens, reasoning, text,
 * prompt_cache_options, prompt_cache_retention.
 */

type Json = Record<string, unknown>;

/** The Responses API refuses fewer output tokens. */
const MIN_OUTPUT_TOKENS = 16;

export function fromHub(hub: HubSession, issues: Issues): OpenAIResponsesSession {
  issues.opaque(hub.extras);
  const input = new ItemWriter(hub, issues).items();
  if (input.length === 0)
    issues.fail(hub.conversation, 'an openai-responses session needs at least one input item, and nothing is left to convert');
  if (hub.settings.bookkeeping) issues.note(bookkeepingNote(hub.settings.bookkeeping, 'the items of another response'));
  issues.opaque(hub.toolExtras);
  const tools = hub.tools.map((tool) => responsesTool(tool, issues));
  issues.opaque(hub.toolChoiceExtras);
  const toolChoice = hub.toolChoice ? responsesToolChoice(hub.toolChoice.value) : undefined;
  const s = hub.settings;
  issues.opaque(hub.settingExtras);
  for (const setting of [s.seed, s.stop]) {
    if (setting !== undefined && setting.value !== null)
      issues.unsupported(setting.path, setting.what, 'the Responses API has no such setting');
  }
  for (const setting of [s.topK, s.thinkingBudget]) {
    issues.opaque(setting?.extras);
    if (setting !== undefined && setting.value !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what);
  }
  issues.opaque(s.reasoningEffort?.extras);
  const reasoning = s.reasoningEffort === undefined ? undefined : { effort: s.reasoningEffort.value };
  issues.opaque(s.responseFormat?.extras);
  const format = s.responseFormat?.value;
  const text = format === undefined || format === null ? undefined : { format: textFormatOf(format, issues) };
  return {
    format: 'openai-responses',
    model: hub.model,
    input,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...given('parallel_tool_calls', s.parallelToolCalls?.value),
    ...given('temperature', s.temperature?.value),
    ...given('top_p', s.topP?.value),
    ...given('max_output_tokens', maxOutputTokens(hub, issues)),
    ...given('reasoning', reasoning),
    ...given('text', text),
    ...given('prompt_cache_options', s.promptCacheOptions?.value),
    ...given('prompt_cache_retention', s.promptCacheRetention?.value),
  } as OpenAIResponsesSession;
}

function responsesTool(tool: HubTool, issues: Issues): ResponsesFunctionTool {
  issues.opaque(tool.extras);
  if (tool.parameters === undefined)
    issues.note(
      `parameters { "type": "object", "properties": {} } (the Responses API requires them; Chat's omitted parameters are an empty parameter list)`,
      tool.path,
    );
  return {
    type: 'function',
    name: tool.name,
    ...given('description', tool.description ?? undefined),
    // An omitted schema is an empty parameter list.
    parameters: tool.parameters ?? { type: 'object', properties: {} },
    // The Responses API makes a schema strict when `strict` is left out; the other shapes do not.
    strict: tool.strict === true || tool.strict === null,
  } as ResponsesFunctionTool;
}

function responsesToolChoice(choice: HubToolChoice): NonNullable<OpenAIResponsesSession['tool_choice']> {
  switch (choice.kind) {
    case 'function':
      return { type: 'function', name: choice.name };
    case 'allowed':
      return { type: 'allowed_tools', mode: choice.mode, tools: choice.names.map((name) => ({ type: 'function', name })) };
    default:
      return choice.kind;
  }
}

function maxOutputTokens(hub: HubSession, issues: Issues): unknown {
  const limit = hub.settings.maxOutputTokens;
  if (limit === undefined) return undefined;
  if (typeof limit.value === 'number' && limit.value < MIN_OUTPUT_TOKENS) {
    issues.unsupported(limit.path, limit.what, `${limit.value} is below the Responses API's floor of ${MIN_OUTPUT_TOKENS} output tokens`);
    return undefined;
  }
  return limit.value;
}

function textFormatOf(format: HubResponseFormat, issues: Issues): Json {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format;
  if (schema === undefined) return issues.fail(format.schemaPath, 'has no "schema": a Responses json_schema format requires one');
  return { type: 'json_schema', name: name ?? 'response', ...given('description', description), schema, ...given('strict', strict) };
}
