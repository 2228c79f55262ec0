import { InputError } from '../input/errors.js';
import type { MessageOrigin } from './summary.js';

/** A validation error in an imported message, told in the source's terms: its line and field. */
export function relocate(err: unknown, origins: readonly (MessageOrigin | undefined)[], file: string | undefined): unknown {
  if (!(err instanceof InputError)) return err;
  const match = /^(?:history|messages)\[(\d+)\](.*)$/.exec(err.path);
  const origin = match ? origins[Number(match[1])] : undefined;
  if (!match || !origin) return err;
  const at = { ...(file === undefined ? {} : { file }), ...(origin.line === undefined ? {} : { line: origin.line }) };
  if (origin.exact) return new InputError({ ...at, path: `${origin.path}${match[2] ?? ''}`, rule: err.rule });
  return new InputError({ ...at, path: origin.path, rule: `${err.path} of the imported session ${err.rule}` });
}
