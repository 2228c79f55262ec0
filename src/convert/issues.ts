import { InputError, type InputErrorInit } from '../session/errors.js';
import type { SessionFormat } from '../session/schema.js';
import { isRecord } from '../session/json.js';

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
  readonly dropped: DroppedItem[] = [];
  /** Facts about the result worth a line (a setting the target requires, filled in). */
  readonly notes: string[] = [];

  constructor(
    private readonly to: SessionFormat,
    private readonly dropUnsupported: boolean,
    private readonly file: string | undefined,
  ) {}

  /** An item the target cannot represent: an error, or left out and listed with `dropUnsupported`. */
  unsupported(path: string, what: string, why?: string): void {
    if (!this.dropUnsupported) {
      const rule = `${what} cannot be converted to ${this.to}${why ? `: ${why}` : ''}`;
      throw new ConversionError({ ...this.at(), path, rule, droppable: true });
    }
    this.dropped.push({ path, what });
  }

  /** An item left out by rule, whatever the options (a model's thought part). */
  drop(path: string, what: string): void {
    this.dropped.push({ path, what });
  }

  /** A fact about the result worth a line of the summary. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** A problem no option can work around. */
  fail(path: string, rule: string): never {
    throw new ConversionError({ ...this.at(), path, rule });
  }

  private at(): { file?: string } {
    return this.file === undefined ? {} : { file: this.file };
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
