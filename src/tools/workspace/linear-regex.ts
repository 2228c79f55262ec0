import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

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

/** re2js (about 20 ms of CPU to load), loaded at the first pattern compiled rather than with the package: most runs never grep. */
let re2js: typeof RE2JS | undefined;

function loadRe2js(): typeof RE2JS {
  re2js ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return re2js;
}

/** Compiles RE2 syntax (JavaScript's, without lookaround or backreferences); throws SyntaxError naming the problem. */
export function compileLinear(source: string, options: { ignoreCase?: boolean } = {}): LinearRegex {
  const RE2 = loadRe2js();
  let compiled: RE2JS;
  try {
    compiled = RE2.compile(source, options.ignoreCase === true ? RE2.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new SyntaxError((err as Error).message.replace(/^error parsing regexp: /, ''));
  }
  return { source, test: (input) => compiled.test(input) };
}
