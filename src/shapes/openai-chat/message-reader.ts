import { given } from '../convert-issues.js';
import type { HubMedia, HubMessage, HubOutput, HubPart, HubText, Opaque } from '../hub.js';
import type { ChatContentPart, ChatMessage } from './schema.js';

const MESSAGE_FIELDS: Record<ChatMessage['role'], readonly string[]> = {
  system: ['role', 'content'],
  developer: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'refusal', 'audio', 'tool_calls'],
  tool: ['role', 'content', 'tool_call_id'],
};

type Content = string | readonly ChatContentPart[] | null | undefined;

/** A session's messages as hub messages: consecutive tool messages one message of results (to-hub.ts states the rules). */
export class MessageReader {
  private readonly out: HubMessage[] = [];
  private readonly callNames = new Map<string, string>();
  /** The last message holds the results of the tool messages just read. */
  private afterTools = false;

  read(messages: readonly ChatMessage[]): HubMessage[] {
    messages.forEach((message, m) => {
      this.message(message, `messages[${m}]`);
    });
    return this.out;
  }

  private message(message: ChatMessage, path: string): void {
    const extras: Opaque[] = Object.entries(message)
      .filter(([key, value]) => !MESSAGE_FIELDS[message.role].includes(key) && value !== undefined)
      .map(([key]) => ({ path, what: key }));
    const afterTools = this.afterTools;
    this.afterTools = false;
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user': {
        const parts = partsOf(message.content, path);
        const last = this.out.at(-1);
        if (message.role === 'user' && afterTools && last) {
          last.parts.push(...parts);
          last.extras.push(...extras);
          last.textForm = formOf(message.content);
          return;
        }
        this.out.push({ role: message.role, parts, path, extras, textForm: formOf(message.content) });
        return;
      }
      case 'assistant': {
        for (const key of ['refusal', 'audio'] as const)
          if (message[key] !== undefined && message[key] !== null) extras.push({ path, what: key });
        const parts: HubPart[] = partsOf(message.content, path);
        message.tool_calls?.forEach((call, c) => {
          const callPath = `${path}.tool_calls[${c}]`;
          this.callNames.set(call.id, call.function.name);
          parts.push({
            kind: 'call',
            id: call.id,
            name: call.function.name,
            args: { text: call.function.arguments, path: `${callPath}.function.arguments` },
            idPath: `${callPath}.id`,
            path: callPath,
            extras: [],
          });
        });
        this.out.push({
          role: 'model',
          parts,
          path,
          extras,
          textForm: formOf(message.content),
          ...(message.content === null ? { nullWhenEmpty: true } : {}),
        });
        return;
      }
      case 'tool': {
        const name = this.callNames.get(message.tool_call_id);
        const output: HubOutput =
          typeof message.content === 'string'
            ? { text: message.content }
            : { parts: partsOf(message.content, path) as (HubText | HubMedia)[] };
        const part: HubPart = {
          kind: 'result',
          id: message.tool_call_id,
          ...(name === undefined ? {} : { name }),
          output,
          namePath: `${path}.tool_call_id`,
          path,
          extras,
        };
        const last = this.out.at(-1);
        if (afterTools && last) last.parts.push(part);
        else this.out.push({ role: 'user', parts: [part], path, extras: [] });
        this.afterTools = true;
        return;
      }
    }
  }
}

function formOf(content: Content): 'string' | 'parts' | undefined {
  return typeof content === 'string' ? 'string' : Array.isArray(content) ? 'parts' : undefined;
}

function partsOf(content: Content, path: string): HubPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', text: content, path, extras: [] }];
  return content.map((part, p) => hubPart(part, `${path}.content[${p}]`));
}

function hubPart(part: ChatContentPart, path: string): HubPart {
  const breakpoint =
    'prompt_cache_breakpoint' in part && part.prompt_cache_breakpoint !== undefined
      ? { cacheBreakpoint: part.prompt_cache_breakpoint }
      : {};
  const others = (...known: string[]) =>
    Object.entries(part)
      .filter(([key, value]) => !['type', 'prompt_cache_breakpoint', ...known].includes(key) && value !== undefined)
      .map(([key]) => ({ path, what: key }));
  switch (part.type) {
    case 'text':
      return { kind: 'text', text: part.text, ...breakpoint, path, extras: others('text') };
    case 'refusal':
      return { kind: 'refusal', text: part.refusal, path, extras: [] };
    case 'image_url':
      return {
        kind: 'media',
        media: 'image',
        what: 'image_url',
        url: part.image_url.url,
        ...given('detail', part.image_url.detail),
        ...breakpoint,
        path,
        extras: [],
      };
    case 'file': {
      const { file_data, file_id, filename } = part.file;
      return {
        kind: 'media',
        media: 'file',
        what: 'file',
        ...given('fileData', file_data),
        ...given('fileId', file_id),
        ...given('filename', filename),
        ...breakpoint,
        path,
        extras: [],
      };
    }
    default:
      return { kind: 'media', media: 'audio', what: part.type, path, extras: [] };
  }
}
