import { isRecord } from '../../input/json.js';
import { CallLedger, type CallRules, type Issues, jsonObjectOf, argsObjectOf } from '../convert-issues.js';
import {
  type HubCall,
  type HubMessage,
  type HubPart,
  type HubResult,
  type HubSession,
  type HubSettings,
  type HubTool,
  type HubToolChoice,
  hubCallIds,
  type Opaque,
  partWhat,
} from '../hub.js';
import type { ConvertFacet } from '../shape.js';
import type { Content, GeminiSession, GeminiTool, Part, SystemInstruction } from './schema.js';

/*
 * Gemini's shape ⇄ the hub. docs/converting.md states the rules for users.
 *
 * To the hub: systemInstruction is a leading system message; each Content a message of its parts
 * (text, thought with its thoughtSignature, functionCall, functionResponse with its response
 * object, inlineData); other part kinds, extra fields, tools other than function declarations,
 * calling modes other than AUTO, ANY and NONE and generationConfig keys the hub has no place for
 * travel as opaque items. Declarations' `parameters` (Gemini's own schema) become JSON Schema:
 * type names lowercased, `nullable` folded into `type`. A response schema needs responseMimeType
 * "application/json".
 *
 * From the hub: leading system and developer messages → systemInstruction (one text part per
 * text; one later is unsupported); a user message → a user Content (results as functionResponse
 * parts: a JSON object's text is that object, other text `{ output: text }`), a model message → a
 * model Content (its text, then one functionCall per call: `arguments` must be the JSON text of an
 * object). Tools → one tool of functionDeclarations (`parametersJsonSchema`); a strict schema is
 * unsupported. Tool choice → functionCallingConfig; temperature, topP, topK, the output limit,
 * stop sequences, seed, the response format and a thinking budget → generationConfig. Media,
 * refusals, cache breakpoints, a reasoning effort, parallel_tool_calls and cache options are
 * unsupported; a null setting is the API's default, left out.
 * Output keys, in this order: model, systemInstruction, tools, toolConfig, generationConfig,
 * history (no `format`: Gemini's is the default).
 */

type Json = Record<string, unknown>;

// ── To the hub ──────────────────────────────────────────────────────────────────────────────────

function toHub(session: Readonly<GeminiSession>, issues: Issues): HubSession {
  const messages: HubMessage[] = [];
  if (session.systemInstruction) messages.push(systemMessage(session.systemInstruction));
  session.history.forEach((content, c) => {
    const path = `history[${c}]`;
    messages.push({
      role: content.role === 'model' ? 'model' : 'user',
      parts: content.parts.map((part, p) => readPart(part, `${path}.parts[${p}]`)),
      path,
      extras: extraKeys(content, ['role', 'parts'], path),
    });
  });
  const toolExtras: Opaque[] = [];
  const tools = hubTools(session.tools, toolExtras, issues);
  const toolChoiceExtras: Opaque[] = [];
  const toolChoice = session.toolConfig === undefined ? undefined : toolChoiceOf(session.toolConfig, toolChoiceExtras, issues);
  const settingExtras: Opaque[] = [];
  const settings = settingsOf(session.generationConfig ?? {}, settingExtras, issues);
  return {
    model: session.model,
    messages,
    tools,
    toolExtras,
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: 'toolConfig.functionCallingConfig', what: 'functionCallingConfig' } } : {}),
    toolChoiceExtras,
    settings,
    settingExtras,
    extras: [],
    conversation: 'history',
  };
}

/** The keys of an object beyond `known`, as opaque items at `path`. */
function extraKeys(value: object, known: readonly string[], path: string, why?: Opaque['why']): Opaque[] {
  return Object.entries(value)
    .filter(([key, v]) => !known.includes(key) && v !== undefined)
    .map(([key]) => ({ path, what: key, ...(why === undefined ? {} : { why }) }));
}

function systemMessage(instruction: SystemInstruction): HubMessage {
  return {
    role: 'system',
    parts: instruction.parts.map((part, p) => readPart(part, `systemInstruction.parts[${p}]`)),
    path: 'systemInstruction',
    extras: extraKeys(instruction, ['parts'], 'systemInstruction'),
  };
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function readPart(part: Part, path: string): HubPart {
  const keys = Object.keys(part).filter((key) => part[key] !== undefined);
  const others = (...known: string[]) => keys.filter((key) => !known.includes(key)).map((key) => ({ path, what: key }));
  if (part.thought === true) {
    const signature = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? { signature: part.thoughtSignature } : {};
    return { kind: 'thought', text: typeof part.text === 'string' ? part.text : '', ...signature, path, extras: others('text', 'thought', 'thoughtSignature') };
  }
  if (typeof part.text === 'string') return { kind: 'text', text: part.text, path, extras: others('text') };
  if (part.functionCall) {
    const call = part.functionCall as Json & { id?: string; name: string; args?: Json };
    return {
      kind: 'call',
      ...(call.id ? { id: call.id } : {}),
      name: call.name,
      args: { json: call.args },
      idPath: `${path}.functionCall.id`,
      path,
      extras: [...others('functionCall'), ...extraKeys(call, ['id', 'name', 'args'], `${path}.functionCall`)],
    };
  }
  if (part.functionResponse) {
    const response = part.functionResponse as Json & { id?: string; name: string; response: Json };
    return {
      kind: 'result',
      ...(response.id ? { id: response.id } : {}),
      name: response.name,
      output: { json: response.response },
      namePath: `${path}.functionResponse.name`,
      path,
      extras: [...others('functionResponse'), ...extraKeys(response, ['id', 'name', 'response'], `${path}.functionResponse`)],
    };
  }
  if (isRecord(part.inlineData) && typeof part.inlineData.mimeType === 'string' && typeof part.inlineData.data === 'string') {
    const { mimeType, data } = part.inlineData;
    const media = IMAGE_TYPES.has(mimeType) ? 'image' : mimeType.startsWith('audio/') ? 'audio' : 'file';
    return { kind: 'media', media, what: 'inlineData', mimeType, data, path, extras: others('inlineData') };
  }
  return { kind: 'opaque', what: keys[0] ?? 'an empty part', path, extras: [] };
}

function hubTools(tools: readonly GeminiTool[] | undefined, toolExtras: Opaque[], issues: Issues): HubTool[] {
  const out: HubTool[] = [];
  tools?.forEach((tool, t) => {
    toolExtras.push(...extraKeys(tool, ['functionDeclarations'], `tools[${t}]`, (target) => `only function declarations become ${target} tools`));
    tool.functionDeclarations?.forEach((declaration, d) => {
      out.push(hubTool(declaration as Json & { name: string }, `tools[${t}].functionDeclarations[${d}]`, issues));
    });
  });
  return out;
}

function hubTool(declaration: Json & { name: string }, path: string, issues: Issues): HubTool {
  const extras = extraKeys(declaration, ['name', 'description', 'parametersJsonSchema', 'parameters'], path);
  let parameters: unknown;
  if (declaration.parametersJsonSchema !== undefined) {
    parameters = declaration.parametersJsonSchema;
    if (declaration.parameters !== undefined) extras.push({ path, what: 'parameters', why: 'it is declared beside parametersJsonSchema' });
  } else if (declaration.parameters !== undefined) parameters = jsonSchemaOf(declaration.parameters);
  if (parameters !== undefined && !isRecord(parameters)) issues.fail(path, 'the parameters schema must be a JSON object');
  const description = declaration.description;
  return {
    name: declaration.name,
    ...(typeof description === 'string' ? { description } : {}),
    ...(parameters !== undefined ? { parameters: parameters as Json } : {}),
    path,
    fieldsPath: path,
    extras,
  };
}

/**
 * Gemini's own Schema (OpenAPI-like: `"type": "OBJECT"`, `nullable`) as JSON Schema: type names
 * lowercased (TYPE_UNSPECIFIED left out), `nullable: true` folded into `type`, through
 * `properties`, `items` and `anyOf`. Other keywords are kept as they are.
 */
function jsonSchemaOf(schema: unknown): unknown {
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

/** functionCallingConfig (the one toolConfig field a tool choice can say) as the hub's tool choice. */
function toolChoiceOf(config: Readonly<Json>, extras: Opaque[], issues: Issues): HubToolChoice | undefined {
  extras.push(...extraKeys(config, ['functionCallingConfig'], 'toolConfig'));
  const calling = config.functionCallingConfig;
  if (calling === undefined) return undefined;
  const path = 'toolConfig.functionCallingConfig';
  if (!isRecord(calling)) return issues.fail(path, 'must be a JSON object');
  extras.push(...extraKeys(calling, ['mode', 'allowedFunctionNames'], path));
  const names = calling.allowedFunctionNames;
  if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === 'string' && name !== ''))) {
    issues.fail(`${path}.allowedFunctionNames`, 'must be an array of function names');
  }
  const allowed = names as string[] | undefined;
  const allowedOf = (mode: 'auto' | 'required'): HubToolChoice => ({ kind: 'allowed', mode, names: allowed ?? [], what: 'allowedFunctionNames' });
  switch (calling.mode) {
    case 'AUTO':
      return allowed ? allowedOf('auto') : { kind: 'auto' };
    case 'ANY':
      if (!allowed) return { kind: 'required' };
      return allowed.length === 1 ? { kind: 'function', name: allowed[0] as string } : allowedOf('required');
    case 'NONE':
      if (allowed) extras.push({ path, what: 'allowedFunctionNames', why: 'with mode NONE no function can be called' });
      return { kind: 'none' };
    default:
      extras.push({
        path,
        what: calling.mode === undefined ? 'a functionCallingConfig without a mode' : `mode ${JSON.stringify(calling.mode)}`,
        why: 'the modes that convert are AUTO, ANY (one allowed name: that function) and NONE',
      });
      return undefined;
  }
}

const SETTING_FIELDS = ['temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'seed', 'responseMimeType', 'responseJsonSchema', 'responseSchema', 'thinkingConfig'];

function settingsOf(config: Json, extras: Opaque[], issues: Issues): HubSettings {
  extras.push(...extraKeys(config, SETTING_FIELDS, 'generationConfig'));
  const at = (what: string) => ({ value: config[what], path: 'generationConfig', what });
  const out: HubSettings = {};
  if (config.temperature !== undefined) out.temperature = at('temperature');
  if (config.topP !== undefined) out.topP = at('topP');
  if (config.topK !== undefined) out.topK = at('topK');
  if (config.maxOutputTokens !== undefined) out.maxOutputTokens = { ...at('maxOutputTokens'), countsReasoning: false };
  if (config.stopSequences !== undefined) out.stop = at('stopSequences');
  if (config.seed !== undefined) out.seed = at('seed');
  const format = responseFormatOf(config, extras, issues);
  if (format) out.responseFormat = { value: format, path: 'generationConfig', what: 'responseMimeType' };
  if (config.thinkingConfig !== undefined) out.thinkingBudget = thinkingOf(config.thinkingConfig, issues);
  return out;
}

function responseFormatOf(config: Json, extras: Opaque[], issues: Issues): NonNullable<HubSettings['responseFormat']>['value'] | undefined {
  const mime = config.responseMimeType;
  let schema = config.responseJsonSchema;
  if (config.responseSchema !== undefined) {
    if (schema === undefined) schema = jsonSchemaOf(config.responseSchema);
    else extras.push({ path: 'generationConfig', what: 'responseSchema', why: 'it is given beside responseJsonSchema' });
  }
  const schemaPath = 'generationConfig';
  if (mime === 'application/json') {
    if (schema === undefined) return { type: 'json_object', schemaPath };
    if (!isRecord(schema)) return issues.fail('generationConfig.responseJsonSchema', 'must be a JSON object');
    return { type: 'json_schema', schema, schemaPath };
  }
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) {
      const what = config.responseJsonSchema !== undefined ? 'responseJsonSchema' : 'responseSchema';
      extras.push({ path: 'generationConfig', what, why: 'a response schema needs responseMimeType "application/json"' });
    }
    return mime === undefined ? undefined : { type: 'text', schemaPath };
  }
  extras.push({ path: 'generationConfig', what: `responseMimeType ${JSON.stringify(mime)}`, why: 'the response types that convert are text/plain and application/json' });
  return undefined;
}

function thinkingOf(config: unknown, issues: Issues): NonNullable<HubSettings['thinkingBudget']> {
  const path = 'generationConfig.thinkingConfig';
  if (!isRecord(config)) return issues.fail(path, 'must be a JSON object');
  return { value: config.thinkingBudget, path: 'generationConfig', what: 'thinkingConfig', extras: extraKeys(config, ['thinkingBudget'], path), inner: { path, what: 'thinkingBudget' } };
}

// ── From the hub ────────────────────────────────────────────────────────────────────────────────

const GEMINI_CALLS: CallRules = {
  idWord: 'function call id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a functionResponse must answer a call of the model message before it',
  nameRule: 'a functionResponse names the function it answers',
};

function fromHub(hub: HubSession, issues: Issues): GeminiSession {
  issues.opaque(hub.extras);
  const { systemParts, history } = new HistoryWriter(hub, issues).write();
  const tools = geminiTools(hub.tools, hub.toolExtras, issues);
  issues.opaque(hub.toolChoiceExtras);
  const toolConfig = hub.toolChoice ? toolConfigOf(hub.toolChoice.value) : undefined;
  const generationConfig = generationConfigOf(hub, issues);
  return {
    model: hub.model,
    ...(systemParts.length > 0 ? { systemInstruction: { parts: systemParts } } : {}),
    ...(tools ? { tools } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(generationConfig ? { generationConfig } : {}),
    history,
  } as GeminiSession;
}

class HistoryWriter {
  private readonly systemParts: Part[] = [];
  private readonly history: Content[] = [];
  private readonly calls: CallLedger;
  private started = false;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, GEMINI_CALLS);
  }

  write(): { systemParts: Part[]; history: Content[] } {
    for (const message of this.hub.messages) this.message(message);
    return { systemParts: this.systemParts, history: this.history };
  }

  private message(message: HubMessage): void {
    this.issues.opaque(message.extras);
    if (message.role === 'system' || message.role === 'developer') {
      if (this.started) {
        this.issues.unsupported(message.path, `a "${message.role}" message after the conversation has started`, 'Gemini has one system instruction, before the history');
        return;
      }
      for (const part of message.parts) {
        const text = this.textPart(part, 'a system instruction holds text only');
        if (text) this.systemParts.push(text);
      }
      return;
    }
    this.started = true;
    const parts: Part[] = [];
    if (message.role === 'model') this.calls.newTurn();
    for (const part of message.parts) {
      const written = message.role === 'model' ? this.modelPart(part) : this.userPart(part);
      if (written) parts.push(written);
    }
    if (parts.length > 0) this.history.push({ role: message.role, parts });
  }

  /** A text part; a thought is left out and listed, anything else unsupported. */
  private textPart(part: HubPart, why?: string): Part | undefined {
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    if (part.kind !== 'text') {
      this.unsupportedPart(part, why);
      return undefined;
    }
    this.issues.opaque(part.extras);
    if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
    return { text: part.text };
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private modelPart(part: HubPart): Part | undefined {
    if (part.kind === 'thought') {
      this.issues.opaque(part.extras);
      return { text: part.text, thought: true, ...(part.signature === undefined ? {} : { thoughtSignature: part.signature }) };
    }
    if (part.kind === 'call') return this.call(part);
    if (part.kind === 'result') {
      this.unsupportedPart(part, "a model message cannot hold a function's result");
      return undefined;
    }
    return this.textPart(part);
  }

  private call(part: HubCall): Part {
    this.issues.opaque(part.extras);
    const args = 'json' in part.args ? part.args.json : argsObjectOf(part.args.text, part.args.path, this.issues, "a Gemini call's args are a JSON object");
    const id = this.calls.call(part.id, part.name, part.idPath);
    return { functionCall: { id, name: part.name, ...(args === undefined ? {} : { args }) } };
  }

  private userPart(part: HubPart): Part | undefined {
    if (part.kind === 'result') return this.result(part);
    if (part.kind === 'call') {
      this.unsupportedPart(part, 'a user message cannot call a function');
      return undefined;
    }
    return this.textPart(part);
  }

  private result(part: HubResult): Part | undefined {
    this.issues.opaque(part.extras);
    if (part.name === undefined) this.issues.fail(part.namePath, `"${part.id ?? ''}" answers no tool call of an assistant message before it`);
    const answered = this.calls.answer(part, part.path, part.namePath);
    if (answered === undefined) return undefined;
    return { functionResponse: { id: answered.id, name: answered.name, response: this.responseOf(part) } };
  }

  private responseOf(part: HubResult): Json {
    const output = part.output;
    if ('json' in output) return output.json;
    if ('error' in output) return { error: output.error };
    if ('text' in output) return responseOf(output.text);
    let text = '';
    for (const p of output.parts) {
      if (p.kind === 'text') text += p.text;
      else this.issues.unsupported(p.path, p.what, 'a functionResponse holds a JSON object');
    }
    return responseOf(text);
  }
}

/** The response a tool's text stands for: the object it is the JSON of, else `{ output: text }`. */
function responseOf(text: string): Json {
  return jsonObjectOf(text) ?? { output: text };
}

function geminiTools(tools: readonly HubTool[], toolExtras: readonly Opaque[], issues: Issues): GeminiTool[] | undefined {
  issues.opaque(toolExtras);
  if (tools.length === 0) return undefined;
  const functionDeclarations = tools.map((tool) => {
    issues.opaque(tool.extras);
    if (tool.strict === true) issues.unsupported(tool.fieldsPath, 'strict', 'Gemini has no strict mode for function parameters');
    if (tool.strict === null) issues.unsupported(tool.fieldsPath, 'strict null', 'a null strict is a strict schema there, and Gemini has no strict mode for function parameters');
    return {
      name: tool.name,
      ...(tool.description !== undefined && tool.description !== null ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parametersJsonSchema: tool.parameters } : {}),
    };
  });
  return [{ functionDeclarations }];
}

function toolConfigOf(choice: HubToolChoice): Json {
  const config = (mode: string, names?: string[]) => ({ functionCallingConfig: { mode, ...(names ? { allowedFunctionNames: names } : {}) } });
  switch (choice.kind) {
    case 'auto':
      return config('AUTO');
    case 'none':
      return config('NONE');
    case 'required':
      return config('ANY');
    case 'function':
      return config('ANY', [choice.name]);
    case 'allowed':
      return config(choice.mode === 'auto' ? 'AUTO' : 'ANY', choice.names);
  }
}

function generationConfigOf(hub: HubSession, issues: Issues): Json | undefined {
  issues.opaque(hub.settingExtras);
  const s = hub.settings;
  const out: Json = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) out[key] = value;
  };
  set('temperature', s.temperature?.value);
  set('topP', s.topP?.value);
  set('topK', s.topK?.value);
  set('maxOutputTokens', s.maxOutputTokens?.value);
  const stop = s.stop?.value;
  set('stopSequences', typeof stop === 'string' ? [stop] : stop);
  set('seed', s.seed?.value);
  const format = s.responseFormat;
  if (format) {
    issues.opaque(format.extras);
    const value = format.value;
    if (value?.type === 'text') out.responseMimeType = 'text/plain';
    else if (value?.type === 'json_object') out.responseMimeType = 'application/json';
    else if (value?.type === 'json_schema') {
      if (value.description !== undefined) issues.unsupported(value.schemaPath, 'description');
      if (value.strict === true) issues.unsupported(value.schemaPath, 'strict', 'Gemini has no strict mode for a response schema');
      out.responseMimeType = 'application/json';
      if (value.schema !== undefined) out.responseJsonSchema = value.schema;
    }
  }
  if (s.thinkingBudget) {
    issues.opaque(s.thinkingBudget.extras);
    out.thinkingConfig = s.thinkingBudget.value === undefined ? {} : { thinkingBudget: s.thinkingBudget.value };
  }
  for (const setting of [s.reasoningEffort, s.parallelToolCalls, s.promptCacheOptions, s.promptCacheRetention]) {
    if (setting === undefined) continue;
    issues.opaque(setting.extras);
    if (setting.value !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export const geminiConvert: ConvertFacet<GeminiSession> = {
  toHub,
  fromHub,
  toolCount: (session) => (session.tools ?? []).reduce((n, tool) => n + (tool.functionDeclarations?.length ?? 0), 0),
};
