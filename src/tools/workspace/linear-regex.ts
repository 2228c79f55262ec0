import { RE2JS } from 're2js';

/**
 * A regular expression that matches in time linear in its input (RE2's automata, in pure
 * JavaScript): a model's pattern runs on the main thread, and a backtracking engine would let one
 * pattern such as `^(a+)+$` stall every fork for seconds.
 */
export interface LinearRegex {
  readonly source: string;
  /** Whether the pattern matches anywhere in `input` (like RegExp.prototype.test, unanchored). */
  test(input: string): boolean;
}

/** Compiles RE2 syntax (JavaScript's, without lookaround or backreferences); throws SyntaxError naming the problem. */
export function compileLinear(source: string, options: { ignoreCase?: boolean } = {}): LinearRegex {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new SyntaxError((err as Error).message.replace(/^error parsing regexp: /, ''));
  }
  return { source, test: (input) => compiled.test(input) };
}
