import { isObject } from '../core/json.js';
import { invalid } from './errors.js';
import type { JsonObject, PromptFields, WireContent, WirePart } from '../core/types.js';
import type { GenerateRequest } from './wire.js';

/** Validation of Gemini's request bodies, naming the path of what is wrong as the real API does. */

function rejectUnknown(body: JsonObject, known: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(body)) {
    if (!known.has(key)) {
      throw invalid(`Invalid JSON payload received. Unknown name "${key}"${where}: Cannot find field.`);
    }
  }
}

function optionalObject(body: JsonObject, key: string, path: string): JsonObject | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid(`Invalid value at '${path}': expected an object.`);
  return value;
}

function optionalString(body: JsonObject, key: string, path: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`Invalid value at '${path}' (TYPE_STRING), ${JSON.stringify(value)}`);
  return value;
}

function validatePart(value: unknown, path: string): WirePart {
  if (!isObject(value)) throw invalid(`Invalid value at '${path}': expected a Part object.`);
  if (value.text !== undefined && typeof value.text !== 'string') {
    throw invalid(`Invalid value at '${path}.text' (TYPE_STRING), ${JSON.stringify(value.text)}`);
  }
  const call = value.functionCall;
  if (call !== undefined) {
    if (!isObject(call) || typeof call.name !== 'string' || call.name === '') {
      throw invalid(`* GenerateContentRequest.${path}.function_call.name: Name cannot be empty.`);
    }
    if (call.args !== undefined && !isObject(call.args)) {
      throw invalid(`Invalid value at '${path}.function_call.args' (type.googleapis.com/google.protobuf.Struct)`);
    }
  }
  const response = value.functionResponse;
  if (response !== undefined) {
    if (!isObject(response) || typeof response.name !== 'string' || response.name === '') {
      throw invalid(`* GenerateContentRequest.${path}.function_response.name: Name cannot be empty.`);
    }
    if (response.response !== undefined && !isObject(response.response)) {
      throw invalid(`Invalid value at '${path}.function_response.response' (type.googleapis.com/google.protobuf.Struct)`);
    }
  }
  return value as WirePart;
}

function validateContent(value: unknown, path: string): WireContent {
  if (!isObject(value)) throw invalid(`Invalid value at '${path}': expected a Content object.`);
  const role = value.role;
  if (role !== undefined && role !== '' && role !== 'user' && role !== 'model') {
    throw invalid(`Please use a valid role: user, model. (at '${path}.role': ${JSON.stringify(role)})`);
  }
  const parts = value.parts;
  if (!Array.isArray(parts)) throw invalid(`* GenerateContentRequest.${path}.parts: contents.parts must not be empty.`);
  for (let i = 0; i < parts.length; i++) validatePart(parts[i], `${path}.parts[${i}]`);
  return value as unknown as WireContent;
}

function validateContents(body: JsonObject, required: boolean): WireContent[] {
  const value = body.contents;
  if (value === undefined || value === null) {
    if (required) throw invalid('* GenerateContentRequest.contents: contents is not specified');
    return [];
  }
  if (!Array.isArray(value)) throw invalid(`Invalid value at 'contents': expected an array of Content.`);
  if (required && value.length === 0) throw invalid('* GenerateContentRequest.contents: contents is not specified');
  return value.map((item, i) => validateContent(item, `contents[${i}]`));
}

function validatePromptFields(body: JsonObject, contentsRequired: boolean): PromptFields {
  const fields: PromptFields = { contents: validateContents(body, contentsRequired) };
  if (body.systemInstruction !== undefined && body.systemInstruction !== null) {
    fields.systemInstruction = validateContent(body.systemInstruction, 'system_instruction');
  }
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid(`Invalid value at 'tools': expected an array of Tool.`);
    fields.tools = body.tools.map((tool, i) => {
      if (!isObject(tool)) throw invalid(`Invalid value at 'tools[${i}]': expected a Tool object.`);
      return tool;
    });
  }
  const toolConfig = optionalObject(body, 'toolConfig', 'tool_config');
  if (toolConfig) fields.toolConfig = toolConfig;
  return fields;
}

const GENERATE_FIELDS = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
  'labels',
  'serviceTier',
  'continuationToken',
  'model',
]);

export function validateGenerateRequest(body: JsonObject): GenerateRequest {
  rejectUnknown(body, GENERATE_FIELDS, '');
  const request: GenerateRequest = validatePromptFields(body, true);
  const generationConfig = optionalObject(body, 'generationConfig', 'generation_config');
  if (generationConfig) request.generationConfig = generationConfig;
  const cachedContent = optionalString(body, 'cachedContent', 'cached_content');
  if (cachedContent !== undefined) request.cachedContent = cachedContent;
  return request;
}

/** countTokens takes `{contents}` or `{generateContentRequest: {...}}`. */
export function validateCountTokensRequest(body: JsonObject): GenerateRequest {
  rejectUnknown(body, new Set(['contents', 'generateContentRequest']), '');
  const inner = optionalObject(body, 'generateContentRequest', 'generate_content_request');
  if (inner) return validateGenerateRequest(inner);
  return { contents: validateContents(body, true) };
}

export interface CacheCreateRequest extends PromptFields {
  model: string;
  ttl?: string;
  expireTime?: string;
  displayName?: string;
}

const CACHE_FIELDS = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'ttl', 'expireTime', 'displayName', 'name']);

export function validateCacheCreate(body: JsonObject): CacheCreateRequest {
  rejectUnknown(body, CACHE_FIELDS, " at 'cached_content'");
  const model = optionalString(body, 'model', 'cached_content.model');
  if (!model) throw invalid('* CreateCachedContentRequest.cached_content.model: model is required.');
  const request: CacheCreateRequest = { ...validatePromptFields(body, false), model };
  const ttl = optionalString(body, 'ttl', 'cached_content.ttl');
  if (ttl !== undefined) request.ttl = ttl;
  const expireTime = optionalString(body, 'expireTime', 'cached_content.expire_time');
  if (expireTime !== undefined) request.expireTime = expireTime;
  const displayName = optionalString(body, 'displayName', 'cached_content.display_name');
  if (displayName !== undefined) request.displayName = displayName;
  return request;
}

export interface CacheUpdateRequest {
  ttl?: string;
  expireTime?: string;
}

export function validateCacheUpdate(body: JsonObject): CacheUpdateRequest {
  rejectUnknown(body, new Set(['ttl', 'expireTime', 'name']), " at 'cached_content'");
  const update: CacheUpdateRequest = {};
  const ttl = optionalString(body, 'ttl', 'cached_content.ttl');
  if (ttl !== undefined) update.ttl = ttl;
  const expireTime = optionalString(body, 'expireTime', 'cached_content.expire_time');
  if (expireTime !== undefined) update.expireTime = expireTime;
  if (update.ttl === undefined && update.expireTime === undefined) {
    throw invalid('CachedContent update needs ttl or expireTime.');
  }
  return update;
}

/** `'300s'` / `'1.5s'` → milliseconds. */
export function parseDuration(value: string, path: string): number {
  const match = /^(\d+(?:\.\d{1,9})?)s$/.exec(value);
  if (!match || match[1] === undefined) {
    throw invalid(
      `Invalid value at '${path}' (type.googleapis.com/google.protobuf.Duration), Field '${path}', Illegal duration format; duration must end with 's'`,
    );
  }
  return Math.round(Number(match[1]) * 1000);
}

export function parseTimestamp(value: string, path: string): number {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) {
    throw invalid(`Invalid value at '${path}' (type.googleapis.com/google.protobuf.Timestamp), Field '${path}', Invalid time format`);
  }
  return ms;
}
