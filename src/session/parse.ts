import { InputError } from '../input/errors.js';
import { parseOrThrow } from '../input/issues.js';
import { assertSafeJson } from '../input/json.js';
import { parseAiSdkSession } from '../shapes/ai-sdk/schema.js';
import { parseAnthropicMessagesSession } from '../shapes/anthropic-messages/schema.js';
import { parseOpenAIChatSession } from '../shapes/openai-chat/schema.js';
import { parseOpenAIResponsesSession } from '../shapes/openai-responses/schema.js';
import { GeminiSessionSchema, type ParentSession } from './schema.js';

/**
 * Validates an already-parsed session object (from a file or from code) and returns that same
 * object. zod rebuilds the keys it knows in schema order, and a fork must send the parent's
 * objects in the parent's own key order (byte fidelity), so the parsed copy is thrown away.
 */
export function parseSession(json: unknown, source?: string): ParentSession {
  const at = source === undefined ? {} : { file: source };
  assertSafeJson(json, at);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError({ ...at, rule: 'a session must be a JSON object ({ "model", "history", … })' });
  }
  const format = (json as { format?: unknown }).format;
  if (format === 'openai-chat') return parseOpenAIChatSession(json, source);
  if (format === 'openai-responses') return parseOpenAIResponsesSession(json, source);
  if (format === 'anthropic-messages') return parseAnthropicMessagesSession(json, source);
  if (format === 'ai-sdk') return parseAiSdkSession(json, source);
  if (format !== undefined && format !== 'gemini') {
    throw new InputError({
      ...at,
      path: 'format',
      rule: `must be "gemini" (the default), "openai-chat", "openai-responses", "anthropic-messages" or "ai-sdk", not ${JSON.stringify(format)}`,
    });
  }
  parseOrThrow(GeminiSessionSchema, json, at);
  return json as ParentSession;
}
