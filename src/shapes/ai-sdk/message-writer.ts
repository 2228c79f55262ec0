import { CallLedger, type CallRules, given, type Issues } from '../convert-issues.js';
import {
  type HubMedia,
  type HubMessage,
  type HubOutput,
  type HubPart,
  type HubResult,
  type HubSession,
  type HubText,
  hubCallIds,
  partWhat,
} from '../hub.js';

type Json = Record<string, unknown>;
type Part = Json & { type: string };

const AI_SDK_CALLS: CallRules = {
  idWord: 'toolCallId',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a tool-result must answer a tool-call of the assistant message before it',
  nameRule: 'a tool-result names the tool of the call it answers',
};

/** The hub's messages as AI SDK messages, each result in a tool message answering its call (from-hub.ts states the rules). */
export class MessageWriter {
  private readonly calls: CallLedger;

  constructor(
    hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, AI_SDK_CALLS);
  }

  /** A system message's texts (anything else unsupported). */
  texts(message: HubMessage): string[] {
    this.issues.opaque(message.extras);
    const texts: string[] = [];
    for (const part of message.parts) {
      if (part.kind === 'text') {
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
        texts.push(part.text);
      } else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else this.unsupportedPart(part, 'an AI SDK system message holds text only');
    }
    return texts;
  }

  messages(messages: readonly HubMessage[]): Json[] {
    const out: Json[] = [];
    for (const message of messages) {
      if (message.role === 'system' || message.role === 'developer') {
        const texts = this.texts(message);
        if (texts.length > 0) out.push({ role: 'system', content: texts.join('\n') });
        continue;
      }
      this.issues.opaque(message.extras);
      if (message.role === 'model') {
        this.calls.newTurn();
        const parts = message.parts.flatMap((part) => this.modelPart(part) ?? []);
        if (parts.length > 0) out.push({ role: 'assistant', content: compact(parts, message.textForm) });
        continue;
      }
      const results: Part[] = [];
      const parts: Part[] = [];
      for (const part of message.parts) {
        if (part.kind === 'result') {
          const result = this.result(part);
          if (result) results.push(result);
        } else {
          const written = this.userPart(part);
          if (written) parts.push(written);
        }
      }
      if (results.length > 0) out.push({ role: 'tool', content: results });
      if (parts.length > 0) {
        out.push({ role: 'user', content: compact(parts, message.textForm) });
        this.calls.newTurn();
      }
    }
    return out;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private text(part: HubText): Part {
    this.issues.opaque(part.extras);
    if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
    return { type: 'text', text: part.text };
  }

  private modelPart(part: HubPart): Part | undefined {
    switch (part.kind) {
      case 'text':
        return this.text(part);
      case 'thought':
        this.issues.opaque(part.extras);
        if (part.signature !== undefined)
          this.issues.unsupported(
            part.path,
            'a thought signature',
            "only the provider that made it takes it back, and an AI SDK session's parts carry none",
          );
        return { type: 'reasoning', text: part.text };
      case 'call': {
        this.issues.opaque(part.extras);
        const input = 'json' in part.args ? (part.args.json ?? {}) : inputOf(part.args.text, part.args.path, this.issues);
        const id = this.calls.call(part.id, part.name, part.idPath);
        return { type: 'tool-call', toolCallId: id, toolName: part.name, input };
      }
      case 'media':
        if (part.media === 'file') return this.media(part);
        this.unsupportedPart(part, 'an AI SDK assistant message holds files, not images');
        return undefined;
      default:
        this.unsupportedPart(part, part.kind === 'result' ? "a model message cannot hold a function's result" : undefined);
        return undefined;
    }
  }

  private userPart(part: HubPart): Part | undefined {
    if (part.kind === 'text') return this.text(part);
    if (part.kind === 'media') return this.media(part);
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    this.unsupportedPart(part, part.kind === 'call' ? 'a user message cannot call a function' : undefined);
    return undefined;
  }

  private media(part: HubMedia): Part | undefined {
    this.issues.opaque(part.extras);
    const value = part.url ?? part.data ?? part.fileData;
    const mediaType = part.mimeType ?? (part.fileData?.match(/^data:([^;,]+)/)?.[1] as string | undefined);
    if (value === undefined || (part.media !== 'image' && mediaType === undefined)) {
      this.issues.unsupported(
        part.path,
        part.fileId !== undefined ? `${part.what} by file id` : part.what,
        'an AI SDK part holds a URL or base64 data (a file with its media type)',
      );
      return undefined;
    }
    if (part.media === 'image') return { type: 'image', image: value, ...given('mediaType', mediaType) };
    return { type: 'file', data: value, ...given('filename', part.filename), mediaType: mediaType as string };
  }

  private result(part: HubResult): Part | undefined {
    this.issues.opaque(part.extras);
    const answered = this.calls.answer(part, part.path, part.namePath);
    if (answered === undefined) return undefined;
    return { type: 'tool-result', toolCallId: answered.id, toolName: answered.name, output: this.output(part.output) };
  }

  private output(output: HubOutput): Json {
    if ('json' in output) return { type: 'json', value: output.json };
    if ('text' in output) return { type: 'text', value: output.text };
    if ('error' in output) return { type: 'error-text', value: output.error };
    const value: Json[] = [];
    for (const part of output.parts) {
      if (part.kind === 'text') value.push({ type: 'text', text: part.text });
      else this.issues.unsupported(part.path, part.what, 'a converted tool-result holds text only');
    }
    return { type: 'content', value };
  }
}

/** One text as a string (unless the source wrote parts), else the parts. */
function compact(parts: Part[], form: HubMessage['textForm']): string | Part[] {
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.type === 'text' && form !== 'parts' ? (only.text as string) : parts;
}

function inputOf(text: string, path: string, issues: Issues): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    return issues.fail(
      path,
      `is not valid JSON (${err instanceof Error ? err.message : String(err)}); an AI SDK tool-call's input is JSON`,
    );
  }
}
