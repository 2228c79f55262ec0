import { argsObjectOf, CallLedger, type CallRules, type Issues } from '../convert-issues.js';
import { type HubMessage, type HubOutput, type HubPart, type HubSession, hubCallIds } from '../hub.js';
import type { AnthropicMessage } from './schema.js';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/** Text a block or a system prompt may not be: Anthropic refuses it. */
export const isBlank = (text: string) => text.trim() === '';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const ANTHROPIC_CALLS: CallRules = {
  idWord: 'tool_use id',
  madeStem: 'tool',
  takes: (id) => TOOL_USE_ID.test(id),
  answerRule: 'a tool_result must answer a tool_use of the assistant message before it',
  nameRule: 'a tool_result answers its call by id, and the names must agree',
};
/** The hub's messages as Anthropic messages, one role's turn merged, each result answering its tool_use (from-hub.ts states the rules). */
export class HistoryWriter {
  private readonly out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  /** The calls of the last assistant turn, while its answers may still come. */
  private readonly calls: CallLedger;

  constructor(
    hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, ANTHROPIC_CALLS);
  }

  messages(messages: readonly HubMessage[]): AnthropicMessage[] {
    for (const message of messages) {
      this.issues.opaque(message.extras);
      if (message.role === 'system' || message.role === 'developer') {
        this.issues.unsupported(
          message.path,
          `a "${message.role}" message after the conversation has started`,
          'Anthropic takes one system prompt, before the messages',
        );
        continue;
      }
      const role = message.role === 'model' ? 'assistant' : 'user';
      if (role === 'assistant' && this.out.at(-1)?.role !== 'assistant') this.calls.newTurn(); // a new assistant turn: its own calls
      const blocks: Block[] = [];
      for (const part of message.parts) {
        const block = this.block(part, role);
        if (block) blocks.push(block);
      }
      this.push(role, blocks);
    }
    return this.out as AnthropicMessage[];
  }

  /** Blocks join the message before when it has their role (the API reads them as one turn); a user turn's results come first. */
  private push(role: 'user' | 'assistant', blocks: Block[]): void {
    if (blocks.length === 0) return; // everything in it was left out (and listed)
    const last = this.out.at(-1);
    if (last?.role !== role) {
      this.out.push({ role, content: role === 'user' ? resultsFirst(blocks) : blocks });
      return;
    }
    last.content = role === 'user' ? resultsFirst([...last.content, ...blocks]) : [...last.content, ...blocks];
  }

  private block(part: HubPart, role: 'user' | 'assistant'): Block | undefined {
    const path = part.path;
    switch (part.kind) {
      case 'thought':
        if (role !== 'assistant' || part.signature === undefined) {
          this.issues.drop(path, 'thought');
          return undefined;
        }
        this.issues.opaque(part.extras);
        return { type: 'thinking', thinking: part.text, signature: part.signature };
      case 'text':
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) this.issues.unsupported(path, 'prompt_cache_breakpoint');
        if (isBlank(part.text)) {
          this.issues.drop(path, part.text === '' ? 'empty text' : 'whitespace-only text');
          return undefined;
        }
        return { type: 'text', text: part.text };
      case 'call': {
        if (role !== 'assistant') return this.unsupported(path, 'functionCall', 'a user message cannot call a tool');
        this.issues.opaque(part.extras);
        const input =
          'json' in part.args
            ? (part.args.json ?? {})
            : argsObjectOf(part.args.text, part.args.path, this.issues, "a tool_use's input is a JSON object");
        const id = this.calls.call(part.id, part.name, part.idPath);
        return { type: 'tool_use', id, name: part.name, input };
      }
      case 'result': {
        if (role !== 'user') return this.unsupported(path, 'functionResponse', "a model message cannot hold a tool's result");
        this.issues.opaque(part.extras);
        const answered = this.calls.answer(part, path, part.namePath);
        if (answered === undefined) return undefined;
        return {
          type: 'tool_result',
          tool_use_id: answered.id,
          content: this.resultText(part.output),
          ...('error' in part.output ? { is_error: true } : {}),
        };
      }
      case 'media':
        this.issues.opaque(part.extras);
        if (part.data !== undefined && part.data !== '' && part.mimeType !== undefined) {
          if (IMAGE_TYPES.has(part.mimeType))
            return { type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } };
          if (part.mimeType === 'application/pdf' && role === 'user')
            return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } };
        }
        return this.unsupported(
          path,
          part.what,
          'Anthropic takes JPEG, PNG, GIF and WebP images, and PDF documents in user messages, as base64 data',
        );
      case 'opaque':
        this.issues.opaque([part]);
        return undefined;
      case 'refusal':
        return this.unsupported(path, 'refusal');
    }
  }

  private unsupported(path: string, what: string, why?: string): undefined {
    this.issues.unsupported(path, what, why);
    return undefined;
  }

  /** A tool_result's content as the reference writes it: the output, else the error, else the response as JSON. */
  private resultText(output: HubOutput): string {
    if ('text' in output) return output.text;
    if ('error' in output) return output.error;
    if ('parts' in output) {
      let text = '';
      for (const part of output.parts) {
        if (part.kind === 'text') text += part.text;
        else this.issues.unsupported(part.path, part.what, 'a converted tool_result holds text only');
      }
      return text;
    }
    const response = output.json;
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
    return JSON.stringify(response);
  }
}

function resultsFirst(blocks: Block[]): Block[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}
