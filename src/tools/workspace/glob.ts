import { compileLinear, type LinearRegex } from './linear-regex.js';

/**
 * A compact glob compiler. Node 20 has no fs.glob (it arrived in Node 22), and a dependency for
 * five operators is not worth it. Supported: `*` (within one path segment), `**` (any number of
 * segments), `?` (one character but '/'), `{a,b}` (alternatives, nestable), `[abc]` / `[!abc]`.
 * Paths are matched whole, with '/' separators, relative to the workspace root. The pattern comes
 * from a model, so it runs on a linear-time engine: `*a*a*a*a*b` cannot backtrack for minutes.
 */
export function compileGlob(glob: string): LinearRegex {
  const pattern = glob.startsWith('./') ? glob.slice(2) : glob;
  try {
    return compileLinear(`^${compile(pattern, 0, false).source}$`);
  } catch (err) {
    throw new Error(`glob ${JSON.stringify(glob)} cannot be compiled: ${(err as Error).message}`);
  }
}

interface Compiled {
  source: string;
  /** Index just past what was consumed (the closing '}' when inside braces). */
  end: number;
}

const REGEX_SPECIAL = /[.+^$()|\\/}\]]/;

function compile(glob: string, start: number, inBraces: boolean): Compiled {
  let source = '';
  let i = start;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (inBraces && (c === ',' || c === '}')) return { source, end: i };
    if (c === '*') {
      const atSegmentStart = i === 0 || glob[i - 1] === '/';
      const next = glob[i + 2];
      if (glob[i + 1] === '*' && atSegmentStart && (next === '/' || next === undefined || (inBraces && (next === ',' || next === '}')))) {
        // `**/` is zero or more whole directories (so `**/x` matches a top-level x); a final `**` is anything.
        source += next === '/' ? '(?:.*/)?' : '.*';
        i += next === '/' ? 3 : 2;
        continue;
      }
      // A `**` that is not a whole segment (`a**b`) behaves like `*`, as in bash without globstar.
      while (glob[i + 1] === '*') i += 1;
      source += '[^/]*';
      i += 1;
    } else if (c === '?') {
      source += '[^/]';
      i += 1;
    } else if (c === '{') {
      const alternatives: string[] = [];
      let j = i + 1;
      let closed = false;
      while (j <= glob.length) {
        const part = compile(glob, j, true);
        alternatives.push(part.source);
        if (glob[part.end] === '}') {
          closed = true;
          j = part.end + 1;
          break;
        }
        if (part.end >= glob.length) break;
        j = part.end + 1;
      }
      if (closed) {
        source += `(?:${alternatives.join('|')})`;
        i = j;
      } else {
        source += '\\{'; // An unclosed brace is a literal, as in bash.
        i += 1;
      }
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        source += '\\[';
        i += 1;
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      source += `[${negate ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close + 1;
    } else {
      source += REGEX_SPECIAL.test(c) ? `\\${c}` : c;
      i += 1;
    }
  }
  return { source, end: i };
}
