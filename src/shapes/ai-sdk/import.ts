import { InputError } from '../../input/errors.js';
import { isRecord } from '../../input/json.js';
import { withoutNullFields } from '../api-fields.js';
import type { DroppedRecord, RequestClaim, RequestIntake, RequestRead } from '../intake.js';
import { AI_SDK_SESSION_KEYS } from './schema.js';

/*
 * The settings of an AI SDK call as a log records them (`generateText` / `streamText`: `{ model,
 * system?, messages, tools?, toolChoice?, providerOptions?, maxOutputTokens?, … }`, the model as its
 * id and each tool as { description, inputSchema }), read as a session in the AI SDK's shape
 * ("format": "ai-sdk"). The fields a session holds are kept as they are, in their order; null
 * fields are absent, and the call's other settings (`maxRetries`, `headers`, `abortSignal`, a
 * `prompt`, …) are left out and listed. An object with "messages" fits; a content part of a kind
 * only the AI SDK has (tool-call, tool-result, reasoning, tool approvals), its camelCase settings or
 * tools as an object by name are distinctive; a role or part type it has not is foreign.
 */

export const aiSdkIntake: RequestIntake = {
  claim,
  read: readAiSdk,
  looks: 'an AI SDK call { "model", "messages", … }',
  defaultModel: 'gpt-4.1-mini',
};

const KEPT = new Set(AI_SDK_SESSION_KEYS.filter((key) => key !== 'format'));
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const PART_TYPES = new Set([
  'text',
  'image',
  'file',
  'reasoning',
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'tool-approval-response',
]);
const OWN_PART_TYPES = new Set(['reasoning', 'tool-call', 'tool-result', 'tool-approval-request', 'tool-approval-response']);
const OWN_FIELDS = [
  'toolChoice',
  'providerOptions',
  'maxOutputTokens',
  'topP',
  'topK',
  'stopSequences',
  'presencePenalty',
  'frequencyPenalty',
];

function claim(json: unknown): RequestClaim | undefined {
  if (!isRecord(json) || !Array.isArray(json.messages)) return undefined;
  let distinctive = OWN_FIELDS.some((key) => key in json) || (isRecord(json.tools) && !Array.isArray(json.tools));
  let foreign = false;
  for (const message of json.messages) {
    if (!isRecord(message)) continue;
    if (!ROLES.has(message.role as string)) foreign = true;
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isRecord(part)) continue;
      if (OWN_PART_TYPES.has(part.type as string)) distinctive = true;
      else if (!PART_TYPES.has(part.type as string)) foreign = true;
    }
  }
  return { distinctive, foreign };
}

function readAiSdk(json: unknown, file: string | undefined): RequestRead {
  const at = file === undefined ? {} : { file };
  if (!isRecord(json)) throw new InputError({ ...at, rule: 'an AI SDK call is a JSON object ({ "model", "messages", … })' });
  const dropped: DroppedRecord[] = [];
  const session: Record<string, unknown> = { format: 'ai-sdk' };
  for (const [key, value] of Object.entries(withoutNullFields(json, dropped))) {
    if (key === 'format') continue;
    if (KEPT.has(key)) session[key] = value;
    else dropped.push({ path: key, what: 'a call setting', reason: 'not a field a session holds' });
  }
  const messages = session.messages;
  if (!Array.isArray(messages)) throw new InputError({ ...at, path: 'messages', rule: 'must be an array of messages' });
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    kind: 'an AI SDK call',
    ...(model ? { model } : {}),
    dropped,
    origins: messages.map((_, i) => ({ path: `messages[${i}]`, exact: true })),
    notes: [],
  };
}
