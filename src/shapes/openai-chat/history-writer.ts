import { CallLedger, type CallRules, given, type Issues, resultText } from '../convert-issues.js';
import { type HubMedia, type HubMessage, type HubOutput, type HubPart, type HubSession, hubCallIds, partWhat } from '../hub.js';
import type { ChatContentPart, ChatMessage, ChatToolCall } from './schema.js';

const CHAT_CALLS: CallRules = {
  idWord: 'tool call id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a tool message must answer a call of the assistant message before it',
  nameRule: "a tool message takes its function's name from the call",
};

type Text = Extract<ChatContentPart, { type: 'text' }>;

/** One text as a string (unless the source wrote parts), several as text parts. */
function textContent(texts: readonly Text[], form: 'string' | 'parts' | undefined): string | Text[] {
  const only = texts.length === 1 ? texts[0] : undefined;
  return only !== undefined && form !== 'parts' && only.prompt_cache_breakpoint === undefined ? only.text : [...texts];
}

/** The hub's messages as Chat messages, each result a tool message answering its call (from-hub.ts states the rules). */
export class HistoryWriter {
  private readonly out: ChatMessage[] = [];
  /** The calls of the last assistant message, while only tool messages have followed it. */
  private readonly calls: CallLedger;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, CHAT_CALLS);
  }

  messages(): ChatMessage[] {
    for (const message of this.hub.messages) {
      this.issues.opaque(message.extras);
      if (message.role === 'model') this.model(message);
      else if (message.role === 'user') this.user(message);
      else this.system(message);
    }
    return this.out;
  }

  private system(message: HubMessage): void {
    const texts: Text[] = [];
    for (const part of message.parts) {
      const text = this.text(part, 'a Chat Completions system or developer message holds text only');
      if (text) texts.push(text);
    }
    if (texts.length === 0) return;
    // A shape with one system text (no form of its own) gives one leading system message.
    this.out.push({ role: message.role, content: textContent(texts, message.textForm) } as ChatMessage);
  }

  private text(part: HubPart, why?: string): Text | undefined {
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    if (part.kind !== 'text') {
      this.unsupportedPart(part, why);
      return undefined;
    }
    this.issues.opaque(part.extras);
    return { type: 'text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as Text;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private model(message: HubMessage): void {
    const content: (Text | { type: 'refusal'; refusal: string })[] = [];
    const calls: ChatToolCall[] = [];
    for (const part of message.parts) {
      if (part.kind === 'call') {
        // This message's calls are the ones its tool messages may answer.
        if (calls.length === 0) this.calls.newTurn();
        this.issues.opaque(part.extras);
        const id = this.calls.call(part.id, part.name, part.idPath);
        const args = 'json' in part.args ? JSON.stringify(part.args.json ?? {}) : part.args.text;
        calls.push({ id, type: 'function', function: { name: part.name, arguments: args } });
      } else if (part.kind === 'refusal') {
        this.issues.opaque(part.extras);
        content.push({ type: 'refusal', refusal: part.text });
      } else if (part.kind === 'result') this.unsupportedPart(part, "a model message cannot hold a function's result");
      else {
        const text = this.text(part);
        if (text) content.push(text);
      }
    }
    if (content.length === 0 && calls.length === 0) return; // everything in it was left out (and listed)
    if (calls.length === 0) this.calls.newTurn();
    const texts = content.every((part) => part.type === 'text')
      ? textContent(content as Text[], message.nullWhenEmpty ? undefined : message.textForm)
      : content;
    const written = content.length === 0 ? (message.nullWhenEmpty ? { content: null } : {}) : { content: texts };
    this.out.push({ role: 'assistant', ...written, ...(calls.length > 0 ? { tool_calls: calls } : {}) } as ChatMessage);
  }

  private user(message: HubMessage): void {
    const content: ChatContentPart[] = [];
    let media = false;
    for (const part of message.parts) {
      if (part.kind === 'result') {
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, part.path, part.namePath);
        if (answered !== undefined) this.out.push({ role: 'tool', tool_call_id: answered.id, content: this.toolContent(part.output) });
      } else if (part.kind === 'media') {
        const written = this.media(part);
        if (written) {
          content.push(written);
          media = true;
        }
      } else if (part.kind === 'call') this.unsupportedPart(part, 'a user message cannot call a function');
      else {
        const text = this.text(part);
        if (text) content.push(text as ChatContentPart);
      }
    }
    if (content.length === 0) return;
    this.out.push({ role: 'user', content: media ? content : textContent(content as Text[], message.textForm) } as ChatMessage);
    this.calls.newTurn(); // a tool message cannot follow the user's words
  }

  private media(part: HubMedia): ChatContentPart | undefined {
    const breakpoint = given('prompt_cache_breakpoint', part.cacheBreakpoint);
    if (part.media === 'image' && part.url === undefined && part.fileId !== undefined) {
      this.issues.unsupported(part.path, 'an image by file_id', 'a Chat Completions image is given by its url');
      return undefined;
    }
    if (part.media === 'image' && part.url !== undefined) {
      if (part.detail === 'original') {
        this.issues.unsupported(part.path, 'detail "original"', 'Chat Completions takes "auto", "low" and "high"');
        return undefined;
      }
      return {
        type: 'image_url',
        image_url: { url: part.url, ...(part.detail === undefined || part.detail === 'auto' ? {} : { detail: part.detail }) },
        ...breakpoint,
      } as ChatContentPart;
    }
    if (part.media === 'file' && part.data === undefined) {
      for (const [key, value] of [
        ['file_url', part.fileUrl],
        ['detail', part.detail],
      ] as const) {
        if (value !== undefined)
          this.issues.unsupported(part.path, key, 'a Chat Completions file part takes file_data, file_id and filename');
      }
      if (part.fileData === undefined && (part.fileId === undefined || part.fileId === null)) return undefined;
      return {
        type: 'file',
        file: { ...given('file_data', part.fileData), ...given('file_id', part.fileId ?? undefined), ...given('filename', part.filename) },
        ...breakpoint,
      } as ChatContentPart;
    }
    this.issues.unsupported(part.path, part.what);
    return undefined;
  }

  private toolContent(output: HubOutput): string | Text[] {
    if ('json' in output) return resultText(output.json);
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    const parts: Text[] = [];
    for (const part of output.parts) {
      if (part.kind === 'text')
        parts.push({ type: 'text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as Text);
      else this.issues.unsupported(part.path, part.what, 'a Chat Completions tool message holds text only');
    }
    return parts.length > 0 ? parts : '';
  }
}
