import type { Content } from '../shapes/gemini/schema.js';
import { isRecord } from '../input/json.js';
import type { Issues } from './issues.js';

/** How a target API names calls and their results, for the ids it makes and the errors it gives. */
export interface CallRules {
  /** The target shape, as errors name it. */
  target: string;
  /** What a call id is called there ("tool call id", "tool_use id"). */
  idWord: string;
  /** The stem of an id made for a call without one ("call" → call_3). */
  madeStem: string;
  /** Whether the target takes a source id as it is (Anthropic's tool_use ids are `[a-zA-Z0-9_-]+`). */
  takes(id: string): boolean;
  /** Why a result that answers no open call cannot stay. */
  answerRule: string;
  /** Why a result's name must be its call's. */
  nameRule: string;
}

interface OpenCall {
  id: string;
  sourceId: string | undefined;
  name: string;
  answered: boolean;
}

/**
 * The calls of a converted history and their answers: ids given once each (a source id kept when
 * the target takes it, else one made up that no call of the session carries), and each
 * functionResponse matched to an open call of the model turn before it, by id, else by name.
 */
export class CallLedger {
  /** Ids the session's calls carry, so a made-up id never takes one. */
  private readonly taken = new Set<string>();
  /** Where each id was first used (to name a duplicate). */
  private readonly idAt = new Map<string, string>();
  /** The calls of the last model turn, while its answers may still come. */
  private open: OpenCall[] = [];
  private callIndex = 0;

  constructor(
    history: readonly Content[],
    private readonly issues: Issues,
    private readonly rules: CallRules,
  ) {
    for (const content of history) {
      for (const part of content.parts) if (part.functionCall?.id) this.taken.add(part.functionCall.id);
    }
  }

  /** A new turn: the calls before it can no longer be answered. */
  newTurn(): void {
    this.open = [];
  }

  /** A call of the current model turn: its id in the target. */
  call(sourceId: string | undefined, name: string, path: string): string {
    const id = this.idOf(sourceId, path);
    this.open.push({ id, sourceId: sourceId || undefined, name, answered: false });
    return id;
  }

  /** The id of the call this response answers, or undefined when it answers none (unsupported). */
  answer(response: { id?: string; name: string }, path: string): string | undefined {
    const id = response.id || undefined;
    const byId = id === undefined ? undefined : this.open.find((call) => !call.answered && call.sourceId === id);
    const call = byId ?? this.open.find((c) => !c.answered && c.name === response.name && (id === undefined || c.sourceId === undefined));
    if (!call) {
      const which = `"${response.name}"${id === undefined ? '' : ` (id "${id}")`}`;
      this.issues.unsupported(path, 'functionResponse', `${which} answers no open functionCall of the model message before it, and ${this.rules.answerRule}`);
      return undefined;
    }
    if (call.name !== response.name) {
      this.issues.fail(`${path}.functionResponse.name`, `"${response.name}" answers the call "${call.sourceId}" of "${call.name}"; ${this.rules.nameRule}`);
    }
    call.answered = true;
    return call.id;
  }

  private idOf(id: string | undefined, path: string): string {
    const n = this.callIndex++;
    if (id && this.rules.takes(id)) {
      const earlier = this.idAt.get(id);
      if (earlier !== undefined) {
        this.issues.fail(path, `the call id "${id}" is already used at ${earlier}; ${this.rules.target} needs each ${this.rules.idWord} once in a session`);
      }
      this.idAt.set(id, path);
      return id;
    }
    let made = `${this.rules.madeStem}_${n}`;
    for (let k = 1; this.taken.has(made); k++) made = `${this.rules.madeStem}_${n}_${k}`;
    this.taken.add(made);
    return made;
  }
}

/** Gemini's functionCallingConfig as the converters read it: its mode, its allowed function names, and the path errors name. */
export interface CallingConfig {
  mode: unknown;
  allowed: string[] | undefined;
  path: string;
}

/**
 * Reads a Gemini toolConfig's functionCallingConfig (the one field a target's tool_choice can say):
 * other fields are listed as unsupported, a malformed one is an error. undefined when it has none.
 */
export function callingConfigOf(config: Readonly<Record<string, unknown>>, issues: Issues): CallingConfig | undefined {
  for (const key of Object.keys(config)) {
    if (key !== 'functionCallingConfig' && config[key] !== undefined) issues.unsupported('toolConfig', key);
  }
  const calling = config.functionCallingConfig;
  if (calling === undefined) return undefined;
  const path = 'toolConfig.functionCallingConfig';
  if (!isRecord(calling)) return issues.fail(path, 'must be a JSON object');
  for (const key of Object.keys(calling)) {
    if (key !== 'mode' && key !== 'allowedFunctionNames' && calling[key] !== undefined) issues.unsupported(path, key);
  }
  const names = calling.allowedFunctionNames;
  if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === 'string' && name !== ''))) {
    issues.fail(`${path}.allowedFunctionNames`, 'must be an array of function names');
  }
  return { mode: calling.mode, allowed: names as string[] | undefined, path };
}
