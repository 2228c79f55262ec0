import { isRecord } from '../../input/json.js';

type Json = Record<string, unknown>;

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
