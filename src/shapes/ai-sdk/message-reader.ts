import { isRecord } from '../../input/json.js';
import { given } from '../convert-issues.js';
import type { HubMedia, HubMessage, HubOutput, HubPart, HubResult, HubText, Opaque } from '../hub.js';
import type { AiSdkMessage } from './schema.js';

type Json = Record<string, unknown>;
type Part = Json & { type: string };

/** A part's, message's or tool's providerOptions, as an opaque item at `path`. */
export function optionsOf(value: Json, path: string): Opaque[] {
  return value.providerOptions === undefined ? [] : [{ path, what: 'providerOptions' }];
}

/** A session's messages as hub messages, appended to `out`: a tool message's results joined by the user's next words (to-hub.ts states the rules). */
export class MessageReader {
  private readonly names = new Map<string, string>();
  private afterTools = false;

  constructor(private readonly out: HubMessage[]) {}

  read(messages: readonly AiSdkMessage[]): void {
    messages.forEach((message, m) => {
      this.message(message as unknown as Json & { role: string; content: string | Part[] }, `messages[${m}]`);
    });
  }

  private message(message: Json & { role: string; content: string | Part[] }, path: string): void {
    const extras = optionsOf(message, path);
    const afterTools = this.afterTools;
    this.afterTools = false;
    const content = message.content;
    const parts: HubPart[] =
      typeof content === 'string'
        ? [{ kind: 'text', text: content, path, extras: [] }]
        : content.map((part, p) => this.part(part, `${path}.content[${p}]`));
    const textForm = typeof content === 'string' ? 'string' : 'parts';
    const last = this.out.at(-1);
    if (message.role === 'tool') {
      if (afterTools && last) last.parts.push(...parts);
      else this.out.push({ role: 'user', parts, path, extras });
      this.afterTools = true;
      return;
    }
    if (message.role === 'user' && afterTools && last) {
      last.parts.push(...parts);
      last.extras.push(...extras);
      last.textForm = textForm;
      return;
    }
    this.out.push({ role: message.role === 'assistant' ? 'model' : (message.role as 'user' | 'system'), parts, path, extras, textForm });
  }

  private part(part: Part, path: string): HubPart {
    const extras = optionsOf(part, path);
    switch (part.type) {
      case 'text':
        return { kind: 'text', text: part.text as string, path, extras };
      case 'reasoning':
        return { kind: 'thought', text: part.text as string, path, extras };
      case 'image':
      case 'file':
        return mediaOf(part, path, extras);
      case 'tool-call': {
        if (part.providerExecuted === true)
          extras.push({ path, what: 'providerExecuted', why: 'the provider ran the call: only the AI SDK sends it back' });
        this.names.set(part.toolCallId as string, part.toolName as string);
        const input = part.input;
        const args = isRecord(input) ? { json: input } : { text: JSON.stringify(input), path: `${path}.input` };
        return {
          kind: 'call',
          id: part.toolCallId as string,
          name: part.toolName as string,
          args,
          idPath: `${path}.toolCallId`,
          path,
          extras,
        };
      }
      case 'tool-result':
        return this.result(part, path, extras);
      default:
        return { kind: 'opaque', what: `a ${part.type} part`, path, extras: [] };
    }
  }

  private result(part: Part, path: string, extras: Opaque[]): HubPart {
    const output = part.output as Json & { type: string };
    const outputPath = `${path}.output`;
    let hub: HubOutput;
    switch (output.type) {
      case 'text':
        hub = { text: output.value as string };
        break;
      case 'json':
        hub = isRecord(output.value) ? { json: output.value } : { text: JSON.stringify(output.value) };
        break;
      case 'error-text':
        hub = { error: output.value as string };
        break;
      case 'error-json':
        hub = { error: JSON.stringify(output.value) };
        break;
      case 'content':
        hub = { parts: (output.value as Part[]).map((item, i) => contentItem(item, `${outputPath}.value[${i}]`)) };
        break;
      default:
        return { kind: 'opaque', what: `a ${output.type} output`, path: outputPath, extras: [] };
    }
    if (output.providerOptions !== undefined) extras.push({ path: outputPath, what: 'providerOptions' });
    const id = part.toolCallId as string;
    return {
      kind: 'result',
      id,
      name: (part.toolName as string | undefined) ?? this.names.get(id),
      output: hub,
      namePath: `${path}.toolName`,
      path,
      extras,
    } as HubResult;
  }
}

function mediaOf(part: Part, path: string, extras: Opaque[]): HubMedia {
  const value = (part.type === 'image' ? part.image : part.data) as string;
  const mimeType = part.mediaType as string | undefined;
  const media = part.type === 'image' || mimeType?.startsWith('image/') ? 'image' : mimeType?.startsWith('audio/') ? 'audio' : 'file';
  const source = URL.canParse(value) && !value.startsWith('data:') ? { url: value } : { data: value.replace(/^data:[^,]*,/, '') };
  return {
    kind: 'media',
    media,
    what: part.type,
    ...given('mimeType', mimeType),
    ...source,
    ...given('filename', part.filename),
    path,
    extras,
  };
}

function contentItem(item: Part, path: string): HubText | HubMedia {
  if (item.type === 'text') return { kind: 'text', text: item.text as string, path, extras: optionsOf(item, path) };
  if (item.type === 'image-data' || item.type === 'file-data' || item.type === 'media') {
    const mimeType = item.mediaType as string;
    return {
      kind: 'media',
      media: mimeType.startsWith('image/') ? 'image' : 'file',
      what: item.type,
      mimeType,
      data: item.data as string,
      path,
      extras: optionsOf(item, path),
    };
  }
  return { kind: 'media', media: 'file', what: item.type, path, extras: [] };
}
