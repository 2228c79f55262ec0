import { InputError, formatPath } from './errors.js';

/** Deeper input is refused: no real session nests this far, and deep recursion can exhaust the stack. */
const MAX_JSON_DEPTH = 64;

/** Keys that can reach Object.prototype when input is later merged or spread into other objects. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonSource {
  file?: string;
  /** Set for one JSONL line: syntax errors then report a column on that line. */
  line?: number;
}

/** JSON.parse with an InputError that names the file, the line and the column of a syntax error. */
export function parseJsonText(text: string, source: JsonSource): unknown {
  if (text.trim() === '') throw new InputError({ ...source, rule: 'is empty (expected a JSON object)' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = describeSyntaxError(err);
    // The scanner gives up (stack exhausted) on absurdly deep input; a cut-off text still ends where it ends.
    const offset = findSyntaxErrorOffset(text) ?? (/end of JSON input/i.test(reason) ? text.trimEnd().length : undefined);
    if (offset === undefined) throw new InputError({ ...source, rule: `invalid JSON: ${reason}` });
    const { line, column } = lineAndColumn(text, offset);
    if (source.line !== undefined) {
      throw new InputError({ ...source, rule: `invalid JSON at column ${column}: ${reason}` });
    }
    throw new InputError({ ...source, line, rule: `invalid JSON at column ${column}: ${reason}` });
  }
  assertSafeJson(value, source);
  return value;
}

/** Refuses prototype-polluting keys, excessive nesting and non-finite numbers anywhere in a parsed value. */
export function assertSafeJson(value: unknown, source: JsonSource = {}): void {
  const problem = findUnsafe(value, [], 0);
  if (problem) throw new InputError({ ...source, path: formatPath(problem.path), rule: problem.rule });
}

interface Unsafe {
  path: PropertyKey[];
  rule: string;
}

function findUnsafe(value: unknown, path: PropertyKey[], depth: number): Unsafe | undefined {
  // NaN or Infinity (from code, or a JSON number too large for a double): JSON.stringify would send null without a word.
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return { path, rule: `${value} is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)` };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_JSON_DEPTH) {
    return { path, rule: `nesting is deeper than ${MAX_JSON_DEPTH} levels, which is not allowed` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafe(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) {
      return {
        path: [...path, key],
        rule: 'keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
      };
    }
    const found = findUnsafe((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

function describeSyntaxError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // V8 appends the (possibly huge) source text or a position; we report our own position instead.
  const reason = message
    .replace(/, .*is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ at position \d+.*$/s, '')
    .replace(/ \(line \d+ column \d+\)$/, '')
    // A control or invisible character (a NUL byte, a stray byte-order mark) is named, never written raw.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class ScanStop {
  constructor(readonly offset: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Where JSON.parse gave up. Node 20's messages do not always carry a position, so a small
 * scanner finds the first offending character (only run after a parse already failed).
 */
function findSyntaxErrorOffset(text: string): number | undefined {
  let i = 0;
  const stop = (): never => {
    throw new ScanStop(i);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const expect = (ch: string) => {
    if (text.charAt(i) !== ch) stop();
    i++;
  };
  const string = () => {
    expect('"');
    while (i < text.length) {
      const ch = text.charAt(i);
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        i++;
        const esc = text.charAt(i);
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) stop();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(esc) || esc === '') stop();
      } else if (ch < ' ') stop();
      i++;
    }
    stop();
  };
  const value = (): void => {
    ws();
    const ch = text.charAt(i);
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      ws();
      if (text.charAt(i) === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          ws();
          string();
          ws();
          expect(':');
        }
        value();
        ws();
        if (text.charAt(i) === ',') {
          i++;
          continue;
        }
        expect(close);
        return;
      }
    }
    if (ch === '"') {
      string();
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    stop();
  };
  try {
    value();
    ws();
    if (i < text.length) stop();
    return undefined;
  } catch (err) {
    if (err instanceof ScanStop) return err.offset;
    return undefined; // e.g. stack exhausted on absurd nesting: report without a position
  }
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
