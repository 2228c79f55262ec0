import { isRecord } from '../../input/json.js';
import { given, type Issues } from '../convert-issues.js';
import type { HubResponseFormat, HubSession, HubSettings, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { MessageReader } from './message-reader.js';
import type { ChatTool, OpenAIChatSession } from './schema.js';
import { OPENAI_CHAT_SESSION_KEYS } from './session-keys.js';

/*
 * OpenAI Chat Completions' shape → the hub (docs/converting.md states the rules for users).
 *
 * To the hub: system and developer messages stand where they are; a user message's content and a
 * tool message's are text parts (a string is one, kept as a string), image_url and file parts
 * media; an assistant message is a model message of its text (refusal parts kept), then its calls
 * (`arguments` as they are). Consecutive tool messages are one user message of results (named by
 * their call), and the user's next words join it. A message's `name`, a refusal or audio field, a
 * text part's `cache_control` and session fields the hub has no place for travel as opaque items.
 */

export function toHub(session: Readonly<OpenAIChatSession>, issues: Issues): HubSession {
  const extras: Opaque[] = Object.entries(session)
    .filter(([key, value]) => !OPENAI_CHAT_SESSION_KEYS.includes(key) && value !== undefined && value !== null)
    .map(([key]) => ({ path: '', what: key }));
  const messages = new MessageReader().read(session.messages);
  const tools = (session.tools ?? []).map((tool, t) => hubTool(tool, t));
  const toolChoiceExtras: Opaque[] = [];
  const toolChoice = session.tool_choice === undefined ? undefined : toolChoiceOf(session.tool_choice, toolChoiceExtras);
  return {
    model: session.model,
    messages,
    tools,
    toolExtras: [],
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: '', what: 'tool_choice' } } : {}),
    toolChoiceExtras,
    settings: settingsOf(session, issues),
    settingExtras: [],
    extras,
    conversation: 'messages',
  };
}

function hubTool(tool: ChatTool, t: number): HubTool {
  const fn = tool.function;
  const fieldsPath = `tools[${t}].function`;
  return {
    name: fn.name,
    ...given('description', fn.description),
    ...given('parameters', fn.parameters),
    // Chat's strict is off unless true (null and absent are the default).
    strict: fn.strict === true,
    path: `tools[${t}]`,
    fieldsPath,
    extras: Object.entries(fn)
      .filter(([key, value]) => !['name', 'description', 'parameters', 'strict'].includes(key) && value !== undefined)
      .map(([key]) => ({ path: fieldsPath, what: key })),
  };
}

type ToolChoice = NonNullable<OpenAIChatSession['tool_choice']>;

function toolChoiceOf(choice: ToolChoice, extras: Opaque[]): HubToolChoice {
  if (typeof choice === 'string') return { kind: choice };
  if (choice.type === 'function') return { kind: 'function', name: choice.function.name };
  const names: string[] = [];
  choice.allowed_tools.tools.forEach((tool, t) => {
    const fn = tool.function;
    if (tool.type === 'function' && isRecord(fn) && typeof fn.name === 'string' && fn.name !== '' && Object.keys(tool).length === 2)
      names.push(fn.name);
    else
      extras.push({
        path: `tool_choice.allowed_tools.tools[${t}]`,
        what: 'a tool that is not { "type": "function", "function": { "name" } }',
      });
  });
  return { kind: 'allowed', mode: choice.allowed_tools.mode, names, what: 'allowed_tools' };
}

function settingsOf(session: Readonly<OpenAIChatSession>, issues: Issues): HubSettings {
  const at = (what: keyof OpenAIChatSession) =>
    session[what] === undefined ? undefined : { value: session[what] as unknown, path: '', what };
  const out: HubSettings = {};
  const put = <K extends keyof HubSettings>(key: K, value: HubSettings[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  put('temperature', at('temperature'));
  put('topP', at('top_p'));
  const { max_tokens: tokens, max_completion_tokens: completion } = session;
  if (tokens != null && completion != null) {
    issues.unsupported('', 'max_completion_tokens', `it is given beside max_tokens, and ${issues.target} takes one output token limit`);
  }
  const what = tokens != null || (tokens !== undefined && completion == null) ? 'max_tokens' : 'max_completion_tokens';
  const limit = at(what);
  if (limit) out.maxOutputTokens = { ...limit, countsReasoning: what === 'max_completion_tokens' };
  put('stop', at('stop'));
  put('seed', at('seed'));
  const format = session.response_format;
  if (format !== undefined)
    out.responseFormat = { value: format === null ? null : responseFormatOf(format), path: '', what: 'response_format' };
  put('reasoningEffort', at('reasoning_effort'));
  put('parallelToolCalls', at('parallel_tool_calls'));
  put('promptCacheOptions', at('prompt_cache_options'));
  put('promptCacheRetention', at('prompt_cache_retention'));
  return out;
}

function responseFormatOf(format: NonNullable<OpenAIChatSession['response_format']>): HubResponseFormat {
  const schemaPath = 'response_format.json_schema';
  if (format.type !== 'json_schema') return { type: format.type, schemaPath };
  const { name, description, schema, strict } = format.json_schema;
  return {
    type: 'json_schema',
    name,
    ...given('description', description),
    ...given('schema', schema),
    ...given('strict', strict),
    schemaPath,
  };
}
