import { given, type Issues } from '../convert-issues.js';
import type { HubMessage, HubResponseFormat, HubSession, HubSettings, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { ItemReader } from './item-reader.js';
import type { OpenAIResponsesSession, ResponsesFunctionTool } from './schema.js';

/*
 * OpenAI Responses' shape → the hub (docs/converting.md states the rules for users).
 *
 * To the hub: `instructions` is a leading system message; a string `input` one user message.
 * user, system and developer messages keep their role and place (input_text → text with its
 * prompt_cache_breakpoint, input_image and input_file → media). A model turn — consecutive
 * assistant messages and function_call items (reasoning items between them reported in place) —
 * is one model message, its text and refusals, then its calls; text after a call starts another.
 * A function_call_output must answer a call of the model turn just before (only other outputs
 * between), else it is an error, whatever the options; outputs (and the user's next words) make
 * one user message of results. Item ids, statuses and logprobs are a response's own bookkeeping:
 * counted, and the target notes them once. reasoning, item_reference and compaction items,
 * annotations, a message's phase, and session fields the hub has no place for travel as opaque.
 */

/** The session fields read (or, for truncation, checked); any other is opaque unless empty. */
const READ = [
  'format',
  'model',
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'max_output_tokens',
  'reasoning',
  'text',
  'prompt_cache_options',
  'prompt_cache_retention',
  'truncation',
];

export function toHub(session: Readonly<OpenAIResponsesSession>, issues: Issues): HubSession {
  const extras: Opaque[] = [];
  for (const [key, value] of Object.entries(session)) {
    const empty = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
    if (!READ.includes(key) && !empty) extras.push({ path: '', what: key, why: (target) => `an ${target} session has no such setting` });
  }
  if (session.truncation === 'auto')
    extras.push({
      path: '',
      what: 'truncation "auto"',
      why: 'Chat Completions fails a request too long for the context, as "disabled" does',
    });
  const messages: HubMessage[] = [];
  if (typeof session.instructions === 'string') {
    messages.push({
      role: 'system',
      parts: [{ kind: 'text', text: session.instructions, path: 'instructions', extras: [] }],
      path: 'instructions',
      extras: [],
      textForm: 'string',
    });
  }
  const reader = new ItemReader(issues);
  messages.push(...reader.read(session.input));
  const toolChoiceExtras: Opaque[] = [];
  const toolChoice = session.tool_choice === undefined ? undefined : toolChoiceOf(session.tool_choice, toolChoiceExtras);
  return {
    model: session.model,
    messages,
    tools: (session.tools ?? []).map((tool, t) => hubTool(tool as ResponsesFunctionTool, `tools[${t}]`)),
    toolExtras: [],
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: '', what: 'tool_choice' } } : {}),
    toolChoiceExtras,
    settings: { ...settingsOf(session), ...(reader.bookkeeping > 0 ? { bookkeeping: reader.bookkeeping } : {}) },
    settingExtras: [],
    extras,
    conversation: 'input',
  };
}

function hubTool(tool: ResponsesFunctionTool, path: string): HubTool {
  const extras: Opaque[] = tool.output_schema !== undefined && tool.output_schema !== null ? [{ path, what: 'output_schema' }] : [];
  return {
    name: tool.name,
    ...given('description', tool.description ?? undefined),
    ...given('parameters', tool.parameters ?? undefined),
    strict: tool.strict ?? null,
    path,
    fieldsPath: path,
    extras,
  } as HubTool;
}

function toolChoiceOf(choice: NonNullable<OpenAIResponsesSession['tool_choice']>, extras: Opaque[]): HubToolChoice {
  if (typeof choice === 'string') return { kind: choice };
  if (choice.type === 'function') return { kind: 'function', name: choice.name };
  const names: string[] = [];
  choice.tools.forEach((tool, t) => {
    if (tool.type === 'function' && typeof tool.name === 'string' && tool.name !== '' && Object.keys(tool).length === 2)
      names.push(tool.name);
    else extras.push({ path: `tool_choice.tools[${t}]`, what: 'a tool that is not { "type": "function", "name" }' });
  });
  return { kind: 'allowed', mode: choice.mode, names, what: 'allowed_tools' };
}

function settingsOf(session: Readonly<OpenAIResponsesSession>): HubSettings {
  const at = (what: keyof OpenAIResponsesSession) =>
    session[what] === undefined ? undefined : { value: session[what] as unknown, path: '', what };
  const out: HubSettings = {};
  const put = <K extends keyof HubSettings>(key: K, value: HubSettings[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  put('temperature', at('temperature'));
  put('topP', at('top_p'));
  const limit = at('max_output_tokens');
  if (limit) out.maxOutputTokens = { ...limit, countsReasoning: true };
  const reasoning = session.reasoning;
  if (reasoning !== undefined && reasoning !== null) {
    const extras: Opaque[] = (['summary', 'context', 'mode'] as const)
      .filter((key) => reasoning[key] !== undefined && reasoning[key] !== null)
      .map((key) => ({ path: 'reasoning', what: key, why: 'Chat Completions takes the reasoning effort only' }));
    out.reasoningEffort = { value: reasoning.effort, path: 'reasoning', what: 'effort', extras };
  }
  const text = session.text;
  if (text !== undefined) {
    const extras: Opaque[] =
      text.verbosity !== undefined && text.verbosity !== null
        ? [{ path: 'text', what: 'verbosity', why: (target) => `an ${target} session has no such setting` }]
        : [];
    out.responseFormat = {
      value: text.format === undefined ? undefined : responseFormatOf(text.format),
      path: 'text',
      what: 'format',
      extras,
    } as NonNullable<HubSettings['responseFormat']>;
  }
  put('parallelToolCalls', at('parallel_tool_calls'));
  put('promptCacheOptions', at('prompt_cache_options'));
  put('promptCacheRetention', at('prompt_cache_retention'));
  return out;
}

function responseFormatOf(format: NonNullable<NonNullable<OpenAIResponsesSession['text']>['format']>): HubResponseFormat {
  const schemaPath = 'text.format';
  if (format.type !== 'json_schema') return { type: format.type, schemaPath };
  const { name, description, schema, strict } = format;
  return {
    type: 'json_schema',
    name,
    ...given('description', description ?? undefined),
    schema,
    ...given('strict', strict),
    schemaPath,
  } as HubResponseFormat;
}
