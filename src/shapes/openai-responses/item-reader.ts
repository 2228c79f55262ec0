import { given, type Issues } from '../convert-issues.js';
import type { HubMedia, HubMessage, HubOutput, HubPart, HubText, Opaque } from '../hub.js';
import type { OpenAIResponsesSession, ResponsesInputItem } from './schema.js';

type Json = Record<string, unknown>;
type Item = ResponsesInputItem;

/** What a response reports about its own items: no message of another shape carries it. */
const BOOKKEEPING = ['id', 'status'];

/** A session's input items as hub messages, a model turn at a time (to-hub.ts states the rules). */
export class ItemReader {
  private readonly out: HubMessage[] = [];
  /** The model turn the next assistant text or call joins; undefined once anything else came. */
  private turn: HubMessage | undefined;
  /** The results message the next output (or the user's next words) joins. */
  private results: HubMessage | undefined;
  /** The calls of the last model turn, while only outputs have followed it. */
  private open = new Set<string>();
  private readonly callNames = new Map<string, string>();
  /** How many item ids, statuses and logprobs were left out. */
  bookkeeping = 0;

  constructor(private readonly issues: Issues) {}

  read(input: OpenAIResponsesSession['input']): HubMessage[] {
    if (typeof input === 'string')
      return [
        { role: 'user', parts: [{ kind: 'text', text: input, path: 'input', extras: [] }], path: 'input', extras: [], textForm: 'string' },
      ];
    input.forEach((item, i) => {
      this.item(item, `input[${i}]`);
    });
    return this.out;
  }

  private item(item: Item, path: string): void {
    const kind = 'role' in item ? 'message' : (item.type ?? 'item_reference');
    if (kind !== 'item_reference')
      for (const key of BOOKKEEPING) if ((item as Json)[key] !== undefined && (item as Json)[key] !== null) this.bookkeeping++;
    if ('role' in item) {
      const phase = (item as Json).phase;
      const extras: Opaque[] =
        phase !== undefined && phase !== null ? [{ path, what: 'phase', why: 'Chat Completions has no phase for a message' }] : [];
      if (item.role === 'assistant') this.assistantText(item, path, extras);
      else this.message(item, path, extras);
      return;
    }
    switch (item.type) {
      case 'function_call':
        this.call(item, path);
        return;
      case 'function_call_output':
        this.output(item, path);
        return;
      case 'reasoning':
        // Not a turn's end: the items the model produced after it follow.
        (this.turn ?? this.newTurn(path)).parts.push({
          kind: 'opaque',
          what: 'reasoning',
          why: "Chat Completions takes no reasoning items (the model's encrypted reasoning) back",
          path,
          extras: [],
        });
        return;
      default:
        this.close();
        this.out.push({
          role: 'model',
          parts: [
            {
              kind: 'opaque',
              what: kind,
              why: 'it stands for items kept at OpenAI, which a session of another shape cannot send',
              path,
              extras: [],
            },
          ],
          path,
          extras: [],
        });
    }
  }

  private message(item: Extract<Item, { role: 'user' | 'system' | 'developer' }>, path: string, extras: Opaque[]): void {
    const results = this.results;
    this.close();
    const content = item.content;
    const parts: HubPart[] =
      typeof content === 'string'
        ? [{ kind: 'text', text: content, path, extras: [] }]
        : content.map((part, p) => inputPart(part, `${path}.content[${p}]`));
    const textForm = typeof content === 'string' ? 'string' : 'parts';
    if (item.role === 'user' && results) {
      // The user's words after the outputs: one message with them, as Gemini's shape has it.
      results.parts.push(...parts);
      results.extras.push(...extras);
      results.textForm = textForm;
      return;
    }
    this.out.push({ role: item.role, parts, path, extras, textForm });
  }

  private assistantText(item: Extract<Item, { role: 'assistant' }>, path: string, extras: Opaque[]): void {
    const parts: HubPart[] = [];
    if (typeof item.content === 'string') parts.push({ kind: 'text', text: item.content, path, extras: [] });
    else {
      item.content.forEach((part, p) => {
        const partPath = `${path}.content[${p}]`;
        if (part.type === 'refusal') {
          parts.push({ kind: 'refusal', text: part.refusal, path: partPath, extras: [] });
          return;
        }
        const annotations: Opaque[] =
          part.annotations.length > 0 ? [{ path: partPath, what: 'annotations', why: 'Chat Completions takes no citations back' }] : [];
        if (part.logprobs !== undefined) this.bookkeeping++;
        parts.push({ kind: 'text', text: part.text, path: partPath, extras: annotations });
      });
    }
    // Text comes before a message's calls: text after a call starts another model message.
    const turn = this.turn && !this.turn.parts.some((part) => part.kind === 'call') ? this.turn : this.newTurn(path);
    turn.extras.push(...extras);
    turn.parts.push(...parts);
  }

  private call(item: Extract<Item, { type: 'function_call' }>, path: string): void {
    const turn = this.turn ?? this.newTurn(path);
    turn.parts.push({
      kind: 'call',
      id: item.call_id,
      name: item.name,
      args: { text: item.arguments, path: `${path}.arguments` },
      idPath: `${path}.call_id`,
      path,
      extras: [],
    });
    this.callNames.set(item.call_id, item.name);
    this.open.add(item.call_id);
  }

  private output(item: Extract<Item, { type: 'function_call_output' }>, path: string): void {
    this.turn = undefined;
    if (!this.open.has(item.call_id)) {
      this.issues.fail(
        `${path}.call_id`,
        `"${item.call_id}" answers no call of the model turn just before it: in ${this.issues.target} a tool message follows the assistant message whose call it answers (only other tool messages between)`,
      );
    }
    this.open.delete(item.call_id);
    const output: HubOutput =
      typeof item.output === 'string'
        ? { text: item.output }
        : { parts: item.output.map((part, p) => inputPart(part as InputPart, `${path}.output[${p}]`) as HubText | HubMedia) };
    const name = this.callNames.get(item.call_id);
    const result: HubPart = {
      kind: 'result',
      id: item.call_id,
      ...(name === undefined ? {} : { name }),
      output,
      namePath: `${path}.call_id`,
      path,
      extras: [],
    };
    if (this.results) this.results.parts.push(result);
    else {
      this.results = { role: 'user', parts: [result], path, extras: [] };
      this.out.push(this.results);
    }
  }

  private newTurn(path: string): HubMessage {
    this.open = new Set();
    this.results = undefined;
    const turn: HubMessage = { role: 'model', parts: [], path, extras: [], nullWhenEmpty: true };
    this.out.push(turn);
    this.turn = turn;
    return turn;
  }

  /** Anything but a model item or an output: no later item joins the turn or answers its calls. */
  private close(): void {
    this.turn = undefined;
    this.results = undefined;
    this.open = new Set();
  }
}

type InputPart = Exclude<Extract<Item, { role: 'user' }>['content'], string>[number];

function inputPart(part: InputPart, path: string): HubPart {
  const breakpoint =
    part.prompt_cache_breakpoint !== undefined && part.prompt_cache_breakpoint !== null
      ? { cacheBreakpoint: part.prompt_cache_breakpoint }
      : {};
  if (part.type === 'input_text') return { kind: 'text', text: part.text, ...breakpoint, path, extras: [] };
  if (part.type === 'input_image') {
    const source = typeof part.image_url === 'string' ? { url: part.image_url } : { fileId: part.file_id ?? null };
    return {
      kind: 'media',
      media: 'image',
      what: 'input_image',
      ...source,
      ...given('detail', part.detail ?? undefined),
      ...breakpoint,
      path,
      extras: [],
    };
  }
  const { file_data, file_id, filename, file_url, detail } = part;
  return {
    kind: 'media',
    media: 'file',
    what: 'input_file',
    ...given('fileData', file_data ?? undefined),
    ...given('fileId', file_id),
    ...given('filename', filename ?? undefined),
    ...given('fileUrl', file_url ?? undefined),
    ...given('detail', detail ?? undefined),
    ...breakpoint,
    path,
    extras: [],
  };
}
