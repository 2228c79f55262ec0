import type { ChatContentPart, ChatMessage, ChatTool, ChatToolCall, OpenAIChatSession } from '../shapes/openai-chat/schema.js';
import type { OpenAIResponsesSession, ResponsesFunctionTool, ResponsesInputItem } from '../shapes/openai-responses/schema.js';
import type { Issues } from './issues.js';
import { given } from './to-openai-responses.js';

/*
 * OpenAI Responses (`"format": "openai-responses"`) → OpenAI Chat Completions (`"format":
 * "openai-chat"`): the reverse of to-openai-responses.ts. The README's "Converting sessions"
 * states the same rules.
 *
 * - `instructions` → a leading "system" message (the API inserts it as "a system (or developer)
 *   message"; Chat's "system" is read as "developer" by the models that take that role). A string
 *   `input` is one "user" message.
 * - user, system and developer messages → messages of that role: a string stays a string;
 *   input_text → text parts (a `prompt_cache_breakpoint` kept), and in a user message input_image
 *   → image_url (`url` = its image_url; `detail` kept unless "auto", Chat's default) and
 *   input_file → file (file_data, file_id, filename). An image by file_id, a detail of
 *   "original", a file_url, a file's detail, and images or files in a system message are
 *   unsupported.
 * - A model turn — consecutive assistant messages and function_call items (reasoning items left
 *   out between them) — → one "assistant" message: its text (one text as a string, several as
 *   text parts, refusal parts as they are), then its calls as `tool_calls` (`id` = call_id,
 *   `arguments` as they are). Text after a call starts another assistant message, as Chat
 *   puts a message's text before its calls. Without text, `content` is null (as the API answers).
 * - A function_call_output → a "tool" message (`tool_call_id` = call_id): a string output as it
 *   is, input_text parts as text parts; images and files are unsupported. It must answer a call
 *   of the assistant message just before (only tool messages between), as Chat requires.
 * - What a response reports about its own items (item ids, statuses, an output_text's logprobs
 *   and empty annotations, a "direct" caller) has no place in a Chat message: left out, noted once.
 * - reasoning items (encrypted reasoning Chat cannot send back), item_reference and compaction
 *   items (state kept at OpenAI), non-empty annotations and a message's `phase` are unsupported.
 * - tools → `{ type: "function", function: { name, description, parameters, strict } }`: strict
 *   true stays, false is Chat's default (left out), null is unsupported (the Responses API then
 *   makes the schema strict, Chat does not); `output_schema` is unsupported.
 * - tool_choice: the strings as they are; `{ type: "function", name }` → Chat's nested form;
 *   allowed_tools → `{ type: "allowed_tools", allowed_tools: { mode, tools } }`.
 * - parallel_tool_calls, temperature, top_p, prompt_cache_options and prompt_cache_retention as
 *   they are; max_output_tokens → max_completion_tokens (both count reasoning tokens);
 *   reasoning.effort → reasoning_effort; text.format → response_format. truncation "disabled" is
 *   what Chat does (left out); any other setting without a counterpart (top_logprobs, include,
 *   prompt_cache_key, store, metadata, user, service_tier, …) is unsupported unless null.
 * Output keys, in the order the openai-chat schema lists them: format, model, messages, tools,
 * tool_choice, parallel_tool_calls, temperature, top_p, max_completion_tokens, reasoning_effort,
 * response_format, prompt_cache_options, prompt_cache_retention.
 */

type Json = Record<string, unknown>;
type ChatToolChoice = NonNullable<OpenAIChatSession['tool_choice']>;
type ResponsesToolChoice = NonNullable<OpenAIResponsesSession['tool_choice']>;

/** The session fields converted (or, for truncation, checked); any other is unsupported unless null. */
const CONVERTED = [
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

export function openAIResponsesToChat(session: OpenAIResponsesSession, issues: Issues): OpenAIChatSession {
  for (const [key, value] of Object.entries(session)) {
    const empty = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
    if (!CONVERTED.includes(key) && !empty) issues.unsupported('', key, 'an openai-chat session has no such setting');
  }
  if (session.truncation === 'auto') issues.unsupported('', 'truncation "auto"', 'Chat Completions fails a request too long for the context, as "disabled" does');
  const messages: ChatMessage[] = [];
  if (typeof session.instructions === 'string') messages.push({ role: 'system', content: session.instructions });
  messages.push(...new ItemReader(issues).read(session.input));
  if (messages.length === 0) issues.fail('input', 'an openai-chat session needs at least one message, and nothing is left to convert');
  const tools = session.tools?.map((tool, t) => chatTool(tool, `tools[${t}]`, issues));
  const toolChoice = session.tool_choice === undefined ? undefined : toolChoiceOf(session.tool_choice, issues);
  const effort = reasoningEffort(session.reasoning, issues);
  const retention = session.prompt_cache_options !== undefined && session.prompt_cache_retention != null ? cacheRetentionBeside(issues) : session.prompt_cache_retention;
  return {
    format: 'openai-chat',
    model: session.model,
    messages,
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...given('parallel_tool_calls', session.parallel_tool_calls ?? undefined),
    ...given('temperature', session.temperature),
    ...given('top_p', session.top_p),
    ...given('max_completion_tokens', session.max_output_tokens),
    ...given('reasoning_effort', effort),
    ...given('response_format', responseFormatOf(session.text, issues)),
    ...given('prompt_cache_options', session.prompt_cache_options),
    ...given('prompt_cache_retention', retention),
  } as OpenAIChatSession;
}

// ── Items ───────────────────────────────────────────────────────────────────────────────────────

type Item = ResponsesInputItem;
type AssistantPart = Extract<ChatContentPart, { type: 'text' | 'refusal' }>;
type TextPart = Extract<ChatContentPart, { type: 'text' }>;
/** A model turn being read: its text and refusal parts, then its calls. */
interface Turn {
  parts: AssistantPart[];
  calls: ChatToolCall[];
}

/** What a response reports about its own items: no Chat message carries it. */
const BOOKKEEPING = ['id', 'status'];

class ItemReader {
  private readonly out: (ChatMessage | Turn)[] = [];
  /** The model turn the next assistant text or call joins; undefined once anything else came. */
  private turn: Turn | undefined;
  /** The calls of the last assistant message, while only tool messages have followed it. */
  private open = new Set<string>();
  /** How many item ids, statuses and logprobs were left out (noted once). */
  private bookkeeping = 0;

  constructor(private readonly issues: Issues) {}

  read(input: OpenAIResponsesSession['input']): ChatMessage[] {
    if (typeof input === 'string') return [{ role: 'user', content: input }];
    input.forEach((item, i) => {
      this.item(item, `input[${i}]`);
    });
    if (this.bookkeeping > 0) {
      this.issues.note(`${this.bookkeeping} item ids, statuses and logprobs left out: what a response reports about its own items, which Chat Completions messages do not carry`);
    }
    return this.out.flatMap((entry) => ('role' in entry ? [entry] : assistantOf(entry)));
  }

  private item(item: Item, path: string): void {
    const kind = 'role' in item ? 'message' : (item.type ?? 'item_reference');
    if (kind !== 'item_reference') for (const key of BOOKKEEPING) if ((item as Json)[key] !== undefined && (item as Json)[key] !== null) this.bookkeeping++;
    if ('role' in item) {
      const phase = (item as Json).phase;
      if (phase !== undefined && phase !== null) this.issues.unsupported(path, 'phase', 'Chat Completions has no phase for a message');
      if (item.role === 'assistant') this.assistantText(item, path);
      else this.message(item, path);
      return;
    }
    switch (item.type) {
      case 'function_call':
        this.call(item);
        return;
      case 'function_call_output':
        this.output(item, path);
        return;
      case 'reasoning':
        // Not a turn's end: the items the model produced after it follow.
        this.issues.unsupported(path, 'reasoning', "Chat Completions takes no reasoning items (the model's encrypted reasoning) back");
        return;
      default:
        this.issues.unsupported(path, kind, 'it stands for items kept at OpenAI, which a Chat Completions session cannot send');
        this.close();
    }
  }

  private message(item: Extract<Item, { role: 'user' | 'system' | 'developer' }>, path: string): void {
    this.close();
    const content = item.content;
    if (typeof content === 'string') {
      this.out.push({ role: item.role, content });
      return;
    }
    const parts: ChatContentPart[] = [];
    content.forEach((part, p) => {
      const converted = chatPart(part, item.role === 'user', `${path}.content[${p}]`, this.issues);
      if (converted) parts.push(converted);
    });
    if (parts.length > 0) this.out.push({ role: item.role, content: parts } as ChatMessage);
  }

  private assistantText(item: Extract<Item, { role: 'assistant' }>, path: string): void {
    const parts: AssistantPart[] = [];
    if (typeof item.content === 'string') parts.push({ type: 'text', text: item.content });
    else {
      item.content.forEach((part, p) => {
        if (part.type === 'refusal') {
          parts.push({ type: 'refusal', refusal: part.refusal });
          return;
        }
        if (part.annotations.length > 0) this.issues.unsupported(`${path}.content[${p}]`, 'annotations', 'Chat Completions takes no citations back');
        if (part.logprobs !== undefined) this.bookkeeping++;
        parts.push({ type: 'text', text: part.text });
      });
    }
    // Chat puts a message's text before its calls: text after a call starts another message.
    const turn = this.turn && this.turn.calls.length === 0 ? this.turn : this.newTurn();
    turn.parts.push(...parts);
  }

  private call(item: Extract<Item, { type: 'function_call' }>): void {
    const turn = this.turn ?? this.newTurn();
    turn.calls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    this.open.add(item.call_id);
  }

  private output(item: Extract<Item, { type: 'function_call_output' }>, path: string): void {
    this.turn = undefined;
    if (!this.open.has(item.call_id)) {
      this.issues.fail(
        `${path}.call_id`,
        `"${item.call_id}" answers no call of the model turn just before it: in openai-chat a tool message follows the assistant message whose call it answers (only other tool messages between)`,
      );
    }
    this.open.delete(item.call_id);
    const output = item.output;
    let content: string | TextPart[] = '';
    if (typeof output === 'string') content = output;
    else {
      const parts: TextPart[] = [];
      output.forEach((part, p) => {
        if (part.type !== 'input_text') this.issues.unsupported(`${path}.output[${p}]`, part.type, 'a Chat Completions tool message holds text only');
        else parts.push({ type: 'text', text: part.text, ...given('prompt_cache_breakpoint', part.prompt_cache_breakpoint ?? undefined) });
      });
      if (parts.length > 0) content = parts;
    }
    this.out.push({ role: 'tool', tool_call_id: item.call_id, content });
  }

  private newTurn(): Turn {
    this.open = new Set();
    const turn: Turn = { parts: [], calls: [] };
    this.out.push(turn);
    this.turn = turn;
    return turn;
  }

  /** Anything but a model item or a tool message: no later item joins the turn or answers its calls. */
  private close(): void {
    this.turn = undefined;
    this.open = new Set();
  }
}

/** A model turn as one assistant message (none when everything in it was left out). */
function assistantOf(turn: Turn): ChatMessage[] {
  const { parts, calls } = turn;
  if (parts.length === 0 && calls.length === 0) return [];
  const only = parts.length === 1 ? parts[0] : undefined;
  const content = parts.length === 0 ? null : only?.type === 'text' ? only.text : parts;
  return [{ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
}

type InputPart = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

function chatPart(part: InputPart, user: boolean, path: string, issues: Issues): ChatContentPart | undefined {
  const breakpoint = given('prompt_cache_breakpoint', part.prompt_cache_breakpoint);
  if (part.type === 'input_text') return { type: 'text', text: part.text, ...breakpoint };
  if (!user) {
    issues.unsupported(path, part.type, 'a Chat Completions system or developer message holds text only');
    return undefined;
  }
  if (part.type === 'input_image') {
    if (typeof part.image_url !== 'string') return unsupported(path, 'an image by file_id', 'a Chat Completions image is given by its url', issues);
    if (part.detail === 'original') return unsupported(path, 'detail "original"', 'Chat Completions takes "auto", "low" and "high"', issues);
    return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail === 'auto' ? {} : { detail: part.detail }) }, ...breakpoint };
  }
  for (const key of ['file_url', 'detail'] as const) if (part[key] !== undefined) issues.unsupported(path, key, 'a Chat Completions file part takes file_data, file_id and filename');
  const { file_data, file_id, filename } = part;
  if (file_data === undefined && (file_id === undefined || file_id === null)) return undefined;
  return { type: 'file', file: { ...given('file_data', file_data), ...given('file_id', file_id ?? undefined), ...given('filename', filename) }, ...breakpoint };
}

function unsupported(path: string, what: string, why: string, issues: Issues): undefined {
  issues.unsupported(path, what, why);
  return undefined;
}

// ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

function chatTool(tool: ResponsesFunctionTool, path: string, issues: Issues): ChatTool {
  if (tool.strict === null) {
    issues.unsupported(path, 'strict null', 'the Responses API then makes the schema strict and Chat Completions does not: set strict to true or false');
  }
  if (tool.output_schema !== undefined && tool.output_schema !== null) issues.unsupported(path, 'output_schema');
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...given('description', tool.description ?? undefined),
      parameters: tool.parameters,
      ...(tool.strict === true ? { strict: true } : {}),
    },
  };
}

function toolChoiceOf(choice: ResponsesToolChoice, issues: Issues): ChatToolChoice | undefined {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { type: 'function', function: { name: choice.name } };
  const tools: Json[] = [];
  choice.tools.forEach((tool, t) => {
    if (tool.type === 'function' && typeof tool.name === 'string' && tool.name !== '' && Object.keys(tool).length === 2) {
      tools.push({ type: 'function', function: { name: tool.name } });
    } else issues.unsupported(`tool_choice.tools[${t}]`, 'a tool that is not { "type": "function", "name" }');
  });
  return { type: 'allowed_tools', allowed_tools: { mode: choice.mode, tools } };
}

// ── Settings ────────────────────────────────────────────────────────────────────────────────────

function reasoningEffort(reasoning: OpenAIResponsesSession['reasoning'], issues: Issues): unknown {
  if (reasoning === undefined || reasoning === null) return undefined;
  for (const key of ['summary', 'context', 'mode'] as const) {
    if (reasoning[key] !== undefined && reasoning[key] !== null) issues.unsupported('reasoning', key, 'Chat Completions takes the reasoning effort only');
  }
  if (reasoning.effort === 'max') return unsupported('reasoning', 'effort "max"', 'Chat Completions\' efforts go up to "xhigh"', issues);
  return reasoning.effort;
}

function responseFormatOf(text: OpenAIResponsesSession['text'], issues: Issues): Json | undefined {
  if (text === undefined) return undefined;
  if (text.verbosity !== undefined && text.verbosity !== null) issues.unsupported('text', 'verbosity', 'an openai-chat session has no such setting');
  const format = text.format;
  if (format === undefined || format.type !== 'json_schema') return format === undefined ? undefined : { type: format.type };
  const { name, description, schema, strict } = format;
  return { type: 'json_schema', json_schema: { name, ...given('description', description), schema, ...given('strict', strict) } };
}

function cacheRetentionBeside(issues: Issues): undefined {
  issues.unsupported('', 'prompt_cache_retention', 'Chat Completions takes it or prompt_cache_options, not both');
  return undefined;
}
