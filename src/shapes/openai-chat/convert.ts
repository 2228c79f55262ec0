import { isRecord } from '../../input/json.js';
import { CallLedger, type CallRules, given, type Issues, resultText } from '../convert-issues.js';
import {
  bookkeepingNote,
  type HubMedia,
  type HubMessage,
  type HubOutput,
  type HubPart,
  type HubResponseFormat,
  type HubSession,
  type HubSettings,
  type HubText,
  type HubTool,
  type HubToolChoice,
  hubCallIds,
  type Opaque,
  partWhat,
} from '../hub.js';
import type { ConvertFacet } from '../shape.js';
import { type ChatContentPart, type ChatMessage, type ChatTool, type ChatToolCall, OPENAI_CHAT_SESSION_KEYS, type OpenAIChatSession } from './schema.js';

/*
 * OpenAI Chat Completions' shape (`"format": "openai-chat"`) ⇄ the hub. docs/converting.md states
 * the rules for users.
 *
 * To the hub: system and developer messages stand where they are; a user message's content and a
 * tool message's are text parts (a string is one, kept as a string), image_url and file parts
 * media; an assistant message is a model message of its text (refusal parts kept), then its calls
 * (`arguments` as they are). Consecutive tool messages are one user message of results (named by
 * their call), and the user's next words join it. A message's `name`, a refusal or audio field, a
 * text part's `cache_control` and session fields the hub has no place for travel as opaque items.
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

// ── To the hub ──────────────────────────────────────────────────────────────────────────────────

const MESSAGE_FIELDS: Record<ChatMessage['role'], readonly string[]> = {
  system: ['role', 'content'],
  developer: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'refusal', 'audio', 'tool_calls'],
  tool: ['role', 'content', 'tool_call_id'],
};

function toHub(session: Readonly<OpenAIChatSession>, issues: Issues): HubSession {
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

type Content = string | readonly ChatContentPart[] | null | undefined;

class MessageReader {
  private readonly out: HubMessage[] = [];
  private readonly callNames = new Map<string, string>();
  /** The last message holds the results of the tool messages just read. */
  private afterTools = false;

  read(messages: readonly ChatMessage[]): HubMessage[] {
    messages.forEach((message, m) => {
      this.message(message, `messages[${m}]`);
    });
    return this.out;
  }

  private message(message: ChatMessage, path: string): void {
    const extras: Opaque[] = Object.entries(message)
      .filter(([key, value]) => !MESSAGE_FIELDS[message.role].includes(key) && value !== undefined)
      .map(([key]) => ({ path, what: key }));
    const afterTools = this.afterTools;
    this.afterTools = false;
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user': {
        const parts = partsOf(message.content, path);
        const last = this.out.at(-1);
        if (message.role === 'user' && afterTools && last) {
          last.parts.push(...parts);
          last.extras.push(...extras);
          last.textForm = formOf(message.content);
          return;
        }
        this.out.push({ role: message.role, parts, path, extras, textForm: formOf(message.content) });
        return;
      }
      case 'assistant': {
        for (const key of ['refusal', 'audio'] as const) if (message[key] !== undefined && message[key] !== null) extras.push({ path, what: key });
        const parts: HubPart[] = partsOf(message.content, path);
        message.tool_calls?.forEach((call, c) => {
          const callPath = `${path}.tool_calls[${c}]`;
          this.callNames.set(call.id, call.function.name);
          parts.push({
            kind: 'call',
            id: call.id,
            name: call.function.name,
            args: { text: call.function.arguments, path: `${callPath}.function.arguments` },
            idPath: `${callPath}.id`,
            path: callPath,
            extras: [],
          });
        });
        this.out.push({ role: 'model', parts, path, extras, textForm: formOf(message.content), ...(message.content === null ? { nullWhenEmpty: true } : {}) });
        return;
      }
      case 'tool': {
        const name = this.callNames.get(message.tool_call_id);
        const output: HubOutput = typeof message.content === 'string' ? { text: message.content } : { parts: partsOf(message.content, path) as (HubText | HubMedia)[] };
        const part: HubPart = { kind: 'result', id: message.tool_call_id, ...(name === undefined ? {} : { name }), output, namePath: `${path}.tool_call_id`, path, extras };
        const last = this.out.at(-1);
        if (afterTools && last) last.parts.push(part);
        else this.out.push({ role: 'user', parts: [part], path, extras: [] });
        this.afterTools = true;
        return;
      }
    }
  }
}

function formOf(content: Content): 'string' | 'parts' | undefined {
  return typeof content === 'string' ? 'string' : Array.isArray(content) ? 'parts' : undefined;
}

function partsOf(content: Content, path: string): HubPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', text: content, path, extras: [] }];
  return content.map((part, p) => hubPart(part, `${path}.content[${p}]`));
}

function hubPart(part: ChatContentPart, path: string): HubPart {
  const breakpoint = 'prompt_cache_breakpoint' in part && part.prompt_cache_breakpoint !== undefined ? { cacheBreakpoint: part.prompt_cache_breakpoint } : {};
  const others = (...known: string[]) =>
    Object.entries(part)
      .filter(([key, value]) => !['type', 'prompt_cache_breakpoint', ...known].includes(key) && value !== undefined)
      .map(([key]) => ({ path, what: key }));
  switch (part.type) {
    case 'text':
      return { kind: 'text', text: part.text, ...breakpoint, path, extras: others('text') };
    case 'refusal':
      return { kind: 'refusal', text: part.refusal, path, extras: [] };
    case 'image_url':
      return { kind: 'media', media: 'image', what: 'image_url', url: part.image_url.url, ...given('detail', part.image_url.detail), ...breakpoint, path, extras: [] };
    case 'file': {
      const { file_data, file_id, filename } = part.file;
      return { kind: 'media', media: 'file', what: 'file', ...given('fileData', file_data), ...given('fileId', file_id), ...given('filename', filename), ...breakpoint, path, extras: [] };
    }
    default:
      return { kind: 'media', media: 'audio', what: part.type, path, extras: [] };
  }
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
    if (tool.type === 'function' && isRecord(fn) && typeof fn.name === 'string' && fn.name !== '' && Object.keys(tool).length === 2) names.push(fn.name);
    else extras.push({ path: `tool_choice.allowed_tools.tools[${t}]`, what: 'a tool that is not { "type": "function", "function": { "name" } }' });
  });
  return { kind: 'allowed', mode: choice.allowed_tools.mode, names, what: 'allowed_tools' };
}

function settingsOf(session: Readonly<OpenAIChatSession>, issues: Issues): HubSettings {
  const at = (what: keyof OpenAIChatSession) => (session[what] === undefined ? undefined : { value: session[what] as unknown, path: '', what });
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
  if (format !== undefined) out.responseFormat = { value: format === null ? null : responseFormatOf(format), path: '', what: 'response_format' };
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
  return { type: 'json_schema', name, ...given('description', description), ...given('schema', schema), ...given('strict', strict), schemaPath };
}

// ── From the hub ────────────────────────────────────────────────────────────────────────────────

const CHAT_CALLS: CallRules = {
  idWord: 'tool call id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a tool message must answer a call of the assistant message before it',
  nameRule: "a tool message takes its function's name from the call",
};

function fromHub(hub: HubSession, issues: Issues): OpenAIChatSession {
  issues.opaque(hub.extras);
  const messages = new HistoryWriter(hub, issues).messages();
  if (messages.length === 0) {
    issues.fail(hub.conversation, 'an openai-chat session needs at least one message, and nothing is left to convert (no system instruction, no history)');
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

type Text = Extract<ChatContentPart, { type: 'text' }>;

/** One text as a string (unless the source wrote parts), several as text parts. */
function textContent(texts: readonly Text[], form: 'string' | 'parts' | undefined): string | Text[] {
  const only = texts.length === 1 ? texts[0] : undefined;
  return only !== undefined && form !== 'parts' && only.prompt_cache_breakpoint === undefined ? only.text : [...texts];
}

class HistoryWriter {
  private readonly out: ChatMessage[] = [];
  /** The calls of the last assistant message, while only tool messages have followed it. */
  private readonly calls: CallLedger;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, CHAT_CALLS);
  }

  messages(): ChatMessage[] {
    for (const message of this.hub.messages) {
      this.issues.opaque(message.extras);
      if (message.role === 'model') this.model(message);
      else if (message.role === 'user') this.user(message);
      else this.system(message);
    }
    return this.out;
  }

  private system(message: HubMessage): void {
    const texts: Text[] = [];
    for (const part of message.parts) {
      const text = this.text(part, 'a Chat Completions system or developer message holds text only');
      if (text) texts.push(text);
    }
    if (texts.length === 0) return;
    // A shape with one system text (no form of its own) gives one leading system message.
    this.out.push({ role: message.role, content: textContent(texts, message.textForm) } as ChatMessage);
  }

  private text(part: HubPart, why?: string): Text | undefined {
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    if (part.kind !== 'text') {
      this.unsupportedPart(part, why);
      return undefined;
    }
    this.issues.opaque(part.extras);
    return { type: 'text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as Text;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private model(message: HubMessage): void {
    const content: (Text | { type: 'refusal'; refusal: string })[] = [];
    const calls: ChatToolCall[] = [];
    for (const part of message.parts) {
      if (part.kind === 'call') {
        // This message's calls are the ones its tool messages may answer.
        if (calls.length === 0) this.calls.newTurn();
        this.issues.opaque(part.extras);
        const id = this.calls.call(part.id, part.name, part.idPath);
        const args = 'json' in part.args ? JSON.stringify(part.args.json ?? {}) : part.args.text;
        calls.push({ id, type: 'function', function: { name: part.name, arguments: args } });
      } else if (part.kind === 'refusal') {
        this.issues.opaque(part.extras);
        content.push({ type: 'refusal', refusal: part.text });
      } else if (part.kind === 'result') this.unsupportedPart(part, "a model message cannot hold a function's result");
      else {
        const text = this.text(part);
        if (text) content.push(text);
      }
    }
    if (content.length === 0 && calls.length === 0) return; // everything in it was left out (and listed)
    if (calls.length === 0) this.calls.newTurn();
    const texts = content.every((part) => part.type === 'text') ? textContent(content as Text[], message.nullWhenEmpty ? undefined : message.textForm) : content;
    const written = content.length === 0 ? (message.nullWhenEmpty ? { content: null } : {}) : { content: texts };
    this.out.push({ role: 'assistant', ...written, ...(calls.length > 0 ? { tool_calls: calls } : {}) } as ChatMessage);
  }

  private user(message: HubMessage): void {
    const content: ChatContentPart[] = [];
    let media = false;
    for (const part of message.parts) {
      if (part.kind === 'result') {
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, part.path, part.namePath);
        if (answered !== undefined) this.out.push({ role: 'tool', tool_call_id: answered.id, content: this.toolContent(part.output) });
      } else if (part.kind === 'media') {
        const written = this.media(part);
        if (written) {
          content.push(written);
          media = true;
        }
      } else if (part.kind === 'call') this.unsupportedPart(part, 'a user message cannot call a function');
      else {
        const text = this.text(part);
        if (text) content.push(text as ChatContentPart);
      }
    }
    if (content.length === 0) return;
    this.out.push({ role: 'user', content: media ? content : textContent(content as Text[], message.textForm) } as ChatMessage);
    this.calls.newTurn(); // a tool message cannot follow the user's words
  }

  private media(part: HubMedia): ChatContentPart | undefined {
    const breakpoint = given('prompt_cache_breakpoint', part.cacheBreakpoint);
    if (part.media === 'image' && part.url === undefined && part.fileId !== undefined) {
      this.issues.unsupported(part.path, 'an image by file_id', 'a Chat Completions image is given by its url');
      return undefined;
    }
    if (part.media === 'image' && part.url !== undefined) {
      if (part.detail === 'original') {
        this.issues.unsupported(part.path, 'detail "original"', 'Chat Completions takes "auto", "low" and "high"');
        return undefined;
      }
      return { type: 'image_url', image_url: { url: part.url, ...(part.detail === undefined || part.detail === 'auto' ? {} : { detail: part.detail }) }, ...breakpoint } as ChatContentPart;
    }
    if (part.media === 'file' && part.data === undefined) {
      for (const [key, value] of [['file_url', part.fileUrl], ['detail', part.detail]] as const) {
        if (value !== undefined) this.issues.unsupported(part.path, key, 'a Chat Completions file part takes file_data, file_id and filename');
      }
      if (part.fileData === undefined && (part.fileId === undefined || part.fileId === null)) return undefined;
      return { type: 'file', file: { ...given('file_data', part.fileData), ...given('file_id', part.fileId ?? undefined), ...given('filename', part.filename) }, ...breakpoint } as ChatContentPart;
    }
    this.issues.unsupported(part.path, part.what);
    return undefined;
  }

  private toolContent(output: HubOutput): string | Text[] {
    if ('json' in output) return resultText(output.json);
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    const parts: Text[] = [];
    for (const part of output.parts) {
      if (part.kind === 'text') parts.push({ type: 'text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as Text);
      else this.issues.unsupported(part.path, part.what, 'a Chat Completions tool message holds text only');
    }
    return parts.length > 0 ? parts : '';
  }
}


function chatTool(tool: HubTool, issues: Issues): ChatTool {
  issues.opaque(tool.extras);
  if (tool.strict === null) {
    issues.unsupported(tool.path, 'strict null', 'the Responses API then makes the schema strict and Chat Completions does not: set strict to true or false');
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
      return { type: 'allowed_tools', allowed_tools: { mode: choice.mode, tools: choice.names.map((name) => ({ type: 'function', function: { name } })) } };
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
  return { type: 'json_schema', json_schema: { name: name ?? 'response', ...given('description', description), ...given('schema', schema), ...given('strict', strict) } };
}

export const openAIChatConvert: ConvertFacet<OpenAIChatSession> = {
  toHub,
  fromHub,
  toolCount: (session) => session.tools?.length ?? 0,
};
