import { argsObjectOf, CallLedger, type CallRules, type Issues, jsonObjectOf } from '../convert-issues.js';
import { type HubCall, type HubMessage, type HubPart, type HubResult, type HubSession, hubCallIds, partWhat } from '../hub.js';
import type { Content, Part } from './schema.js';

type Json = Record<string, unknown>;

const GEMINI_CALLS: CallRules = {
  idWord: 'function call id',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a functionResponse must answer a call of the model message before it',
  nameRule: 'a functionResponse names the function it answers',
};

/** The hub's messages as the system instruction's parts and the history's Contents, each result answering its call (from-hub.ts states the rules). */
export class HistoryWriter {
  private readonly systemParts: Part[] = [];
  private readonly history: Content[] = [];
  private readonly calls: CallLedger;
  private started = false;

  constructor(
    private readonly hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, GEMINI_CALLS);
  }

  write(): { systemParts: Part[]; history: Content[] } {
    for (const message of this.hub.messages) this.message(message);
    return { systemParts: this.systemParts, history: this.history };
  }

  private message(message: HubMessage): void {
    this.issues.opaque(message.extras);
    if (message.role === 'system' || message.role === 'developer') {
      if (this.started) {
        this.issues.unsupported(
          message.path,
          `a "${message.role}" message after the conversation has started`,
          'Gemini has one system instruction, before the history',
        );
        return;
      }
      for (const part of message.parts) {
        const text = this.textPart(part, 'a system instruction holds text only');
        if (text) this.systemParts.push(text);
      }
      return;
    }
    this.started = true;
    const parts: Part[] = [];
    if (message.role === 'model') this.calls.newTurn();
    for (const part of message.parts) {
      const written = message.role === 'model' ? this.modelPart(part) : this.userPart(part);
      if (written) parts.push(written);
    }
    if (parts.length > 0) this.history.push({ role: message.role, parts });
  }

  /** A text part; a thought is left out and listed, anything else unsupported. */
  private textPart(part: HubPart, why?: string): Part | undefined {
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    if (part.kind !== 'text') {
      this.unsupportedPart(part, why);
      return undefined;
    }
    this.issues.opaque(part.extras);
    if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
    return { text: part.text };
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private modelPart(part: HubPart): Part | undefined {
    if (part.kind === 'thought') {
      this.issues.opaque(part.extras);
      return { text: part.text, thought: true, ...(part.signature === undefined ? {} : { thoughtSignature: part.signature }) };
    }
    if (part.kind === 'call') return this.call(part);
    if (part.kind === 'result') {
      this.unsupportedPart(part, "a model message cannot hold a function's result");
      return undefined;
    }
    return this.textPart(part);
  }

  private call(part: HubCall): Part {
    this.issues.opaque(part.extras);
    const args =
      'json' in part.args
        ? part.args.json
        : argsObjectOf(part.args.text, part.args.path, this.issues, "a Gemini call's args are a JSON object");
    const id = this.calls.call(part.id, part.name, part.idPath);
    return { functionCall: { id, name: part.name, ...(args === undefined ? {} : { args }) } };
  }

  private userPart(part: HubPart): Part | undefined {
    if (part.kind === 'result') return this.result(part);
    if (part.kind === 'call') {
      this.unsupportedPart(part, 'a user message cannot call a function');
      return undefined;
    }
    return this.textPart(part);
  }

  private result(part: HubResult): Part | undefined {
    this.issues.opaque(part.extras);
    if (part.name === undefined)
      this.issues.fail(part.namePath, `"${part.id ?? ''}" answers no tool call of an assistant message before it`);
    const answered = this.calls.answer(part, part.path, part.namePath);
    if (answered === undefined) return undefined;
    return { functionResponse: { id: answered.id, name: answered.name, response: this.responseOf(part) } };
  }

  private responseOf(part: HubResult): Json {
    const output = part.output;
    if ('json' in output) return output.json;
    if ('error' in output) return { error: output.error };
    if ('text' in output) return responseOf(output.text);
    let text = '';
    for (const p of output.parts) {
      if (p.kind === 'text') text += p.text;
      else this.issues.unsupported(p.path, p.what, 'a functionResponse holds a JSON object');
    }
    return responseOf(text);
  }
}

/** The response a tool's text stands for: the object it is the JSON of, else `{ output: text }`. */
function responseOf(text: string): Json {
  return jsonObjectOf(text) ?? { output: text };
}
