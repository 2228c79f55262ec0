import type { ChatContentPart, ChatMessage, ChatTool, OpenAIChatSession } from '../shapes/openai-chat/schema.js';
import type { OpenAIResponsesSession, ResponsesFunctionTool, ResponsesInputItem } from '../shapes/openai-responses/schema.js';
import { isRecord } from '../input/json.js';
import type { Issues } from './issues.js';

/*
 * OpenAI Chat Completions (`"format": "openai-chat"`) → OpenAI Responses (`"format":
 * "openai-responses"`): the two OpenAI shapes, nearly one to one. from-openai-responses.ts is the
 * way back; a chat session converted there and back is the same session (but for the defaults
 * named below). The README's "Converting sessions" states the same rules.
 *
 * - "system" and "developer" messages stay input messages of that role, where they stand:
 *   `instructions` is not written, as the API puts it before the conversation in a role it chooses
 *   ("a system (or developer) message"), and a mid-conversation system message would move.
 * - Content: a string stays a string; text parts → input_text parts (a `prompt_cache_breakpoint`
 *   kept), image_url parts → input_image (`image_url` = its url, `detail` its own or "auto", Chat's
 *   default), file parts → input_file (file_data, file_id, filename). input_audio parts, a text
 *   part's `cache_control` (DashScope's) and a message's `name` are unsupported.
 * - An "assistant" message → its text as assistant messages (a string, or one message per text
 *   part: a Responses turn is the items one response outputs), then one `function_call` item per
 *   tool call (`call_id` = the call's id, `name`, `arguments` as they are). A refusal, audio or
 *   refusal parts are unsupported (a Responses refusal is part of an output message, with the id
 *   the API gave it).
 * - A "tool" message → a `function_call_output` item: `output` is its string, or its text parts
 *   as input_text parts.
 * - tools → flat function tools `{ type, name, description, parameters, strict }`: no
 *   `parameters` → `{ "type": "object", "properties": {} }` (Chat's empty parameter list, noted);
 *   `strict` true stays true, otherwise false (Chat is non-strict unless told; the Responses API
 *   makes a schema strict when `strict` is left out).
 * - tool_choice: the strings as they are; a named function → `{ type: "function", name }`;
 *   allowed_tools → `{ type: "allowed_tools", mode, tools }` with each tool flat.
 * - parallel_tool_calls, temperature, top_p, prompt_cache_options and prompt_cache_retention as
 *   they are; max_tokens or max_completion_tokens → max_output_tokens (at least 16, the API's
 *   floor); reasoning_effort → reasoning.effort; response_format → text.format (json_schema
 *   flat: name, description, schema, strict). seed and stop have no counterpart (unsupported
 *   unless null).
 * Output keys, in the order the Responses schema lists them: format, model, input, tools,
 * tool_choice, parallel_tool_calls, temperature, top_p, max_output_tokens, reasoning, text,
 * prompt_cache_options, prompt_cache_retention.
 */

type Json = Record<string, unknown>;
type Item = ResponsesInputItem;
type ResponsesToolChoice = NonNullable<OpenAIResponsesSession['tool_choice']>;
type ChatToolChoice = NonNullable<OpenAIChatSession['tool_choice']>;

/** The Responses API refuses fewer output tokens. */
const MIN_OUTPUT_TOKENS = 16;

export function openAIChatToResponses(session: OpenAIChatSession, issues: Issues): OpenAIResponsesSession {
  const input = session.messages.flatMap((message, m) => itemsOf(message, `messages[${m}]`, issues));
  if (input.length === 0) issues.fail('messages', 'an openai-responses session needs at least one input item, and nothing is left to convert');
  const tools = session.tools?.map((tool, t) => responsesTool(tool, `tools[${t}]`, issues));
  const toolChoice = session.tool_choice === undefined ? undefined : toolChoiceOf(session.tool_choice, issues);
  for (const key of ['seed', 'stop'] as const) {
    if (session[key] !== undefined && session[key] !== null) issues.unsupported('', key, 'the Responses API has no such setting');
  }
  const reasoning = session.reasoning_effort === undefined ? undefined : { effort: session.reasoning_effort };
  const text = session.response_format === undefined ? undefined : { format: textFormatOf(session.response_format, issues) };
  return {
    format: 'openai-responses',
    model: session.model,
    input,
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...given('parallel_tool_calls', session.parallel_tool_calls),
    ...given('temperature', session.temperature),
    ...given('top_p', session.top_p),
    ...given('max_output_tokens', maxOutputTokens(session, issues)),
    ...given('reasoning', reasoning),
    ...given('text', text),
    ...given('prompt_cache_options', session.prompt_cache_options),
    ...given('prompt_cache_retention', session.prompt_cache_retention),
  } as OpenAIResponsesSession;
}

/** `{ key: value }` when value is given (null included: both APIs read it as their default), else nothing. */
export function given(key: string, value: unknown): Json {
  return value === undefined ? {} : { [key]: value };
}

// ── Messages ────────────────────────────────────────────────────────────────────────────────────

function itemsOf(message: ChatMessage, path: string, issues: Issues): Item[] {
  if ('name' in message && message.name !== undefined) issues.unsupported(path, 'name', 'a Responses message has no name');
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user': {
      const content = inputContent(message.content, path, issues);
      return content === undefined ? [] : [{ role: message.role, content } as Item];
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: inputContent(message.content, path, issues) ?? '' } as Item];
    case 'assistant':
      return assistantItems(message, path, issues);
  }
}

function assistantItems(message: Extract<ChatMessage, { role: 'assistant' }>, path: string, issues: Issues): Item[] {
  for (const key of ['refusal', 'audio'] as const) {
    if (message[key] !== undefined && message[key] !== null) issues.unsupported(path, key, "a Responses refusal is a part of an output message, with the id the API gave it");
  }
  const items: Item[] = [];
  const content = message.content;
  if (typeof content === 'string') items.push({ role: 'assistant', content });
  else {
    content?.forEach((part, p) => {
      const partPath = `${path}.content[${p}]`;
      if (part.type !== 'text') {
        issues.unsupported(partPath, part.type, "a Responses refusal is a part of an output message, with the id the API gave it");
        return;
      }
      extraFields(part, ['type', 'text'], partPath, issues, "the model's text in a Responses assistant message is a string");
      items.push({ role: 'assistant', content: part.text });
    });
  }
  for (const call of message.tool_calls ?? []) {
    items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return items;
}

type InputPart = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

/** A message's content as Responses input content: a string as it is, parts as input parts; undefined when every part was left out. */
function inputContent(content: string | readonly ChatContentPart[], path: string, issues: Issues): string | InputPart[] | undefined {
  if (typeof content === 'string') return content;
  const parts: InputPart[] = [];
  content.forEach((part, p) => {
    const converted = inputPart(part, `${path}.content[${p}]`, issues);
    if (converted) parts.push(converted);
  });
  return parts.length > 0 ? parts : undefined;
}

function inputPart(part: ChatContentPart, path: string, issues: Issues): InputPart | undefined {
  const breakpoint = 'prompt_cache_breakpoint' in part ? given('prompt_cache_breakpoint', part.prompt_cache_breakpoint) : {};
  switch (part.type) {
    case 'text':
      extraFields(part, ['type', 'text', 'prompt_cache_breakpoint'], path, issues);
      return { type: 'input_text', text: part.text, ...breakpoint };
    case 'image_url':
      return { type: 'input_image', image_url: part.image_url.url, detail: part.image_url.detail ?? 'auto', ...breakpoint };
    case 'file': {
      const { file_data, file_id, filename } = part.file;
      return { type: 'input_file', ...given('file_data', file_data), ...given('file_id', file_id), ...given('filename', filename), ...breakpoint };
    }
    default:
      issues.unsupported(path, part.type, part.type === 'refusal' ? undefined : 'the Responses API takes text, images and files as input');
      return undefined;
  }
}

/** Fields of a part beyond `known` (a text part's `cache_control`) are unsupported. */
function extraFields(part: object, known: readonly string[], path: string, issues: Issues, why?: string): void {
  for (const [key, value] of Object.entries(part)) if (!known.includes(key) && value !== undefined) issues.unsupported(path, key, why);
}

// ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

function responsesTool(tool: ChatTool, path: string, issues: Issues): ResponsesFunctionTool {
  const fn = tool.function;
  if (fn.parameters === undefined) issues.note(`parameters { "type": "object", "properties": {} } (the Responses API requires them; Chat's omitted parameters are an empty parameter list)`, path);
  return {
    type: 'function',
    name: fn.name,
    ...given('description', fn.description),
    // Chat's omitted `parameters`: "a function with an empty parameter list".
    parameters: fn.parameters ?? { type: 'object', properties: {} },
    strict: fn.strict === true,
  };
}

function toolChoiceOf(choice: ChatToolChoice, issues: Issues): ResponsesToolChoice | undefined {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { type: 'function', name: choice.function.name };
  const tools: Json[] = [];
  choice.allowed_tools.tools.forEach((tool, t) => {
    const fn = tool.function;
    if (tool.type === 'function' && isRecord(fn) && typeof fn.name === 'string' && fn.name !== '' && Object.keys(tool).length === 2) {
      tools.push({ type: 'function', name: fn.name });
    } else issues.unsupported(`tool_choice.allowed_tools.tools[${t}]`, 'a tool that is not { "type": "function", "function": { "name" } }');
  });
  return { type: 'allowed_tools', mode: choice.allowed_tools.mode, tools };
}

// ── Settings ────────────────────────────────────────────────────────────────────────────────────

function maxOutputTokens(session: OpenAIChatSession, issues: Issues): number | null | undefined {
  const { max_tokens: tokens, max_completion_tokens: completion } = session;
  if (tokens != null && completion != null) {
    issues.unsupported('', 'max_completion_tokens', 'it is given beside max_tokens, and the Responses API has one max_output_tokens');
  }
  const value = tokens ?? completion;
  if (typeof value === 'number' && value < MIN_OUTPUT_TOKENS) {
    issues.unsupported('', tokens != null ? 'max_tokens' : 'max_completion_tokens', `${value} is below the Responses API's floor of ${MIN_OUTPUT_TOKENS} output tokens`);
    return undefined;
  }
  return value;
}

type ResponseFormat = NonNullable<OpenAIChatSession['response_format']>;

function textFormatOf(format: ResponseFormat, issues: Issues): Json {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format.json_schema;
  if (schema === undefined) return issues.fail('response_format.json_schema', 'has no "schema": a Responses json_schema format requires one');
  return { type: 'json_schema', name, ...given('description', description), schema, ...given('strict', strict) };
}
