import { InputError, type InputErrorInit } from '../input/errors.js';
import { isRecord } from '../input/json.js';
import type { Opaque } from './hub.js';

/*
 * What a conversion reports as it goes, shared by every shape's convert facet (which sits above
 * this module): items the target cannot represent (an error, or left out and listed), facts worth
 * a line, and the ledger that gives a converted history's calls their ids and matches the results.
 */

/** Something the source session holds that the target shape has no place for, left out on request. */
export interface DroppedItem {
  /** Where it was in the source session, e.g. `history[3].parts[1]`. */
  path: string;
  /** What it was: a part kind, a field name (`inlineData`, `thoughtSignature`, `topK`, …). */
  what: string;
}

/**
 * A session that cannot be converted: the message reads `file: path: rule`, as every InputError
 * does. `droppable` says whether `dropUnsupported` would have left the item out instead.
 */
export class ConversionError extends InputError {
  readonly droppable: boolean;

  constructor(init: InputErrorInit & { droppable?: boolean }) {
    super(init);
    this.name = 'ConversionError';
    this.droppable = init.droppable ?? false;
  }
}

/** What a converter reports as it goes: unsupported items (thrown, or dropped and listed) and hard errors. */
export class Issues {
  constructor(
    /** The target shape's format, as messages name it. */
    readonly target: string,
    private readonly dropUnsupported: boolean,
    private readonly file: string | undefined,
    readonly dropped: DroppedItem[] = [],
    /** Facts about the result worth a line (a setting the target requires, filled in). */
    readonly notes: string[] = [],
  ) {}

  /** An item the target cannot represent: an error, or left out and listed with `dropUnsupported`. */
  unsupported(path: string, what: string, why?: string): void {
    if (!this.dropUnsupported) {
      const rule = `${what} cannot be converted to ${this.target}${why ? `: ${why}` : ''}`;
      throw new ConversionError({ ...this.at(), path, rule, droppable: true });
    }
    this.dropped.push({ path, what });
  }

  /** Items of the source no target takes (carried through the hub as they were found). */
  opaque(items: readonly Opaque[] | undefined): void {
    for (const item of items ?? [])
      this.unsupported(item.path, item.what, typeof item.why === 'function' ? item.why(this.target) : item.why);
  }

  /** An item left out by rule, whatever the options (a model's thought part). */
  drop(path: string, what: string): void {
    this.dropped.push({ path, what });
  }

  /** A fact about the result worth a line of the summary; `path` says where, as errors do. */
  note(text: string, path?: string): void {
    this.notes.push(path === undefined ? text : `${path}: ${text}`);
  }

  /** A problem no option can work around. */
  fail(path: string, rule: string): never {
    throw new ConversionError({ ...this.at(), path, rule });
  }

  private at(): { file?: string } {
    return this.file === undefined ? {} : { file: this.file };
  }
}

/** The object a text is the JSON of, or undefined when it is not a JSON object (a tool's text output read as the response itself). */
export function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A tool result as the text the OpenAI shapes carry: the response's `output` when that is all it
 * holds and is not itself a JSON object's text (the way back reads such text as that object), else
 * the response as JSON.
 */
export function resultText(response: Readonly<Record<string, unknown>>): string {
  const output = response.output;
  if (Object.keys(response).length === 1 && typeof output === 'string' && jsonObjectOf(output) === undefined) return output;
  return JSON.stringify(response);
}

/** A call's arguments written as text, read as the JSON object the target needs; `why` ends the error ("a tool_use's input is a JSON object"). */
export function argsObjectOf(text: string, path: string, issues: Issues, why: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return issues.fail(path, `is not valid JSON (${err instanceof Error ? err.message : String(err)}); ${why}`);
  }
  if (!isRecord(value)) issues.fail(path, `must be the JSON text of an object: ${why}`);
  return value;
}

/** `{ key: value }` when value is given (null included: the OpenAI APIs read it as their default), else nothing. */
export function given(key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value };
}

/** How a target API names calls and their results, for the ids it makes and the errors it gives. */
export interface CallRules {
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
 * the target takes it, else one made up that no call of the session carries), and each result
 * matched to an open call of the model turn before it, by id, else by name.
 */
export class CallLedger {
  /** Ids the session's calls carry, so a made-up id never takes one. */
  private readonly taken: Set<string>;
  /** Where each id was first used (to name a duplicate). */
  private readonly idAt = new Map<string, string>();
  /** The calls of the last model turn, while its answers may still come. */
  private open: OpenCall[] = [];
  private callIndex = 0;

  constructor(
    callIds: Iterable<string>,
    private readonly issues: Issues,
    private readonly rules: CallRules,
  ) {
    this.taken = new Set(callIds);
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

  /** The id and name of the call this result answers, or undefined when it answers none (unsupported). */
  answer(result: { id?: string; name?: string }, path: string, namePath: string): { id: string; name: string } | undefined {
    const id = result.id || undefined;
    const byId = id === undefined ? undefined : this.open.find((call) => !call.answered && call.sourceId === id);
    const call = byId ?? this.open.find((c) => !c.answered && c.name === result.name && (id === undefined || c.sourceId === undefined));
    if (!call) {
      const which = `"${result.name ?? ''}"${id === undefined ? '' : ` (id "${id}")`}`;
      this.issues.unsupported(
        path,
        'functionResponse',
        `${which} answers no open functionCall of the model message before it, and ${this.rules.answerRule}`,
      );
      return undefined;
    }
    if (result.name !== undefined && call.name !== result.name) {
      this.issues.fail(namePath, `"${result.name}" answers the call "${call.sourceId}" of "${call.name}"; ${this.rules.nameRule}`);
    }
    call.answered = true;
    return { id: call.id, name: call.name };
  }

  private idOf(id: string | undefined, path: string): string {
    const n = this.callIndex++;
    if (id && this.rules.takes(id)) {
      const earlier = this.idAt.get(id);
      if (earlier !== undefined) {
        this.issues.fail(
          path,
          `the call id "${id}" is already used at ${earlier}; ${this.issues.target} needs each ${this.rules.idWord} once in a session`,
        );
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
