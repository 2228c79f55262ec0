import { isRecord } from '../../input/json.js';
import type { HubMessage, HubPart } from '../hub.js';
import { extraKeys } from './extra-keys.js';
import type { Part, SystemInstruction } from './schema.js';

type Json = Record<string, unknown>;

/** systemInstruction as the leading system message. */
export function systemMessage(instruction: SystemInstruction): HubMessage {
  return {
    role: 'system',
    parts: instruction.parts.map((part, p) => readPart(part, `systemInstruction.parts[${p}]`)),
    path: 'systemInstruction',
    extras: extraKeys(instruction, ['parts'], 'systemInstruction'),
  };
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** One part as the hub's: text, thought, call, result, inline media, else opaque (to-hub.ts states the rules). */
export function readPart(part: Part, path: string): HubPart {
  const keys = Object.keys(part).filter((key) => part[key] !== undefined);
  const others = (...known: string[]) => keys.filter((key) => !known.includes(key)).map((key) => ({ path, what: key }));
  if (part.thought === true) {
    const signature = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? { signature: part.thoughtSignature } : {};
    return {
      kind: 'thought',
      text: typeof part.text === 'string' ? part.text : '',
      ...signature,
      path,
      extras: others('text', 'thought', 'thoughtSignature'),
    };
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
