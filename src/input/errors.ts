import { ForkpoolError } from './forkpool-error.js';

/** One problem in a user's input file, located as precisely as we can. */
export interface InputErrorInit {
  /** The file as the user named it ('<stdin>' for standard input). */
  file?: string;
  /** 1-based line number (JSONL lines, or the line of a JSON syntax error). */
  line?: number;
  /** JSON path of the offending value, e.g. `history[3].parts[0].functionCall.name`; '' for the whole document. */
  path?: string;
  /** The rule that was broken, in plain words. */
  rule: string;
}

/**
 * A bad session or task file. The message reads `file:line: path: rule`, leaving out the parts
 * that do not apply, so a user can jump straight to the problem.
 */
export class InputError extends ForkpoolError {
  readonly file?: string;
  readonly line?: number;
  readonly path: string;
  readonly rule: string;

  constructor(init: InputErrorInit) {
    super('invalid_input', formatInputError(init));
    this.name = 'InputError';
    if (init.file !== undefined) this.file = init.file;
    if (init.line !== undefined) this.line = init.line;
    this.path = init.path ?? '';
    this.rule = init.rule;
  }
}

function formatInputError(init: InputErrorInit): string {
  const where: string[] = [];
  if (init.file !== undefined && init.line !== undefined) where.push(`${init.file}:${init.line}`);
  else if (init.file !== undefined) where.push(init.file);
  else if (init.line !== undefined) where.push(`line ${init.line}`);
  if (init.path) where.push(init.path);
  return [...where, init.rule].join(': ');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['history', 3, 'parts', 0, 'text']` → `history[3].parts[0].text`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
