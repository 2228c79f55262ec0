import type { ChatMessage, ChatTool, ChatToolCall, OpenAIChatSession } from '../shapes/openai-chat/schema.js';
import type { Content, GeminiSession, GeminiTool, Part, SystemInstruction } from '../shapes/gemini/schema.js';
import { CallLedger, callingConfigOf, type CallRules } from './calls.js';
import { isRecord } from '../input/json.js';
import { jsonObjectOf, type Issues } from './issues.js';

/*
 * Gemini → OpenAI Chat Completions (`"format": "openai-chat"`). The README's "Converting sessions"
 * states the same rules.
 *
 * - systemInstruction → one leading "system" message: its one text part as a string, several as
 *   text parts.
 * - A user Content → its functionResponse parts as "tool" messages (one each, in order), then its
 *   text as one "user" message (a string for one text part, text parts for several): the user's
 *   words follow the results even when they came first.
 * - A model Content → one "assistant" message: its text as `content` (string / text parts, left
 *   out when there is none), its functionCall parts as `tool_calls` (text before calls, as the
 *   message's shape has it). Thought parts (`thought: true`) are left out and listed.
 * - A call keeps its id; a call without one gets `call_<n>` (n: its position among the session's
 *   calls, from 0; a suffix when that id is taken). `arguments` = JSON.stringify(args ?? {}).
 * - A functionResponse answers a call of the model message just before (only tool messages may
 *   stand between): the call with its id, else the first unanswered call of its name. The tool
 *   message's content is `response.output` when the response is exactly `{ output: <string> }` and
 *   that string is not itself a JSON object's text, else JSON.stringify(response) — so the way back
 *   (to-gemini.ts) gives the same response.
 * - tools[].functionDeclarations → "function" tools in order (`parameters` from
 *   `parametersJsonSchema`, or from Gemini's `parameters` schema with its type names lowercased and
 *   `nullable` folded into `type`).
 * - toolConfig.functionCallingConfig → tool_choice: AUTO → "auto", NONE → "none", ANY → "required",
 *   ANY with one allowed name → that function, allowed names otherwise → an "allowed_tools" choice
 *   (AUTO → mode "auto", ANY → "required").
 * - generationConfig: temperature → temperature, topP → top_p, maxOutputTokens → max_tokens,
 *   stopSequences → stop, seed → seed; responseMimeType "application/json" with responseJsonSchema
 *   (or Gemini's responseSchema) → response_format json_schema named "response", without a schema
 *   → json_object; "text/plain" → text.
 * - Anything else (inlineData, fileData, executableCode, thoughtSignature, unknown fields,
 *   non-function tools, other modes, other generationConfig keys …) is unsupported: an error naming
 *   its path, or, with dropUnsupported, left out and listed.
 * Output keys, in this order: format, model, messages, tools, tool_choice, temperature, top_p,
 * max_tokens, response_format, seed, stop.
 */

type ToolChoice = NonNullable<OpenAIChatSession['tool_choice']>;
type ResponseFormat = NonNullable<OpenAIChatSession['response_format']>;
type Json = Record<string, unknown>;

export function geminiToOpenAIChat(session: GeminiSession, issues: Issues): OpenAIChatSession {
  const messages: ChatMessage[] = [];
  if (session.systemInstruction) {
    const system = systemMessage(session.systemInstruction, issues);
    if (system) messages.push(system);
  }
  messages.push(...new HistoryWriter(session.history, issues).messages());
  if (messages.length === 0) {
    issues.fail('history', 'an openai-chat session needs at least one message, and nothing is left to convert (no system instruction, no history)');
  }
  const tools = chatTools(session.tools, issues);
  const toolChoice = session.toolConfig === undefined ? undefined : toolChoiceOf(session.toolConfig, issues);
  return {
    format: 'openai-chat',
    model: session.model,
    messages,
    ...(tools ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...samplingOf(session.generationConfig ?? {}, issues),
  };
}

// ── Messages ────────────────────────────────────────────────────────────────────────────────────

type ReadPart =
  | { kind: 'text'; text: string }
  | { kind: 'functionCall'; call: { id?: string; name: string; args?: Json } }
  | { kind: 'functionResponse'; response: { id?: string; name: string; response: Json } };

const PART_FIELDS = { functionCall: ['id', 'name', 'args'], functionResponse: ['id', 'name', 'response'] } as const;

/** A part as one of the kinds Chat Completions has, or undefined when it is left out (listed, or an error). */
function readPart(part: Part, path: string, issues: Issues): ReadPart | undefined {
  if (part.thought === true) {
    issues.drop(path, 'thought');
    return undefined;
  }
  const keys = Object.keys(part).filter((key) => part[key] !== undefined);
  const kind = part.text !== undefined ? 'text' : part.functionCall ? 'functionCall' : part.functionResponse ? 'functionResponse' : undefined;
  if (kind === undefined) {
    issues.unsupported(path, keys[0] ?? 'an empty part');
    return undefined;
  }
  for (const key of keys) if (key !== kind) issues.unsupported(path, key);
  if (kind === 'text') return { kind, text: part.text as string };
  const value = part[kind] as Json;
  for (const key of Object.keys(value)) {
    if (value[key] !== undefined && !(PART_FIELDS[kind] as readonly string[]).includes(key)) issues.unsupported(`${path}.${kind}`, key);
  }
  return kind === 'functionCall'
    ? { kind, call: value as { id?: string; name: string; args?: Json } }
    : { kind, response: value as { id?: string; name: string; response: Json } };
}

/** One text as a string, several as text parts. */
function textContent(texts: readonly string[]): string | { type: 'text'; text: string }[] {
  return texts.length === 1 ? (texts[0] as string) : texts.map((text) => ({ type: 'text' as const, text }));
}

function systemMessage(instruction: SystemInstruction, issues: Issues): ChatMessage | undefined {
  for (const key of Object.keys(instruction)) {
    if (key !== 'parts' && instruction[key] !== undefined) issues.unsupported('systemInstruction', key);
  }
  const texts: string[] = [];
  instruction.parts.forEach((part, p) => {
    const path = `systemInstruction.parts[${p}]`;
    const read = readPart(part, path, issues);
    if (read?.kind === 'text') texts.push(read.text);
    else if (read) issues.unsupported(path, read.kind, 'a system instruction holds text only');
  });
  return texts.length > 0 ? { role: 'system', content: textContent(texts) } : undefined;
}


const CHAT_CALLS: CallRules = {
  target: 'openai-chat',
  idWord: 'tool call id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a tool message must answer a call of the assistant message before it',
  nameRule: "a tool message takes its function's name from the call",
};

class HistoryWriter {
  private readonly out: ChatMessage[] = [];
  /** The calls of the last assistant message, while only tool messages have followed it. */
  private readonly calls: CallLedger;

  constructor(
    private readonly history: readonly Content[],
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(history, issues, CHAT_CALLS);
  }

  messages(): ChatMessage[] {
    this.history.forEach((content, c) => {
      const path = `history[${c}]`;
      for (const key of Object.keys(content)) {
        if (key !== 'role' && key !== 'parts' && content[key] !== undefined) this.issues.unsupported(path, key);
      }
      if (content.role === 'model') this.model(content, path);
      else this.user(content, path);
    });
    return this.out;
  }

  private model(content: Content, path: string): void {
    const texts: string[] = [];
    const calls: ChatToolCall[] = [];
    content.parts.forEach((part, p) => {
      const partPath = `${path}.parts[${p}]`;
      const read = readPart(part, partPath, this.issues);
      if (read?.kind === 'text') texts.push(read.text);
      else if (read?.kind === 'functionCall') {
        // This message's calls are the ones its tool messages may answer.
        if (calls.length === 0) this.calls.newTurn();
        const id = this.calls.call(read.call.id, read.call.name, `${partPath}.functionCall.id`);
        calls.push({ id, type: 'function', function: { name: read.call.name, arguments: JSON.stringify(read.call.args ?? {}) } });
      } else if (read) this.issues.unsupported(partPath, read.kind, "a model message cannot hold a function's result");
    });
    if (texts.length === 0 && calls.length === 0) return; // everything in it was left out (and listed)
    if (calls.length === 0) this.calls.newTurn();
    this.out.push({
      role: 'assistant',
      ...(texts.length > 0 ? { content: textContent(texts) } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
  }

  private user(content: Content, path: string): void {
    const texts: string[] = [];
    content.parts.forEach((part, p) => {
      const partPath = `${path}.parts[${p}]`;
      const read = readPart(part, partPath, this.issues);
      if (read?.kind === 'text') texts.push(read.text);
      else if (read?.kind === 'functionResponse') {
        const id = this.calls.answer(read.response, partPath);
        if (id !== undefined) this.out.push({ role: 'tool', tool_call_id: id, content: toolContent(read.response.response) });
      } else if (read) this.issues.unsupported(partPath, read.kind, 'a user message cannot call a function');
    });
    if (texts.length === 0) return;
    this.out.push({ role: 'user', content: textContent(texts) });
    this.calls.newTurn(); // a tool message cannot follow the user's words
  }
}

/** `response.output` itself when that is all the response holds and reads back as itself; the response as JSON otherwise. */
function toolContent(response: Json): string {
  const output = response.output;
  if (Object.keys(response).length === 1 && typeof output === 'string' && jsonObjectOf(output) === undefined) return output;
  return JSON.stringify(response);
}


// ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

function chatTools(tools: readonly GeminiTool[] | undefined, issues: Issues): ChatTool[] | undefined {
  const out: ChatTool[] = [];
  tools?.forEach((tool, t) => {
    for (const key of Object.keys(tool)) {
      if (key !== 'functionDeclarations' && tool[key] !== undefined) issues.unsupported(`tools[${t}]`, key, 'only function declarations become openai-chat tools');
    }
    tool.functionDeclarations?.forEach((declaration, d) => {
      out.push(chatTool(declaration as Json & { name: string }, `tools[${t}].functionDeclarations[${d}]`, issues));
    });
  });
  return out.length > 0 ? out : undefined;
}

const DECLARATION_FIELDS = ['name', 'description', 'parametersJsonSchema', 'parameters'];

function chatTool(declaration: Json & { name: string }, path: string, issues: Issues): ChatTool {
  for (const key of Object.keys(declaration)) {
    if (!DECLARATION_FIELDS.includes(key) && declaration[key] !== undefined) issues.unsupported(path, key);
  }
  let parameters: unknown;
  if (declaration.parametersJsonSchema !== undefined) {
    parameters = declaration.parametersJsonSchema;
    if (declaration.parameters !== undefined) issues.unsupported(path, 'parameters', 'it is declared beside parametersJsonSchema');
  } else if (declaration.parameters !== undefined) {
    parameters = jsonSchemaOf(declaration.parameters);
  }
  if (parameters !== undefined && !isRecord(parameters)) issues.fail(path, 'the parameters schema must be a JSON object');
  const description = declaration.description;
  return {
    type: 'function',
    function: {
      name: declaration.name,
      ...(typeof description === 'string' ? { description } : {}),
      ...(parameters !== undefined ? { parameters: parameters as Json } : {}),
    },
  };
}

/**
 * Gemini's own Schema (OpenAPI-like: `"type": "OBJECT"`, `nullable`) as JSON Schema: type names
 * lowercased (TYPE_UNSPECIFIED left out), `nullable: true` folded into `type`, through
 * `properties`, `items` and `anyOf`. Other keywords are kept as they are.
 */
export function jsonSchemaOf(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' && typeof value === 'boolean') continue;
    if (key === 'type' && typeof value === 'string') {
      if (value !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
    } else if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, jsonSchemaOf(property)]));
    } else if (key === 'items') out.items = jsonSchemaOf(value);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map(jsonSchemaOf);
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function toolChoiceOf(config: Json, issues: Issues): ToolChoice | undefined {
  const calling = callingConfigOf(config, issues);
  if (calling === undefined) return undefined;
  const { mode, allowed, path } = calling;
  const allowedTools = (choice: 'auto' | 'required'): ToolChoice => ({
    type: 'allowed_tools',
    allowed_tools: { mode: choice, tools: (allowed ?? []).map((name) => ({ type: 'function', function: { name } })) },
  });
  switch (mode) {
    case 'AUTO':
      return allowed ? allowedTools('auto') : 'auto';
    case 'ANY':
      if (!allowed) return 'required';
      return allowed.length === 1 ? { type: 'function', function: { name: allowed[0] as string } } : allowedTools('required');
    case 'NONE':
      if (allowed) issues.unsupported(path, 'allowedFunctionNames', 'with mode NONE no function can be called');
      return 'none';
    default:
      issues.unsupported(
        path,
        mode === undefined ? 'a functionCallingConfig without a mode' : `mode ${JSON.stringify(mode)}`,
        "tool_choice has auto (AUTO), none (NONE), required (ANY) and allowed functions",
      );
      return undefined;
  }
}

// ── Sampling ────────────────────────────────────────────────────────────────────────────────────

const SAMPLING_FIELDS = ['temperature', 'topP', 'maxOutputTokens', 'stopSequences', 'seed', 'responseMimeType', 'responseJsonSchema', 'responseSchema'];

function samplingOf(config: Json, issues: Issues): Partial<OpenAIChatSession> {
  for (const key of Object.keys(config)) {
    if (!SAMPLING_FIELDS.includes(key) && config[key] !== undefined) issues.unsupported('generationConfig', key);
  }
  const out: Json = {};
  if (config.temperature !== undefined) out.temperature = config.temperature;
  if (config.topP !== undefined) out.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) out.max_tokens = config.maxOutputTokens;
  const format = responseFormatOf(config, issues);
  if (format) out.response_format = format;
  if (config.seed !== undefined) out.seed = config.seed;
  if (config.stopSequences !== undefined) out.stop = config.stopSequences;
  return out as Partial<OpenAIChatSession>;
}

function responseFormatOf(config: Json, issues: Issues): ResponseFormat | undefined {
  const mime = config.responseMimeType;
  let schema = config.responseJsonSchema;
  if (config.responseSchema !== undefined) {
    if (schema === undefined) schema = jsonSchemaOf(config.responseSchema);
    else issues.unsupported('generationConfig', 'responseSchema', 'it is given beside responseJsonSchema');
  }
  if (mime === 'application/json') {
    if (schema === undefined) return { type: 'json_object' };
    if (!isRecord(schema)) return issues.fail('generationConfig.responseJsonSchema', 'must be a JSON object');
    return { type: 'json_schema', json_schema: { name: 'response', schema } };
  }
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) {
      issues.unsupported('generationConfig', config.responseJsonSchema !== undefined ? 'responseJsonSchema' : 'responseSchema', 'a response schema needs responseMimeType "application/json"');
    }
    return mime === undefined ? undefined : { type: 'text' };
  }
  issues.unsupported('generationConfig', `responseMimeType ${JSON.stringify(mime)}`, 'response_format takes text/plain and application/json');
  return undefined;
}
