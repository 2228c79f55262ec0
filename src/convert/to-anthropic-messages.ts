import type { AnthropicContentBlock, AnthropicMessage, AnthropicMessagesSession, AnthropicTool } from '../shapes/anthropic-messages/schema.js';
import type { Content, GeminiSession, GeminiTool, Part, SystemInstruction } from '../shapes/gemini/schema.js';
import { isRecord } from '../input/json.js';
import type { Issues } from './issues.js';
import { jsonSchemaOf } from './to-openai-chat.js';
import { CallLedger, callingConfigOf, type CallRules } from './calls.js';

/*
 * Gemini → Anthropic Messages (`"format": "anthropic-messages"`), after what Qwen Code's own
 * converter sends when it reaches a model through Anthropic's API (QwenLM/qwen-code,
 * packages/core/src/core/anthropicContentGenerator/converter.ts, AnthropicContentConverter, as at
 * commit 05a9c6e43e4eb34b670d6d96602ac0f6cded9f34). The README's "Converting sessions" states the
 * same rules.
 *
 * - systemInstruction → `system`: its text parts joined with "\n" (as the reference does), one
 *   string; left out when that is empty. (The reference adds a cache_control marker: forkpool
 *   places its own breakpoints.)
 * - A model Content → an "assistant" message, a user Content → a "user" message; consecutive
 *   messages of one role are merged into one, as the API reads them as one turn, and a user turn
 *   holds its tool_result blocks first (the API refuses text ahead of them; the user's words then
 *   follow the results even when they came first).
 * - text → a text block. Empty and whitespace-only text is left out and listed (the reference
 *   leaves out empty text; Anthropic's API refuses both as a message's only text).
 * - A thought part (`thought: true`) of a model Content with a `thoughtSignature` → a thinking
 *   block `{ thinking, signature }`, as the reference sends it. One without a signature, or in a
 *   user Content, is left out and listed: the API takes no thinking block without its signature
 *   (the reference sends one only to DeepSeek, which takes an empty signature). A signature is
 *   only valid for the provider that made it: a Gemini model's thoughtSignature sent to Anthropic
 *   is refused by the API, so convert such a session with its thought parts left out.
 * - functionCall → tool_use `{ id, name, input: args ?? {} }`. A call keeps its id when the API
 *   takes it (`^[a-zA-Z0-9_-]+$`); another gets `tool_<n>` (n: its place among the session's calls,
 *   from 0, as the reference numbers them; a suffix when that id is taken).
 * - functionResponse → tool_result answering a call of the assistant turn just before (the call
 *   with its id, else the first unanswered call of its name), its `content` as the reference
 *   writes it: `response.output` when that is a string, else `response.error` when that is a
 *   string, else the response as JSON.
 * - inlineData: a JPEG, PNG, GIF or WebP image → an image block (base64); a PDF in a user message
 *   → a document block, as the reference sends them.
 * - tools[].functionDeclarations → tools `{ name, description?, input_schema }`: from
 *   `parametersJsonSchema`, or Gemini's `parameters` as JSON Schema (as to-openai-chat.ts reads
 *   it), or `{ "type": "object", "properties": {} }` when a declaration has neither (the
 *   reference's default); a schema without `type` gets `"type": "object"`.
 * - toolConfig.functionCallingConfig → tool_choice: AUTO → auto, ANY → any (one allowed name →
 *   that tool), NONE → none.
 * - generationConfig: maxOutputTokens → max_tokens (required by the API: 8,192 when the session
 *   gives none, forkpool's default, and the result says so), stopSequences → stop_sequences,
 *   thinkingConfig.thinkingBudget → thinking (0 → disabled, 1,024 or more → enabled with that
 *   budget).
 * - Anything else (temperature, topP and topK, which forkpool refuses for Anthropic sessions; other
 *   parts, fields and settings) is unsupported: an error naming its path, or, with
 *   dropUnsupported, left out and listed.
 * Output keys, in this order: format, model, system, tools, tool_choice, messages, max_tokens,
 * thinking, stop_sequences.
 */

/** The max_tokens of a session that names none (the Messages API requires one): forkpool's choice. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

type Json = Record<string, unknown>;
type Block = AnthropicContentBlock & Json;
type ToolChoice = NonNullable<AnthropicMessagesSession['tool_choice']>;

const SAMPLING_REFUSED = 'forkpool refuses sampling fields in Anthropic sessions: the API version it sends answers them with a 400 error';

export function geminiToAnthropicMessages(session: GeminiSession, issues: Issues): AnthropicMessagesSession {
  const system = session.systemInstruction ? systemOf(session.systemInstruction, issues) : undefined;
  const tools = anthropicTools(session.tools, issues);
  const toolChoice = session.toolConfig === undefined ? undefined : toolChoiceOf(session.toolConfig, issues);
  const messages = new HistoryWriter(session.history, issues).messages();
  if (messages.length === 0) {
    issues.fail('history', 'an anthropic-messages session needs at least one message, and nothing is left to convert (no history, or only parts left out)');
  }
  const settings = settingsOf(session.generationConfig ?? {}, issues);
  return {
    format: 'anthropic-messages',
    model: session.model,
    ...(system !== undefined ? { system } : {}),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    messages,
    ...settings,
  };
}

// ── System and messages ─────────────────────────────────────────────────────────────────────────

const isBlank = (text: string) => text.trim() === '';

function systemOf(instruction: SystemInstruction, issues: Issues): string | undefined {
  for (const key of Object.keys(instruction)) {
    if (key !== 'parts' && instruction[key] !== undefined) issues.unsupported('systemInstruction', key);
  }
  const texts: string[] = [];
  instruction.parts.forEach((part, p) => {
    const path = `systemInstruction.parts[${p}]`;
    const keys = Object.keys(part).filter((key) => part[key] !== undefined);
    if (part.thought === true) issues.drop(path, 'thought');
    else if (typeof part.text !== 'string') issues.unsupported(path, keys[0] ?? 'an empty part', 'a system prompt holds text only');
    else {
      for (const key of keys) if (key !== 'text') issues.unsupported(path, key);
      if (part.text !== '') texts.push(part.text);
    }
  });
  const text = texts.join('\n');
  if (text === '') return undefined;
  if (isBlank(text)) {
    issues.drop('systemInstruction', 'a whitespace-only system instruction');
    return undefined;
  }
  return text;
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const PART_FIELDS = { functionCall: ['id', 'name', 'args'], functionResponse: ['id', 'name', 'response'] } as const;

const ANTHROPIC_CALLS: CallRules = {
  target: 'anthropic-messages',
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

  constructor(
    private readonly history: readonly Content[],
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(history, issues, ANTHROPIC_CALLS);
  }

  messages(): AnthropicMessage[] {
    this.history.forEach((content, c) => {
      const path = `history[${c}]`;
      for (const key of Object.keys(content)) {
        if (key !== 'role' && key !== 'parts' && content[key] !== undefined) this.issues.unsupported(path, key);
      }
      const role = content.role === 'model' ? 'assistant' : 'user';
      if (role === 'assistant' && this.out.at(-1)?.role !== 'assistant') this.calls.newTurn(); // a new assistant turn: its own calls
      const blocks: Block[] = [];
      content.parts.forEach((part, p) => {
        const block = this.block(part, role, `${path}.parts[${p}]`);
        if (block) blocks.push(block);
      });
      this.push(role, blocks);
    });
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

  private block(part: Part, role: 'user' | 'assistant', path: string): Block | undefined {
    const keys = Object.keys(part).filter((key) => part[key] !== undefined);
    const only = (...allowed: string[]) => {
      for (const key of keys) if (!allowed.includes(key)) this.issues.unsupported(path, key);
    };
    if (part.thought === true) {
      const signature = part.thoughtSignature;
      if (role !== 'assistant' || typeof signature !== 'string' || signature === '') {
        this.issues.drop(path, 'thought');
        return undefined;
      }
      only('text', 'thought', 'thoughtSignature');
      return { type: 'thinking', thinking: typeof part.text === 'string' ? part.text : '', signature };
    }
    if (typeof part.text === 'string') {
      only('text');
      if (isBlank(part.text)) {
        this.issues.drop(path, part.text === '' ? 'empty text' : 'whitespace-only text');
        return undefined;
      }
      return { type: 'text', text: part.text };
    }
    if (part.functionCall) {
      only('functionCall');
      if (role !== 'assistant') return this.unsupported(path, 'functionCall', 'a user message cannot call a tool');
      const call = part.functionCall as Json & { id?: string; name: string; args?: Json };
      this.extraFields(call, 'functionCall', path);
      const id = this.calls.call(call.id, call.name, `${path}.functionCall.id`);
      return { type: 'tool_use', id, name: call.name, input: call.args ?? {} };
    }
    if (part.functionResponse) {
      only('functionResponse');
      if (role !== 'user') return this.unsupported(path, 'functionResponse', "a model message cannot hold a tool's result");
      const response = part.functionResponse as Json & { id?: string; name: string; response?: unknown };
      this.extraFields(response, 'functionResponse', path);
      const id = this.calls.answer(response, path);
      return id === undefined ? undefined : { type: 'tool_result', tool_use_id: id, content: resultText(response.response) };
    }
    if (isRecord(part.inlineData)) {
      only('inlineData');
      const { mimeType, data } = part.inlineData;
      if (typeof mimeType === 'string' && typeof data === 'string' && data !== '') {
        if (IMAGE_TYPES.has(mimeType)) return { type: 'image', source: { type: 'base64', media_type: mimeType, data } } as Block;
        if (mimeType === 'application/pdf' && role === 'user') {
          return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } } as Block;
        }
      }
      return this.unsupported(path, 'inlineData', 'Anthropic takes JPEG, PNG, GIF and WebP images, and PDF documents in user messages');
    }
    return this.unsupported(path, keys[0] ?? 'an empty part');
  }

  private unsupported(path: string, what: string, why?: string): undefined {
    this.issues.unsupported(path, what, why);
    return undefined;
  }

  private extraFields(value: Json, kind: keyof typeof PART_FIELDS, path: string): void {
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined && !(PART_FIELDS[kind] as readonly string[]).includes(key)) this.issues.unsupported(`${path}.${kind}`, key);
    }
  }
}

function resultsFirst(blocks: Block[]): Block[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}

/** A tool_result's content as the reference writes it: the output, else the error, else the response as JSON. */
function resultText(response: unknown): string {
  if (response === undefined || response === null) return '';
  if (typeof response === 'string') return response;
  if (isRecord(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
  }
  return JSON.stringify(response);
}

// ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

const DECLARATION_FIELDS = ['name', 'description', 'parametersJsonSchema', 'parameters'];

function anthropicTools(tools: readonly GeminiTool[] | undefined, issues: Issues): AnthropicTool[] | undefined {
  const out: AnthropicTool[] = [];
  tools?.forEach((tool, t) => {
    for (const key of Object.keys(tool)) {
      if (key !== 'functionDeclarations' && tool[key] !== undefined) issues.unsupported(`tools[${t}]`, key, 'only function declarations become anthropic-messages tools');
    }
    tool.functionDeclarations?.forEach((declaration, d) => {
      out.push(anthropicTool(declaration as Json & { name: string }, `tools[${t}].functionDeclarations[${d}]`, issues));
    });
  });
  return out.length > 0 ? out : undefined;
}

function anthropicTool(declaration: Json & { name: string }, path: string, issues: Issues): AnthropicTool {
  for (const key of Object.keys(declaration)) {
    if (!DECLARATION_FIELDS.includes(key) && declaration[key] !== undefined) issues.unsupported(path, key);
  }
  let schema: unknown = { type: 'object', properties: {} };
  if (declaration.parametersJsonSchema !== undefined) {
    schema = declaration.parametersJsonSchema;
    if (declaration.parameters !== undefined) issues.unsupported(path, 'parameters', 'it is declared beside parametersJsonSchema');
  } else if (declaration.parameters !== undefined) schema = jsonSchemaOf(declaration.parameters);
  if (!isRecord(schema)) return issues.fail(path, 'the parameters schema must be a JSON object');
  if (schema.type === undefined) schema = { type: 'object', ...schema };
  else if (schema.type !== 'object') {
    issues.fail(path, `the parameters schema has "type" ${JSON.stringify(schema.type)}: an Anthropic tool's input_schema is an object schema ("type": "object")`);
  }
  const description = declaration.description;
  return {
    name: declaration.name,
    ...(typeof description === 'string' ? { description } : {}),
    input_schema: schema as AnthropicTool['input_schema'],
  };
}

function toolChoiceOf(config: Json, issues: Issues): ToolChoice | undefined {
  const calling = callingConfigOf(config, issues);
  if (calling === undefined) return undefined;
  const { mode, allowed, path } = calling;
  if (allowed !== undefined && !(mode === 'ANY' && allowed.length === 1)) {
    issues.unsupported(path, 'allowedFunctionNames', 'tool_choice names one tool ({ "type": "tool" }) or none: all declared tools are allowed');
  }
  switch (mode) {
    case 'AUTO':
      return { type: 'auto' };
    case 'ANY':
      return allowed?.length === 1 ? { type: 'tool', name: allowed[0] as string } : { type: 'any' };
    case 'NONE':
      return { type: 'none' };
    default:
      issues.unsupported(
        path,
        mode === undefined ? 'a functionCallingConfig without a mode' : `mode ${JSON.stringify(mode)}`,
        'tool_choice has auto (AUTO), any (ANY), a named tool (ANY with one allowed name) and none (NONE)',
      );
      return undefined;
  }
}

// ── Settings ────────────────────────────────────────────────────────────────────────────────────

const SETTINGS = ['maxOutputTokens', 'stopSequences', 'thinkingConfig'];

function settingsOf(config: Json, issues: Issues): Pick<AnthropicMessagesSession, 'max_tokens' | 'thinking' | 'stop_sequences'> {
  for (const key of Object.keys(config)) {
    if (SETTINGS.includes(key) || config[key] === undefined) continue;
    const sampling = key === 'temperature' || key === 'topP' || key === 'topK';
    issues.unsupported('generationConfig', key, sampling ? SAMPLING_REFUSED : undefined);
  }
  let maxTokens = config.maxOutputTokens as number | undefined;
  if (maxTokens === undefined) {
    maxTokens = DEFAULT_ANTHROPIC_MAX_TOKENS;
    issues.note(`max_tokens ${DEFAULT_ANTHROPIC_MAX_TOKENS}: the session sets no maxOutputTokens (forkpool's choice; the Messages API requires one)`);
  }
  const thinking = thinkingOf(config.thinkingConfig, issues);
  const stop = config.stopSequences as string[] | undefined;
  return { max_tokens: maxTokens, ...(thinking ? { thinking } : {}), ...(stop !== undefined ? { stop_sequences: stop } : {}) };
}

function thinkingOf(config: unknown, issues: Issues): AnthropicMessagesSession['thinking'] {
  if (config === undefined) return undefined;
  const path = 'generationConfig.thinkingConfig';
  if (!isRecord(config)) return issues.fail(path, 'must be a JSON object');
  for (const key of Object.keys(config)) {
    if (key !== 'thinkingBudget' && config[key] !== undefined) issues.unsupported(path, key);
  }
  const budget = config.thinkingBudget;
  if (budget === undefined) return undefined;
  if (budget === 0) return { type: 'disabled' };
  if (typeof budget === 'number' && Number.isInteger(budget) && budget >= 1024) return { type: 'enabled', budget_tokens: budget };
  issues.unsupported(path, `thinkingBudget ${JSON.stringify(budget)}`, 'Anthropic takes a thinking budget of at least 1,024 tokens (or 0: thinking disabled)');
  return undefined;
}
