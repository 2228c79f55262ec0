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
import type { ResponsesSessionLike } from './dialect.js';
import type { OpenAIResponsesSession, ResponsesFunctionTool, ResponsesInputItem } from './schema.js';

/*
 * OpenAI Responses' shape (`"format": "openai-responses"`) ⇄ the hub. docs/converting.md states
 * the rules for users.
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
type Item = ResponsesInputItem;

// ── To the hub ──────────────────────────────────────────────────────────────────────────────────

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

function toHub(session: Readonly<OpenAIResponsesSession>, issues: Issues): HubSession {
  const extras: Opaque[] = [];
  for (const [key, value] of Object.entries(session)) {
    const empty = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
    if (!READ.includes(key) && !empty) extras.push({ path: '', what: key, why: (target) => `an ${target} session has no such setting` });
  }
  if (session.truncation === 'auto') extras.push({ path: '', what: 'truncation "auto"', why: 'Chat Completions fails a request too long for the context, as "disabled" does' });
  const messages: HubMessage[] = [];
  if (typeof session.instructions === 'string') {
    messages.push({ role: 'system', parts: [{ kind: 'text', text: session.instructions, path: 'instructions', extras: [] }], path: 'instructions', extras: [], textForm: 'string' });
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

/** What a response reports about its own items: no message of another shape carries it. */
const BOOKKEEPING = ['id', 'status'];

class ItemReader {
  private readonly out: HubMessage[] = [];
  /** The model turn the next assistant text or call joins; undefined once anything else came. */
  private turn: HubMessage | undefined;
  /** The results message the next output (or the user's next words) joins. */
  private results: HubMessage | undefined;
  /** The calls of the last model turn, while only outputs have followed it. */
  private open = new Set<string>();
  private readonly callNames = new Map<string, string>();
  /** How many item ids, statuses and logprobs were left out. */
  bookkeeping = 0;

  constructor(private readonly issues: Issues) {}

  read(input: OpenAIResponsesSession['input']): HubMessage[] {
    if (typeof input === 'string') return [{ role: 'user', parts: [{ kind: 'text', text: input, path: 'input', extras: [] }], path: 'input', extras: [], textForm: 'string' }];
    input.forEach((item, i) => {
      this.item(item, `input[${i}]`);
    });
    return this.out;
  }

  private item(item: Item, path: string): void {
    const kind = 'role' in item ? 'message' : (item.type ?? 'item_reference');
    if (kind !== 'item_reference') for (const key of BOOKKEEPING) if ((item as Json)[key] !== undefined && (item as Json)[key] !== null) this.bookkeeping++;
    if ('role' in item) {
      const phase = (item as Json).phase;
      const extras: Opaque[] = phase !== undefined && phase !== null ? [{ path, what: 'phase', why: 'Chat Completions has no phase for a message' }] : [];
      if (item.role === 'assistant') this.assistantText(item, path, extras);
      else this.message(item, path, extras);
      return;
    }
    switch (item.type) {
      case 'function_call':
        this.call(item, path);
        return;
      case 'function_call_output':
        this.output(item, path);
        return;
      case 'reasoning':
        // Not a turn's end: the items the model produced after it follow.
        (this.turn ?? this.newTurn(path)).parts.push({ kind: 'opaque', what: 'reasoning', why: "Chat Completions takes no reasoning items (the model's encrypted reasoning) back", path, extras: [] });
        return;
      default:
        this.close();
        this.out.push({ role: 'model', parts: [{ kind: 'opaque', what: kind, why: 'it stands for items kept at OpenAI, which a session of another shape cannot send', path, extras: [] }], path, extras: [] });
    }
  }

  private message(item: Extract<Item, { role: 'user' | 'system' | 'developer' }>, path: string, extras: Opaque[]): void {
    const results = this.results;
    this.close();
    const content = item.content;
    const parts: HubPart[] = typeof content === 'string' ? [{ kind: 'text', text: content, path, extras: [] }] : content.map((part, p) => inputPart(part, `${path}.content[${p}]`));
    const textForm = typeof content === 'string' ? 'string' : 'parts';
    if (item.role === 'user' && results) {
      // The user's words after the outputs: one message with them, as Gemini's shape has it.
      results.parts.push(...parts);
      results.extras.push(...extras);
      results.textForm = textForm;
      return;
    }
    this.out.push({ role: item.role, parts, path, extras, textForm });
  }

  private assistantText(item: Extract<Item, { role: 'assistant' }>, path: string, extras: Opaque[]): void {
    const parts: HubPart[] = [];
    if (typeof item.content === 'string') parts.push({ kind: 'text', text: item.content, path, extras: [] });
    else {
      item.content.forEach((part, p) => {
        const partPath = `${path}.content[${p}]`;
        if (part.type === 'refusal') {
          parts.push({ kind: 'refusal', text: part.refusal, path: partPath, extras: [] });
          return;
        }
        const annotations: Opaque[] = part.annotations.length > 0 ? [{ path: partPath, what: 'annotations', why: 'Chat Completions takes no citations back' }] : [];
        if (part.logprobs !== undefined) this.bookkeeping++;
        parts.push({ kind: 'text', text: part.text, path: partPath, extras: annotations });
      });
    }
    // Text comes before a message's calls: text after a call starts another model message.
    const turn = this.turn && !this.turn.parts.some((part) => part.kind === 'call') ? this.turn : this.newTurn(path);
    turn.extras.push(...extras);
    turn.parts.push(...parts);
  }

  private call(item: Extract<Item, { type: 'function_call' }>, path: string): void {
    const turn = this.turn ?? this.newTurn(path);
    turn.parts.push({ kind: 'call', id: item.call_id, name: item.name, args: { text: item.arguments, path: `${path}.arguments` }, idPath: `${path}.call_id`, path, extras: [] });
    this.callNames.set(item.call_id, item.name);
    this.open.add(item.call_id);
  }

  private output(item: Extract<Item, { type: 'function_call_output' }>, path: string): void {
    this.turn = undefined;
    if (!this.open.has(item.call_id)) {
      this.issues.fail(
        `${path}.call_id`,
        `"${item.call_id}" answers no call of the model turn just before it: in ${this.issues.target} a tool message follows the assistant message whose call it answers (only other tool messages between)`,
      );
    }
    this.open.delete(item.call_id);
    const output: HubOutput =
      typeof item.output === 'string' ? { text: item.output } : { parts: item.output.map((part, p) => inputPart(part as InputPart, `${path}.output[${p}]`) as HubText | HubMedia) };
    const name = this.callNames.get(item.call_id);
    const result: HubPart = { kind: 'result', id: item.call_id, ...(name === undefined ? {} : { name }), output, namePath: `${path}.call_id`, path, extras: [] };
    if (this.results) this.results.parts.push(result);
    else {
      this.results = { role: 'user', parts: [result], path, extras: [] };
      this.out.push(this.results);
    }
  }

  private newTurn(path: string): HubMessage {
    this.open = new Set();
    this.results = undefined;
    const turn: HubMessage = { role: 'model', parts: [], path, extras: [], nullWhenEmpty: true };
    this.out.push(turn);
    this.turn = turn;
    return turn;
  }

  /** Anything but a model item or an output: no later item joins the turn or answers its calls. */
  private close(): void {
    this.turn = undefined;
    this.results = undefined;
    this.open = new Set();
  }
}

type InputPart = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

function inputPart(part: InputPart, path: string): HubPart {
  const breakpoint = part.prompt_cache_breakpoint !== undefined && part.prompt_cache_breakpoint !== null ? { cacheBreakpoint: part.prompt_cache_breakpoint } : {};
  if (part.type === 'input_text') return { kind: 'text', text: part.text, ...breakpoint, path, extras: [] };
  if (part.type === 'input_image') {
    const source = typeof part.image_url === 'string' ? { url: part.image_url } : { fileId: part.file_id ?? null };
    return { kind: 'media', media: 'image', what: 'input_image', ...source, ...given('detail', part.detail ?? undefined), ...breakpoint, path, extras: [] };
  }
  const { file_data, file_id, filename, file_url, detail } = part;
  return {
    kind: 'media',
    media: 'file',
    what: 'input_file',
    ...given('fileData', file_data ?? undefined),
    ...given('fileId', file_id),
    ...given('filename', filename ?? undefined),
    ...given('fileUrl', file_url ?? undefined),
    ...given('detail', detail ?? undefined),
    ...breakpoint,
    path,
    extras: [],
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
    if (tool.type === 'function' && typeof tool.name === 'string' && tool.name !== '' && Object.keys(tool).length === 2) names.push(tool.name);
    else extras.push({ path: `tool_choice.tools[${t}]`, what: 'a tool that is not { "type": "function", "name" }' });
  });
  return { kind: 'allowed', mode: choice.mode, names, what: 'allowed_tools' };
}

function settingsOf(session: Readonly<OpenAIResponsesSession>): HubSettings {
  const at = (what: keyof OpenAIResponsesSession) => (session[what] === undefined ? undefined : { value: session[what] as unknown, path: '', what });
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
    const extras: Opaque[] = text.verbosity !== undefined && text.verbosity !== null ? [{ path: 'text', what: 'verbosity', why: (target) => `an ${target} session has no such setting` }] : [];
    out.responseFormat = { value: text.format === undefined ? undefined : responseFormatOf(text.format), path: 'text', what: 'format', extras } as NonNullable<HubSettings['responseFormat']>;
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
  return { type: 'json_schema', name, ...given('description', description ?? undefined), schema, ...given('strict', strict), schemaPath } as HubResponseFormat;
}

// ── From the hub ────────────────────────────────────────────────────────────────────────────────

/** The Responses API refuses fewer output tokens. */
const MIN_OUTPUT_TOKENS = 16;

const REFUSAL_WHY = 'a Responses refusal is a part of an output message, with the id the API gave it';

const RESPONSES_CALLS: CallRules = {
  idWord: 'call_id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a function_call_output must answer a call of the model turn before it',
  nameRule: 'a function_call_output answers its call by call_id, and the names must agree',
};

function fromHub(hub: HubSession, issues: Issues): OpenAIResponsesSession {
  issues.opaque(hub.extras);
  const input = new ItemWriter(hub, issues).items();
  if (input.length === 0) issues.fail(hub.conversation, 'an openai-responses session needs at least one input item, and nothing is left to convert');
  if (hub.settings.bookkeeping) issues.note(bookkeepingNote(hub.settings.bookkeeping, 'the items of another response'));
  issues.opaque(hub.toolExtras);
  const tools = hub.tools.map((tool) => responsesTool(tool, issues));
  issues.opaque(hub.toolChoiceExtras);
  const toolChoice = hub.toolChoice ? responsesToolChoice(hub.toolChoice.value) : undefined;
  const s = hub.settings;
  issues.opaque(hub.settingExtras);
  for (const setting of [s.seed, s.stop]) {
    if (setting !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what, 'the Responses API has no such setting');
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

type InputContent = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

class ItemWriter {
  private readonly out: Item[] = [];
  private readonly calls: CallLedger;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, RESPONSES_CALLS);
  }

  items(): Item[] {
    for (const message of this.hub.messages) {
      this.issues.opaque(message.extras.filter((extra) => extra.what !== 'name' && extra.what !== 'refusal' && extra.what !== 'audio'));
      for (const extra of message.extras) {
        if (extra.what === 'name') this.issues.unsupported(extra.path, 'name', 'a Responses message has no name');
        else if (extra.what === 'refusal' || extra.what === 'audio') this.issues.unsupported(extra.path, extra.what, REFUSAL_WHY);
      }
      if (message.role === 'model') this.model(message);
      else this.message(message);
    }
    return this.out;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private message(message: HubMessage): void {
    const content: InputContent[] = [];
    for (const part of message.parts) {
      if (part.kind === 'result') {
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, part.path, part.namePath);
        if (answered !== undefined) this.out.push({ type: 'function_call_output', call_id: answered.id, output: this.output(part.output) } as Item);
      } else if (part.kind === 'call') this.unsupportedPart(part, 'a user message cannot call a function');
      else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else {
        const written = this.inputPart(part);
        if (written) content.push(written);
      }
    }
    if (content.length === 0) return;
    const only = content.length === 1 ? content[0] : undefined;
    const plain = only?.type === 'input_text' && only.prompt_cache_breakpoint === undefined && message.textForm !== 'parts';
    this.out.push({ role: message.role === 'model' ? 'assistant' : message.role, content: plain ? only.text : content } as Item);
    this.calls.newTurn();
  }

  private inputPart(part: HubPart): InputContent | undefined {
    if (part.kind === 'text') {
      this.issues.opaque(part.extras);
      return { type: 'input_text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as InputContent;
    }
    if (part.kind !== 'media') {
      this.unsupportedPart(part, part.kind === 'refusal' ? REFUSAL_WHY : undefined);
      return undefined;
    }
    const breakpoint = given('prompt_cache_breakpoint', part.cacheBreakpoint);
    if (part.media === 'image' && (part.url !== undefined || part.fileId !== undefined)) {
      return { type: 'input_image', ...(part.url !== undefined ? { image_url: part.url } : { file_id: part.fileId }), detail: part.detail ?? 'auto', ...breakpoint } as InputContent;
    }
    if (part.media === 'file' && part.data === undefined) {
      return {
        type: 'input_file',
        ...given('file_data', part.fileData),
        ...given('file_id', part.fileId),
        ...given('filename', part.filename),
        ...given('file_url', part.fileUrl),
        ...given('detail', part.detail),
        ...breakpoint,
      } as InputContent;
    }
    this.issues.unsupported(part.path, part.what, part.media === 'audio' ? 'the Responses API takes text, images and files as input' : undefined);
    return undefined;
  }

  private output(output: HubOutput): string | InputContent[] {
    if ('json' in output) return resultText(output.json);
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    const parts = output.parts.flatMap((part) => this.inputPart(part) ?? []);
    return parts.length > 0 ? parts : '';
  }

  private model(message: HubMessage): void {
    const calls: Item[] = [];
    for (const part of message.parts) {
      if (part.kind === 'call') {
        if (calls.length === 0) this.calls.newTurn();
        this.issues.opaque(part.extras);
        const id = this.calls.call(part.id, part.name, part.idPath);
        const args = 'json' in part.args ? JSON.stringify(part.args.json ?? {}) : part.args.text;
        calls.push({ type: 'function_call', call_id: id, name: part.name, arguments: args } as Item);
      } else if (part.kind === 'text') {
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint', "the model's text in a Responses assistant message is a string");
        this.out.push({ role: 'assistant', content: part.text } as Item);
      } else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else this.unsupportedPart(part, part.kind === 'refusal' ? REFUSAL_WHY : part.kind === 'result' ? "a model message cannot hold a function's result" : undefined);
    }
    if (calls.length === 0 && message.parts.some((part) => part.kind === 'text')) this.calls.newTurn();
    this.out.push(...calls);
  }
}


function responsesTool(tool: HubTool, issues: Issues): ResponsesFunctionTool {
  issues.opaque(tool.extras);
  if (tool.parameters === undefined) issues.note(`parameters { "type": "object", "properties": {} } (the Responses API requires them; Chat's omitted parameters are an empty parameter list)`, tool.path);
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

export const openAIResponsesConvert: ConvertFacet<ResponsesSessionLike> = {
  toHub: (session, issues) => toHub(session as unknown as OpenAIResponsesSession, issues),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as ResponsesSessionLike,
  toolCount: (session) => (session as unknown as OpenAIResponsesSession).tools?.length ?? 0,
};
