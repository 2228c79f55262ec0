import type { Issues } from '../convert-issues.js';
import type { HubSession, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { HistoryWriter } from './history-writer.js';
import type { GeminiSession, GeminiTool } from './schema.js';

/*
 * The hub → Gemini's shape (docs/converting.md states the rules for users).
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

export function fromHub(hub: HubSession, issues: Issues): GeminiSession {
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

function geminiTools(tools: readonly HubTool[], toolExtras: readonly Opaque[], issues: Issues): GeminiTool[] | undefined {
  issues.opaque(toolExtras);
  if (tools.length === 0) return undefined;
  const functionDeclarations = tools.map((tool) => {
    issues.opaque(tool.extras);
    if (tool.strict === true) issues.unsupported(tool.fieldsPath, 'strict', 'Gemini has no strict mode for function parameters');
    if (tool.strict === null)
      issues.unsupported(
        tool.fieldsPath,
        'strict null',
        'a null strict is a strict schema there, and Gemini has no strict mode for function parameters',
      );
    return {
      name: tool.name,
      ...(tool.description !== undefined && tool.description !== null ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parametersJsonSchema: tool.parameters } : {}),
    };
  });
  return [{ functionDeclarations }];
}

function toolConfigOf(choice: HubToolChoice): Json {
  const config = (mode: string, names?: string[]) => ({
    functionCallingConfig: { mode, ...(names ? { allowedFunctionNames: names } : {}) },
  });
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
