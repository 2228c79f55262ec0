import { InputError } from '../../src/input/errors.js';

/** The InputError `fn` throws (any other error is rethrown; none fails the test). */
export function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}
