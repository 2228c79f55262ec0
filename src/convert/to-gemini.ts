import type { ChatContentPart, ChatMessage, ChatTool, OpenAIChatSession } from '../shapes/openai-chat/schema.js';
import type { Content, GeminiSession, GeminiTool, Part } from '../shapes/gemini/schema.js';
import { isRecord } from '../input/json.js';
import { jsonObjectOf, type Issues } from './issues.js';

/*
 * OpenAI Chat Completions (`"format": "openai-chat"`) → Gemini: the reverse of to-openai-chat.ts,
 * so that a Gemini session converted there and back is the same session. The README's "Converting
 * sessions" states the same rules.
 *
 * - The leading "system" and "developer" messages → systemInstruction: each string content is one
 *   text part, each text-part array its parts. A system or developer message after the
 *   conversation has started is unsupported (Gemini has one system instruction).
 * - "user" → a user Content with one text part per text (a string is one part); image_url,
 *   input_audio and file parts are unsupported. A user message right after tool messages joins
 *   their Content (Gemini keeps results and the user's next words in one message).
 * - "assistant" → a model Content: its text parts, then one functionCall part per tool call
 *   (`{ id, name, args }`, args = the parsed `arguments`, which must be a JSON object's text). A
 *   refusal, audio or a name is unsupported.
 * - Consecutive "tool" messages → one user Content of functionResponse parts
 *   (`{ id, name, response }`, the name from the call with that id); `response` is the content
 *   itself when it is the text of a JSON object, else `{ output: content }` (text parts joined).
 * - tools → one tool of functionDeclarations (`{ name, description, parametersJsonSchema }`);
 *   `strict: true` is unsupported (false or null is the default, and left out).
 * - tool_choice → toolConfig.functionCallingConfig: "auto" → AUTO, "none" → NONE, "required" → ANY,
 *   a named function → ANY with allowedFunctionNames [name], allowed_tools → AUTO / ANY ("auto" /
 *   "required") with their names.
 * - temperature → temperature, top_p → topP, max_tokens or max_completion_tokens →
 *   maxOutputTokens, stop → stopSequences (a string becomes one), seed → seed; response_format
 *   text → responseMimeType "text/plain", json_object → "application/json", json_schema →
 *   "application/json" + responseJsonSchema (the schema's name is left out: Gemini has none; a
 *   description or strict: true is unsupported). A null field is the API's default, left out.
 * - Any other field (parallel_tool_calls, reasoning_effort, a message's name, a text part's
 *   cache_control, …) is unsupported.
 * Output keys, in this order: model, systemInstruction, tools, toolConfig, generationConfig,
 * history (no `format`: Gemini's is the default).
 */

type Json = Record<string, unknown>;

/** The session fields converted; any other (parallel_tool_calls, reasoning_effort, …) is unsupported unless null. */
const SESSION_FIELDS: readonly string[] = [
  'format',
  'model',
  'messages',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'response_format',
  'seed',
  'stop',
];

export function openAIChatToGemini(session: OpenAIChatSession, issues: Issues): GeminiSession {
  const { systemParts, history } = new MessageReader(issues).read(session.messages);
  const tools = geminiTools(session.tools, issues);
  const toolConfig = session.tool_choice === undefined ? undefined : toolConfigOf(session.tool_choice, issues);
  const generationConfig = generationConfigOf(session, issues);
  for (const [key, value] of Object.entries(session)) {
    if (!SESSION_FIELDS.includes(key) && value !== undefined && value !== null) issues.unsupported('', key);
  }
  return {
    model: session.model,
    ...(systemParts.length > 0 ? { systemInstruction: { parts: systemParts } } : {}),
    ...(tools ? { tools } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(generationConfig ? { generationConfig } : {}),
    history,
  };
}

// ── Messages ────────────────────────────────────────────────────────────────────────────────────

type Parts = string | readonly ChatContentPart[] | null | undefined;

/** The message fields converted (or, for refusal and audio, checked); any other field, `name` included, is unsupported. */
const MESSAGE_FIELDS: Record<ChatMessage['role'], readonly string[]> = {
  system: ['role', 'content'],
  developer: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'refusal', 'audio', 'tool_calls'],
  tool: ['role', 'content', 'tool_call_id'],
};

class MessageReader {
  private readonly systemParts: Part[] = [];
  private readonly history: Content[] = [];
  private readonly callNames = new Map<string, string>();
  private started = false;
  /** The last Content holds the results of the tool messages just read. */
  private afterTools = false;

  constructor(private readonly issues: Issues) {}

  read(messages: readonly ChatMessage[]): { systemParts: Part[]; history: Content[] } {
    messages.forEach((message, m) => {
      this.message(message, `messages[${m}]`);
    });
    return { systemParts: this.systemParts, history: this.history };
  }

  private message(message: ChatMessage, path: string): void {
    for (const key of Object.keys(message)) {
      if (!MESSAGE_FIELDS[message.role].includes(key) && (message as Json)[key] !== undefined) this.issues.unsupported(path, key);
    }
    switch (message.role) {
      case 'system':
      case 'developer':
        if (this.started) {
          this.issues.unsupported(path, `a "${message.role}" message after the conversation has started`, 'Gemini has one system instruction, before the history');
          return;
        }
        this.systemParts.push(...this.textParts(message.content, path));
        return;
      case 'user': {
        this.started = true;
        const parts = this.textParts(message.content, path);
        if (parts.length > 0) this.addUserParts(parts, this.afterTools);
        this.afterTools = false;
        return;
      }
      case 'assistant':
        this.started = true;
        this.afterTools = false;
        this.assistant(message, path);
        return;
      case 'tool': {
        this.started = true;
        const name = this.callNames.get(message.tool_call_id);
        if (name === undefined) this.issues.fail(`${path}.tool_call_id`, `"${message.tool_call_id}" answers no tool call of an assistant message before it`);
        const part: Part = { functionResponse: { id: message.tool_call_id, name, response: responseOf(joined(message.content)) } };
        this.addUserParts([part], this.afterTools);
        this.afterTools = true;
        return;
      }
    }
  }

  private assistant(message: Extract<ChatMessage, { role: 'assistant' }>, path: string): void {
    if (message.refusal !== undefined && message.refusal !== null) this.issues.unsupported(path, 'refusal');
    if (message.audio !== undefined && message.audio !== null) this.issues.unsupported(path, 'audio');
    const parts = this.textParts(message.content, path);
    message.tool_calls?.forEach((call, c) => {
      const callPath = `${path}.tool_calls[${c}]`;
      const args = argsOf(call.function.arguments, `${callPath}.function.arguments`, this.issues);
      this.callNames.set(call.id, call.function.name);
      parts.push({ functionCall: { id: call.id, name: call.function.name, args } });
    });
    if (parts.length > 0) this.history.push({ role: 'model', parts });
  }

  private addUserParts(parts: Part[], join: boolean): void {
    const last = this.history.at(-1);
    if (join && last?.role === 'user') last.parts.push(...parts);
    else this.history.push({ role: 'user', parts });
  }

  /** Text parts of a message's content; other kinds of part are unsupported. */
  private textParts(content: Parts, path: string): Part[] {
    if (content === undefined || content === null) return [];
    if (typeof content === 'string') return [{ text: content }];
    const parts: Part[] = [];
    content.forEach((part, p) => {
      const partPath = `${path}.content[${p}]`;
      if (part.type !== 'text') {
        this.issues.unsupported(partPath, part.type);
        return;
      }
      for (const key of Object.keys(part)) {
        if (key !== 'type' && key !== 'text' && (part as Json)[key] !== undefined) this.issues.unsupported(partPath, key);
      }
      parts.push({ text: part.text });
    });
    return parts;
  }
}

/** A tool message's text: a string, or its text parts joined. */
function joined(content: string | readonly ChatContentPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The response a tool message's text stands for: the object it is the JSON of, else `{ output: text }`. */
function responseOf(text: string): Json {
  return jsonObjectOf(text) ?? { output: text };
}

function argsOf(text: string, path: string, issues: Issues): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return issues.fail(path, `is not valid JSON (${err instanceof Error ? err.message : String(err)}); a Gemini call's args are a JSON object`);
  }
  if (!isRecord(value)) issues.fail(path, "must be the JSON text of an object: a Gemini call's args are a JSON object");
  return value;
}

// ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

function geminiTools(tools: readonly ChatTool[] | undefined, issues: Issues): GeminiTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  const functionDeclarations = tools.map((tool, t) => {
    const fn = tool.function;
    for (const key of Object.keys(fn)) {
      if (!['name', 'description', 'parameters', 'strict'].includes(key) && (fn as Json)[key] !== undefined) issues.unsupported(`tools[${t}].function`, key);
    }
    if (fn.strict === true) issues.unsupported(`tools[${t}].function`, 'strict', 'Gemini has no strict mode for function parameters');
    return {
      name: fn.name,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      ...(fn.parameters !== undefined ? { parametersJsonSchema: fn.parameters } : {}),
    };
  });
  return [{ functionDeclarations }];
}

type ToolChoice = NonNullable<OpenAIChatSession['tool_choice']>;

function toolConfigOf(choice: ToolChoice, issues: Issues): Json | undefined {
  const config = (mode: string, names?: string[]) => ({ functionCallingConfig: { mode, ...(names ? { allowedFunctionNames: names } : {}) } });
  if (choice === 'auto') return config('AUTO');
  if (choice === 'none') return config('NONE');
  if (choice === 'required') return config('ANY');
  if (choice.type === 'function') return config('ANY', [choice.function.name]);
  const names: string[] = [];
  choice.allowed_tools.tools.forEach((tool, t) => {
    const fn = tool.function;
    if (tool.type === 'function' && isRecord(fn) && typeof fn.name === 'string' && fn.name !== '') names.push(fn.name);
    else issues.unsupported(`tool_choice.allowed_tools.tools[${t}]`, 'a tool that is not { "type": "function", "function": { "name" } }');
  });
  return config(choice.allowed_tools.mode === 'auto' ? 'AUTO' : 'ANY', names);
}

// ── Sampling ────────────────────────────────────────────────────────────────────────────────────

function generationConfigOf(session: OpenAIChatSession, issues: Issues): Json | undefined {
  const out: Json = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) out[key] = value;
  };
  set('temperature', session.temperature);
  set('topP', session.top_p);
  set('maxOutputTokens', session.max_tokens ?? session.max_completion_tokens);
  if (session.max_tokens != null && session.max_completion_tokens != null) {
    issues.unsupported('', 'max_completion_tokens', 'it is given beside max_tokens, and Gemini has one maxOutputTokens');
  }
  const stop = session.stop;
  set('stopSequences', typeof stop === 'string' ? [stop] : stop);
  set('seed', session.seed);
  const format = session.response_format;
  if (format?.type === 'text') out.responseMimeType = 'text/plain';
  else if (format?.type === 'json_object') out.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    const { description, strict, schema } = format.json_schema;
    if (description !== undefined) issues.unsupported('response_format.json_schema', 'description');
    if (strict === true) issues.unsupported('response_format.json_schema', 'strict', 'Gemini has no strict mode for a response schema');
    out.responseMimeType = 'application/json';
    if (schema !== undefined) out.responseJsonSchema = schema;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
