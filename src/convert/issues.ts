import { InputError, type InputErrorInit } from '../input/errors.js';
import type { SessionFormat } from '../shapes/registry.js';
import { isRecord } from '../input/json.js';

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
    private readonly to: SessionFormat,
    private readonly dropUnsupported: boolean,
    private readonly file: string | undefined,
    /** The shape a composed conversion goes through, when this is its second step: paths are that session's. */
    private readonly via?: SessionFormat,
    readonly dropped: DroppedItem[] = [],
    /** Facts about the result worth a line (a setting the target requires, filled in). */
    readonly notes: string[] = [],
  ) {}

  /**
   * The issues of a composed conversion's second step (gemini → openai-chat → openai-responses):
   * the same target, options and lists, its paths named as paths of the `via` session on the way.
   */
  through(via: SessionFormat): Issues {
    return new Issues(this.to, this.dropUnsupported, this.file, via, this.dropped, this.notes);
  }

  /** An item the target cannot represent: an error, or left out and listed with `dropUnsupported`. */
  unsupported(path: string, what: string, why?: string): void {
    if (!this.dropUnsupported) {
      const rule = `${what} cannot be converted to ${this.to}${why ? `: ${why}` : ''}`;
      throw new ConversionError({ ...this.at(), path: this.where(path), rule, droppable: true });
    }
    this.dropped.push({ path: this.where(path), what });
  }

  /** An item left out by rule, whatever the options (a model's thought part). */
  drop(path: string, what: string): void {
    this.dropped.push({ path: this.where(path), what });
  }

  /** A fact about the result worth a line of the summary; `path` says where, as errors do. */
  note(text: string, path?: string): void {
    this.notes.push(path === undefined ? text : `${this.where(path)}: ${text}`);
  }

  /** A problem no option can work around. */
  fail(path: string, rule: string): never {
    throw new ConversionError({ ...this.at(), path: this.where(path), rule });
  }

  private at(): { file?: string } {
    return this.file === undefined ? {} : { file: this.file };
  }

  /** A path as the user can find it: in a composed conversion's second step, a path of the session on the way. */
  private where(path: string): string {
    if (this.via === undefined) return path;
    return `${path === '' ? 'the' : `${path} of the`} ${this.via} session on the way`;
  }
}


/** The object a text is the JSON of, or undefined when it is not a JSON object (to-gemini.ts reads such a tool message as the response itself). */
export function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
