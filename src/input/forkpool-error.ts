/** The mark every error forkpool throws to its callers carries (a registered symbol: it holds across copies of the package). */
const MARKER = Symbol.for('forkpool.error');

/** What went wrong, in a word a caller can switch on; the message says it in full. */
export type ForkpoolErrorCode =
  /** The engine was closed: it starts no more forks. */
  | 'engine_closed'
  /** A session, task or other input broke a rule (InputError: file, line, path, rule). */
  | 'invalid_input'
  /** An option is unknown or its value is wrong (a TypeError or RangeError, marked). */
  | 'invalid_option'
  /** `results()` of a run that keeps no results (`retainResults: false`). */
  | 'results_not_retained'
  /** `ForkEngine.create` with `startThreads: 'ahead'`: a worker thread failed to start, or did not start in time. */
  | 'thread_start_failed';

/**
 * forkpool's errors: each has a stable `code`, and `ForkpoolError.isInstance(e)` tells them apart
 * from any other error, also when two copies of forkpool are loaded (instanceof would not).
 */
export class ForkpoolError extends Error {
  readonly code: ForkpoolErrorCode;

  constructor(code: ForkpoolErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ForkpoolError';
    this.code = code;
    Object.defineProperty(this, MARKER, { value: true, enumerable: false });
  }

  /** Whether `error` is one of forkpool's errors (marked, whatever its class). */
  static isInstance(error: unknown): error is ForkpoolError {
    return typeof error === 'object' && error !== null && (error as { [MARKER]?: unknown })[MARKER] === true;
  }
}

/**
 * Marks an error of a built-in class (a TypeError or RangeError a caller may test with instanceof)
 * as one of forkpool's, with its code.
 */
export function markForkpool<E extends Error>(error: E, code: ForkpoolErrorCode): E & { readonly code: ForkpoolErrorCode } {
  Object.defineProperty(error, MARKER, { value: true, enumerable: false });
  Object.defineProperty(error, 'code', { value: code, enumerable: true });
  return error as E & { readonly code: ForkpoolErrorCode };
}
