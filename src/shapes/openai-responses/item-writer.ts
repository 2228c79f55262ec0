import { CallLedger, type CallRules, given, type Issues, resultText } from '../convert-issues.js';
import { type HubMessage, type HubOutput, type HubPart, type HubSession, hubCallIds, partWhat } from '../hub.js';
import type { ResponsesInputItem } from './schema.js';

type Item = ResponsesInputItem;

const REFUSAL_WHY = 'a Responses refusal is a part of an output message, with the id the API gave it';

const RESPONSES_CALLS: CallRules = {
  idWord: 'call_id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a function_call_output must answer a call of the model turn before it',
  nameRule: 'a function_call_output answers its call by call_id, and the names must agree',
};

type InputContent = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

/** The hub's messages as input items, each result an output answering its call (from-hub.ts states the rules). */
export class ItemWriter {
  private readonly out: Item[] = [];
  private readonly calls: CallLedger;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, RESPONSES_CALLS);
  }

  items(): Item[] {
    for (const message of this.hub.messages) {
      this.issues.opaque(message.extras.filter((extra) => extra.what !== 'name' && extra.what !== 'refusal' && extra.what !== 'audio'));
      for (const extra of message.extras) {
        if (extra.what === 'name') this.issues.unsupported(extra.path, 'name', 'a Responses message has no name');
        else if (extra.what === 'refusal' || extra.what === 'audio') this.issues.unsupported(extra.path, extra.what, REFUSAL_WHY);
      }
      if (message.role === 'model') this.model(message);
      else this.message(message);
    }
    return this.out;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private message(message: HubMessage): void {
    const content: InputContent[] = [];
    for (const part of message.parts) {
      if (part.kind === 'result') {
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, part.path, part.namePath);
        if (answered !== undefined)
          this.out.push({ type: 'function_call_output', call_id: answered.id, output: this.output(part.output) } as Item);
      } else if (part.kind === 'call') this.unsupportedPart(part, 'a user message cannot call a function');
      else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else {
        const written = this.inputPart(part);
        if (written) content.push(written);
      }
    }
    if (content.length === 0) return;
    const only = content.length === 1 ? content[0] : undefined;
    const plain = only?.type === 'input_text' && only.prompt_cache_breakpoint === undefined && message.textForm !== 'parts';
    this.out.push({ role: message.role === 'model' ? 'assistant' : message.role, content: plain ? only.text : content } as Item);
    this.calls.newTurn();
  }

  private inputPart(part: HubPart): InputContent | undefined {
    if (part.kind === 'text') {
      this.issues.opaque(part.extras);
      return { type: 'input_text', text: part.text, ...given('prompt_cache_breakpoint', part.cacheBreakpoint) } as InputContent;
    }
    if (part.kind !== 'media') {
      this.unsupportedPart(part, part.kind === 'refusal' ? REFUSAL_WHY : undefined);
      return undefined;
    }
    const breakpoint = given('prompt_cache_breakpoint', part.cacheBreakpoint);
    if (part.media === 'image' && (part.url !== undefined || part.fileId !== undefined)) {
      return {
        type: 'input_image',
        ...(part.url !== undefined ? { image_url: part.url } : { file_id: part.fileId }),
        detail: part.detail ?? 'auto',
        ...breakpoint,
      } as InputContent;
    }
    if (part.media === 'file' && part.data === undefined) {
      return {
        type: 'input_file',
        ...given('file_data', part.fileData),
        ...given('file_id', part.fileId),
        ...given('filename', part.filename),
        ...given('file_url', part.fileUrl),
        ...given('detail', part.detail),
        ...breakpoint,
      } as InputContent;
    }
    this.issues.unsupported(
      part.path,
      part.what,
      part.media === 'audio' ? 'the Responses API takes text, images and files as input' : undefined,
    );
    return undefined;
  }

  private output(output: HubOutput): string | InputContent[] {
    if ('json' in output) return resultText(output.json);
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    const parts = output.parts.flatMap((part) => this.inputPart(part) ?? []);
    return parts.length > 0 ? parts : '';
  }

  private model(message: HubMessage): void {
    const calls: Item[] = [];
    for (const part of message.parts) {
      if (part.kind === 'call') {
        if (calls.length === 0) this.calls.newTurn();
        this.issues.opaque(part.extras);
        const id = this.calls.call(part.id, part.name, part.idPath);
        const args = 'json' in part.args ? JSON.stringify(part.args.json ?? {}) : part.args.text;
        calls.push({ type: 'function_call', call_id: id, name: part.name, arguments: args } as Item);
      } else if (part.kind === 'text') {
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined)
          this.issues.unsupported(part.path, 'prompt_cache_breakpoint', "the model's text in a Responses assistant message is a string");
        this.out.push({ role: 'assistant', content: part.text } as Item);
      } else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else
        this.unsupportedPart(
          part,
          part.kind === 'refusal' ? REFUSAL_WHY : part.kind === 'result' ? "a model message cannot hold a function's result" : undefined,
        );
    }
    if (calls.length === 0 && message.parts.some((part) => part.kind === 'text')) this.calls.newTurn();
    this.out.push(...calls);
  }
}
