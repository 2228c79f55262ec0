import { isRecord } from '../../input/json.js';
import type { Issues } from '../convert-issues.js';
import type { HubMessage, HubSession, HubSettings, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { extraKeys } from './extra-keys.js';
import { jsonSchemaOf } from './json-schema.js';
import { readPart, systemMessage } from './read-part.js';
import type { GeminiSession, GeminiTool } from './schema.js';

/*
 * Gemini's shape → the hub (docs/converting.md states the rules for users).
 *
 * To the hub: systemInstruction is a leading system message; each Content a message of its parts
 * (text, thought with its thoughtSignature, functionCall, functionResponse with its response
 * object, inlineData); other part kinds, extra fields, tools other than function declarations,
 * calling modes other than AUTO, ANY and NONE and generationConfig keys the hub has no place for
 * travel as opaque items. Declarations' `parameters` (Gemini's own schema) become JSON Schema:
 * type names lowercased, `nullable` folded into `type`. A response schema needs responseMimeType
 * "application/json".
 */

type Json = Record<string, unknown>;

export function toHub(session: Readonly<GeminiSession>, issues: Issues): HubSession {
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

function hubTools(tools: readonly GeminiTool[] | undefined, toolExtras: Opaque[], issues: Issues): HubTool[] {
  const out: HubTool[] = [];
  tools?.forEach((tool, t) => {
    toolExtras.push(
      ...extraKeys(tool, ['functionDeclarations'], `tools[${t}]`, (target) => `only function declarations become ${target} tools`),
    );
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
  const allowedOf = (mode: 'auto' | 'required'): HubToolChoice => ({
    kind: 'allowed',
    mode,
    names: allowed ?? [],
    what: 'allowedFunctionNames',
  });
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

const SETTING_FIELDS = [
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'responseMimeType',
  'responseJsonSchema',
  'responseSchema',
  'thinkingConfig',
];

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
  extras.push({
    path: 'generationConfig',
    what: `responseMimeType ${JSON.stringify(mime)}`,
    why: 'the response types that convert are text/plain and application/json',
  });
  return undefined;
}

function thinkingOf(config: unknown, issues: Issues): NonNullable<HubSettings['thinkingBudget']> {
  const path = 'generationConfig.thinkingConfig';
  if (!isRecord(config)) return issues.fail(path, 'must be a JSON object');
  return {
    value: config.thinkingBudget,
    path: 'generationConfig',
    what: 'thinkingConfig',
    extras: extraKeys(config, ['thinkingBudget'], path),
    inner: { path, what: 'thinkingBudget' },
  };
}
