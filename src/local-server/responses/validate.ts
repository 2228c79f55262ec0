import { invalidParam } from '../openai/errors.js';
import { isObject } from '../core/json.js';
import type { JsonObject } from '../core/types.js';
import type { ContentPart, InputItem, MessageRole, ResponsesRequest } from './wire.js';

/**
 * Validation of a Responses API body (`client.responses.create`), naming the field at fault as the
 * real API does (`param: 'input[2].call_id'`), in OpenAI's error JSON (openai/errors.ts). The input
 * items the simulated model reads are checked to the field; settings it does not act on (sampling,
 * tool_choice, reasoning, text, …) are checked for their type and echoed in the Response; fields
 * it does not know are accepted, as the Chat Completions route accepts them.
 */

const ROLES: readonly MessageRole[] = ['assistant', 'system', 'developer', 'user'];
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'];
const PART_TYPES = ['input_text', 'input_image', 'input_file', 'output_text', 'refusal'];

/**
 * What would change the answer and the simulator does not do: a background response, the
 * Conversations API, a stored prompt template. Refused rather than silently ignored.
 */
const NOT_SIMULATED = ['background', 'conversation', 'prompt'];

/** The settings the Response echoes, with the defaults a recorded Response shows (prism-php/prism tests/Fixtures/openai/stream-basic-text-responses-1.json). */
const SETTINGS: Readonly<Record<string, unknown>> = {
  background: false,
  max_output_tokens: null,
  max_tool_calls: null,
  metadata: {},
  parallel_tool_calls: true,
  prompt_cache_key: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: 'auto',
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  top_logprobs: 0,
  top_p: 1,
  truncation: 'disabled',
  user: null,
};

type Kind = 'number' | 'integer' | 'string' | 'boolean' | 'object';

const SETTING_KINDS: Readonly<Record<string, Kind>> = {
  temperature: 'number',
  top_p: 'number',
  max_output_tokens: 'integer',
  max_tool_calls: 'integer',
  top_logprobs: 'integer',
  prompt_cache_key: 'string',
  safety_identifier: 'string',
  user: 'string',
  parallel_tool_calls: 'boolean',
  metadata: 'object',
  reasoning: 'object',
  text: 'object',
};

const IS: Readonly<Record<Kind, (value: unknown) => boolean>> = {
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  string: (value) => typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
  object: isObject,
};

/** A value's type in the API's words: "an integer", "a decimal", "an array", … */
function described(value: unknown): string {
  if (value === null || Array.isArray(value)) return value === null ? 'null' : 'an array';
  if (typeof value !== 'number') return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return Number.isInteger(value) ? 'an integer' : 'a decimal';
}

function fail(path: string, kind: 'missing' | 'type' | 'value', detail = '', value?: unknown): never {
  if (kind === 'missing') throw invalidParam(path, `Missing required parameter: '${path}'.`, 'missing_required_parameter');
  if (kind === 'type')
    throw invalidParam(path, `Invalid type for '${path}': expected ${detail}, but got ${described(value)} instead.`, 'invalid_type');
  throw invalidParam(path, `Invalid value: '${String(value)}'. Supported values are: ${detail}.`, 'invalid_value');
}

/** "'a', 'b', and 'c'" */
const listed = (values: readonly string[]): string =>
  values.map((v, i) => `${i === values.length - 1 && i > 0 ? 'and ' : ''}'${v}'`).join(values.length > 2 ? ', ' : ' ');

function text(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return value === undefined ? fail(path, 'missing') : fail(path, 'type', 'a string', value);
}

/** null or absent: null. */
function optionalText(value: unknown, path: string): string | null {
  return value === undefined || value === null ? null : text(value, path);
}

function oneOf<T extends string>(value: unknown, path: string, supported: readonly T[]): T {
  if (value === undefined) fail(path, 'missing');
  if (!(supported as readonly unknown[]).includes(value)) fail(path, 'value', listed(supported), value);
  return value as T;
}

function content(value: unknown, path: string): string | ContentPart[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    return value === undefined ? fail(path, 'missing') : fail(path, 'type', 'one of a string or array of objects', value);
  return value.map((part: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(part)) fail(at, 'type', 'an object', part);
    const type = oneOf(part.type, `${at}.type`, PART_TYPES);
    if (type === 'input_text' || type === 'output_text') text(part.text, `${at}.text`);
    if (type === 'refusal') text(part.refusal, `${at}.refusal`);
    return part as ContentPart;
  });
}

function validateItem(value: unknown, path: string): InputItem {
  if (!isObject(value)) fail(path, 'type', 'an object', value);
  // EasyInputMessage: a role and content, no type.
  const type = value.type === undefined && value.role !== undefined ? 'message' : oneOf(value.type, `${path}.type`, ITEM_TYPES);
  if (type === 'message') {
    oneOf(value.role, `${path}.role`, ROLES);
    content(value.content, `${path}.content`);
  } else if (type === 'function_call') {
    for (const key of ['call_id', 'name', 'arguments']) text(value[key], `${path}.${key}`);
  } else if (type === 'function_call_output') {
    text(value.call_id, `${path}.call_id`);
    content(value.output, `${path}.output`);
  } else {
    text(value.id, `${path}.id`);
    const summary = value.summary;
    if (!Array.isArray(summary)) fail(`${path}.summary`, summary === undefined ? 'missing' : 'type', 'an array', summary);
    for (const [i, part] of summary.entries()) text(isObject(part) ? part.text : undefined, `${path}.summary[${i}].text`);
    optionalText(value.encrypted_content, `${path}.encrypted_content`);
  }
  return value as InputItem;
}

/** A string is one user message; absent input is allowed only when continuing a stored response. */
function inputOf(value: unknown, continues: boolean): InputItem[] {
  if (typeof value === 'string') return [{ role: 'user', content: value }];
  if (Array.isArray(value)) return value.map((item, i) => validateItem(item, `input[${i}]`));
  if ((value === undefined || value === null) && continues) return [];
  return value === undefined || value === null
    ? fail('input', 'missing')
    : fail('input', 'type', 'one of a string or array of input items', value);
}

function toolsOf(value: unknown): JsonObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('tools', 'type', 'an array', value);
  return value.map((tool: unknown, i) => {
    if (!isObject(tool)) fail(`tools[${i}]`, 'type', 'an object', tool);
    if (text(tool.type, `tools[${i}].type`) === 'function') text(tool.name, `tools[${i}].name`);
    return tool;
  });
}

function flag(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'boolean' ? value : fail(path, 'type', 'a boolean', value);
}

/**
 * `prompt_cache_options` (GPT-5.6 and later): `mode`, as on Chat Completions ("Defaults to
 * `implicit`"), and `comparison_response_id`, the response its cache diagnostics compare with.
 */
function cacheOptionsOf(options: unknown): Pick<ResponsesRequest, 'cacheMode' | 'comparisonResponseId'> {
  if (options === undefined || options === null) return { cacheMode: 'implicit', comparisonResponseId: null };
  if (!isObject(options)) fail('prompt_cache_options', 'type', 'an object', options);
  return {
    cacheMode:
      options.mode === undefined ? 'implicit' : oneOf(options.mode, 'prompt_cache_options.mode', ['implicit', 'explicit'] as const),
    comparisonResponseId: optionalText(options.comparison_response_id, 'prompt_cache_options.comparison_response_id'),
  };
}

function settingsOf(body: JsonObject): JsonObject {
  const settings: JsonObject = {};
  for (const [key, fallback] of Object.entries(SETTINGS)) {
    const value = body[key];
    const kind = SETTING_KINDS[key];
    if (kind && value !== undefined && value !== null && !IS[kind](value))
      fail(key, 'type', kind === 'integer' ? 'an integer' : `a ${kind}`, value);
    settings[key] = value ?? fallback;
  }
  return settings;
}

export function validateResponsesRequest(body: JsonObject): ResponsesRequest {
  const model = text(body.model, 'model');
  for (const key of NOT_SIMULATED) {
    const value = body[key];
    if (value !== undefined && value !== null && value !== false) {
      throw invalidParam(key, `'${key}' is not simulated by the forkpool local server.`, 'unsupported_parameter');
    }
  }
  const previousResponseId = optionalText(body.previous_response_id, 'previous_response_id');
  return {
    model,
    input: inputOf(body.input, previousResponseId !== null),
    instructions: optionalText(body.instructions, 'instructions'),
    tools: toolsOf(body.tools),
    stream: flag(body.stream, 'stream', false),
    store: flag(body.store, 'store', true),
    previousResponseId,
    ...cacheOptionsOf(body.prompt_cache_options),
    settings: settingsOf(body),
  };
}
