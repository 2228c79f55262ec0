
import { CallLedger, type CallRules, type Issues, argsObjectOf } from '../convert-issues.js';
import {
  type HubMessage,
  type HubOutput,
  type HubPart,
  type HubSession,
  type HubSettings,
  type HubTool,
  type HubToolChoice,
  hubCallIds,
  type Opaque,
  partWhat,
} from '../hub.js';
import type { ConvertFacet } from '../shape.js';
import type { AnthropicSessionLike } from './dialect.js';
import type { AnthropicMessage, AnthropicMessagesSession, AnthropicTool } from './schema.js';

/*
 * Anthropic Messages' shape (`"format": "anthropic-messages"`) ⇄ the hub. docs/converting.md
 * states the rules for users. The way there follows what Qwen Code's own converter sends when it
 * reaches a model through Anthropic's API (QwenLM/qwen-code,
 * packages/core/src/core/anthropicContentGenerator/converter.ts, AnthropicContentConverter, as at
 * commit 05a9c6e43e4eb34b670d6d96602ac0f6cded9f34).
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
 *
 * To the hub: `system` is a leading system message; text, thinking (with its signature), tool_use,
 * tool_result (its text; is_error an error output) and base64 image and document blocks become
 * hub parts; cache_control markers, citations, redacted thinking and other blocks travel as
 * opaque items. max_tokens, stop_sequences, a thinking budget and tool choice become settings.
 */

/** The max_tokens of a session that names none (the Messages API requires one): forkpool's choice. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

type Json = Record<string, unknown>;
type Block = Json & { type: string };

const SAMPLING_REFUSED = 'forkpool refuses sampling fields in Anthropic sessions: the API version it sends answers them with a 400 error';

// ── From the hub ────────────────────────────────────────────────────────────────────────────────

function fromHub(hub: HubSession, issues: Issues): AnthropicMessagesSession {
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
    issues.fail(hub.conversation, 'an anthropic-messages session needs at least one message, and nothing is left to convert (no history, or only parts left out)');
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

const isBlank = (text: string) => text.trim() === '';

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

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const ANTHROPIC_CALLS: CallRules = {
  idWord: 'tool_use id',
  madeStem: 'tool',
  takes: (id) => TOOL_USE_ID.test(id),
  answerRule: 'a tool_result must answer a tool_use of the assistant message before it',
  nameRule: 'a tool_result answers its call by id, and the names must agree',
};

class HistoryWriter {
  private readonly out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  /** The calls of the last assistant turn, while its answers may still come. */
  private readonly calls: CallLedger;

  constructor(hub: HubSession, private readonly issues: Issues) {
    this.calls = new CallLedger(hubCallIds(hub), issues, ANTHROPIC_CALLS);
  }

  messages(messages: readonly HubMessage[]): AnthropicMessage[] {
    for (const message of messages) {
      this.issues.opaque(message.extras);
      if (message.role === 'system' || message.role === 'developer') {
        this.issues.unsupported(message.path, `a "${message.role}" message after the conversation has started`, 'Anthropic takes one system prompt, before the messages');
        continue;
      }
      const role = message.role === 'model' ? 'assistant' : 'user';
      if (role === 'assistant' && this.out.at(-1)?.role !== 'assistant') this.calls.newTurn(); // a new assistant turn: its own calls
      const blocks: Block[] = [];
      for (const part of message.parts) {
        const block = this.block(part, role);
        if (block) blocks.push(block);
      }
      this.push(role, blocks);
    }
    return this.out as AnthropicMessage[];
  }

  /** Blocks join the message before when it has their role (the API reads them as one turn); a user turn's results come first. */
  private push(role: 'user' | 'assistant', blocks: Block[]): void {
    if (blocks.length === 0) return; // everything in it was left out (and listed)
    const last = this.out.at(-1);
    if (last?.role !== role) {
      this.out.push({ role, content: role === 'user' ? resultsFirst(blocks) : blocks });
      return;
    }
    last.content = role === 'user' ? resultsFirst([...last.content, ...blocks]) : [...last.content, ...blocks];
  }

  private block(part: HubPart, role: 'user' | 'assistant'): Block | undefined {
    const path = part.path;
    switch (part.kind) {
      case 'thought':
        if (role !== 'assistant' || part.signature === undefined) {
          this.issues.drop(path, 'thought');
          return undefined;
        }
        this.issues.opaque(part.extras);
        return { type: 'thinking', thinking: part.text, signature: part.signature };
      case 'text':
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) this.issues.unsupported(path, 'prompt_cache_breakpoint');
        if (isBlank(part.text)) {
          this.issues.drop(path, part.text === '' ? 'empty text' : 'whitespace-only text');
          return undefined;
        }
        return { type: 'text', text: part.text };
      case 'call': {
        if (role !== 'assistant') return this.unsupported(path, 'functionCall', 'a user message cannot call a tool');
        this.issues.opaque(part.extras);
        const input = 'json' in part.args ? (part.args.json ?? {}) : argsObjectOf(part.args.text, part.args.path, this.issues, "a tool_use's input is a JSON object");
        const id = this.calls.call(part.id, part.name, part.idPath);
        return { type: 'tool_use', id, name: part.name, input };
      }
      case 'result': {
        if (role !== 'user') return this.unsupported(path, 'functionResponse', "a model message cannot hold a tool's result");
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, path, part.namePath);
        if (answered === undefined) return undefined;
        return { type: 'tool_result', tool_use_id: answered.id, content: this.resultText(part.output), ...('error' in part.output ? { is_error: true } : {}) };
      }
      case 'media':
        this.issues.opaque(part.extras);
        if (part.data !== undefined && part.data !== '' && part.mimeType !== undefined) {
          if (IMAGE_TYPES.has(part.mimeType)) return { type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } };
          if (part.mimeType === 'application/pdf' && role === 'user') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } };
        }
        return this.unsupported(path, part.what, 'Anthropic takes JPEG, PNG, GIF and WebP images, and PDF documents in user messages, as base64 data');
      case 'opaque':
        this.issues.opaque([part]);
        return undefined;
      case 'refusal':
        return this.unsupported(path, 'refusal');
    }
  }

  private unsupported(path: string, what: string, why?: string): undefined {
    this.issues.unsupported(path, what, why);
    return undefined;
  }

  /** A tool_result's content as the reference writes it: the output, else the error, else the response as JSON. */
  private resultText(output: HubOutput): string {
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    if ('parts' in output) {
      let text = '';
      for (const part of output.parts) {
        if (part.kind === 'text') text += part.text;
        else this.issues.unsupported(part.path, part.what, 'a converted tool_result holds text only');
      }
      return text;
    }
    const response = output.json;
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
    return JSON.stringify(response);
  }
}

function resultsFirst(blocks: Block[]): Block[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}

function anthropicTool(tool: HubTool, issues: Issues): AnthropicTool {
  issues.opaque(tool.extras);
  if (tool.strict === true || tool.strict === null) issues.unsupported(tool.fieldsPath, tool.strict === null ? 'strict null' : 'strict', 'forkpool writes no strict Anthropic tools');
  let schema: Json = tool.parameters ?? { type: 'object', properties: {} };
  if (schema.type === undefined) schema = { type: 'object', ...schema };
  else if (schema.type !== 'object') {
    issues.fail(tool.path, `the parameters schema has "type" ${JSON.stringify(schema.type)}: an Anthropic tool's input_schema is an object schema ("type": "object")`);
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
      issues.unsupported(choice.path, value.what, 'tool_choice names one tool ({ "type": "tool" }) or none: all declared tools are allowed');
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
    issues.note(`max_tokens ${DEFAULT_ANTHROPIC_MAX_TOKENS}: the session sets no maxOutputTokens (forkpool's choice; the Messages API requires one)`);
  }
  const thinking = thinkingOf(s.thinkingBudget, issues);
  const stop = s.stop?.value;
  const stops = typeof stop === 'string' ? [stop] : stop;
  return { max_tokens: maxTokens, ...(thinking ? { thinking } : {}), ...(stops !== undefined && stops !== null ? { stop_sequences: stops } : {}) };
}

function thinkingOf(setting: HubSettings['thinkingBudget'], issues: Issues): Json | undefined {
  if (setting === undefined) return undefined;
  issues.opaque(setting.extras);
  const budget = setting.value;
  if (budget === undefined) return undefined;
  if (budget === 0) return { type: 'disabled' };
  if (typeof budget === 'number' && Number.isInteger(budget) && budget >= 1024) return { type: 'enabled', budget_tokens: budget };
  const at = setting.inner ?? setting;
  issues.unsupported(at.path, `${at.what} ${JSON.stringify(budget)}`, 'Anthropic takes a thinking budget of at least 1,024 tokens (or 0: thinking disabled)');
  return undefined;
}

// ── To the hub ──────────────────────────────────────────────────────────────────────────────────

const BLOCK_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  thinking: ['type', 'thinking', 'signature'],
  tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  image: ['type', 'source'],
  document: ['type', 'source'],
};

function toHub(session: Readonly<AnthropicMessagesSession>): HubSession {
  const messages: HubMessage[] = [];
  const system = session.system;
  if (system !== undefined) {
    const blocks: Block[] = typeof system === 'string' ? [{ type: 'text', text: system }] : (system as Block[]);
    messages.push({ role: 'system', parts: blocks.map((block, b) => hubPart(block, typeof system === 'string' ? 'system' : `system[${b}]`, new Map())), path: 'system', extras: [], textForm: 'string' });
  }
  const names = new Map<string, string>();
  (session.messages as AnthropicMessage[]).forEach((message, m) => {
    const path = `messages[${m}]`;
    const content = message.content as string | Block[];
    const parts = typeof content === 'string' ? [hubPart({ type: 'text', text: content }, path, names)] : content.map((block, b) => hubPart(block, `${path}.content[${b}]`, names));
    messages.push({ role: message.role === 'assistant' ? 'model' : 'user', parts, path, extras: [], textForm: typeof content === 'string' ? 'string' : 'parts' });
  });
  const settings: HubSettings = { maxOutputTokens: { value: session.max_tokens, path: '', what: 'max_tokens', countsReasoning: false } };
  if (session.stop_sequences !== undefined) settings.stop = { value: session.stop_sequences, path: '', what: 'stop_sequences' };
  const settingExtras: Opaque[] = [];
  const thinking = session.thinking as Json | undefined;
  if (thinking?.type === 'disabled') settings.thinkingBudget = { value: 0, path: '', what: 'thinking' };
  else if (thinking?.type === 'enabled') settings.thinkingBudget = { value: thinking.budget_tokens, path: '', what: 'thinking' };
  else if (thinking !== undefined) settingExtras.push({ path: 'thinking', what: `thinking ${JSON.stringify(thinking.type)}`, why: 'the thinking that converts is a budget (enabled) or none (disabled)' });
  const toolChoiceExtras: Opaque[] = [];
  const toolChoice = session.tool_choice === undefined ? undefined : hubToolChoice(session.tool_choice as Json, toolChoiceExtras);
  return {
    model: session.model,
    messages,
    tools: ((session.tools ?? []) as AnthropicTool[]).map((tool, t) => hubTool(tool as Json & AnthropicTool, `tools[${t}]`)),
    toolExtras: [],
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: 'tool_choice', what: 'tool_choice' } } : {}),
    toolChoiceExtras,
    settings,
    settingExtras,
    extras: [],
    conversation: 'messages',
  };
}

function extraFields(block: Block, known: readonly string[], path: string): Opaque[] {
  return Object.entries(block)
    .filter(([key, value]) => !known.includes(key) && value !== undefined && value !== null)
    .map(([key]) => ({ path, what: key }));
}

function hubPart(block: Block, path: string, names: Map<string, string>): HubPart {
  const known = BLOCK_FIELDS[block.type];
  if (known === undefined) return { kind: 'opaque', what: `a ${block.type} block`, path, extras: [] };
  const extras = extraFields(block, known, path);
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text as string, path, extras };
    case 'thinking':
      return { kind: 'thought', text: block.thinking as string, signature: block.signature as string, path, extras };
    case 'tool_use':
      names.set(block.id as string, block.name as string);
      return { kind: 'call', id: block.id as string, name: block.name as string, args: { json: block.input as Json }, idPath: `${path}.id`, path, extras };
    case 'tool_result': {
      const id = block.tool_use_id as string;
      const name = names.get(id);
      const content = block.content as string | Block[] | undefined;
      const text = typeof content === 'string' ? content : undefined;
      const parts = Array.isArray(content) ? content.map((inner, i) => hubPart(inner, `${path}.content[${i}]`, names)) : [];
      const output: HubOutput =
        block.is_error === true
          ? { error: text ?? parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') }
          : text !== undefined
            ? { text }
            : { parts: parts.filter((p) => p.kind === 'text' || p.kind === 'media') as never };
      const dropped = parts.filter((p) => p.kind !== 'text' && p.kind !== 'media').map((p) => ({ path: p.path, what: partWhat(p) }));
      return { kind: 'result', id, ...(name === undefined ? {} : { name }), output, namePath: `${path}.tool_use_id`, path, extras: [...extras, ...dropped] };
    }
    default: {
      const source = block.source as Json;
      if (source?.type !== 'base64') return { kind: 'opaque', what: `a ${block.type} block from a ${String(source?.type)} source`, path, extras: [] };
      return { kind: 'media', media: block.type === 'image' ? 'image' : 'file', what: block.type, mimeType: source.media_type as string, data: source.data as string, path, extras };
    }
  }
}

function hubTool(tool: Json & AnthropicTool, path: string): HubTool {
  return {
    name: tool.name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    parameters: tool.input_schema as Json,
    path,
    fieldsPath: path,
    extras: extraFields(tool as Block, ['name', 'description', 'input_schema', 'type'], path),
  };
}

function hubToolChoice(choice: Json, extras: Opaque[]): HubToolChoice {
  if (choice.disable_parallel_tool_use !== undefined) extras.push({ path: 'tool_choice', what: 'disable_parallel_tool_use' });
  switch (choice.type) {
    case 'any':
      return { kind: 'required' };
    case 'tool':
      return { kind: 'function', name: choice.name as string };
    case 'none':
      return { kind: 'none' };
    default:
      return { kind: 'auto' };
  }
}

export const anthropicMessagesConvert: ConvertFacet<AnthropicSessionLike> = {
  toHub: (session) => toHub(session as unknown as AnthropicMessagesSession),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as AnthropicSessionLike,
  toolCount: (session) => (session as unknown as AnthropicMessagesSession).tools?.length ?? 0,
};
