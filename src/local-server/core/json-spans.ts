/**
 * Where the top-level members of a JSON body, and the elements of one array member, lie in the
 * bytes that were sent: what each prompt unit is remembered by (core/prefix-memo.ts). Strings,
 * most of a prompt's bytes, are skipped with Buffer#indexOf (native) rather than byte by byte, so
 * finding the spans costs far less than rendering or hashing what they hold.
 *
 * Reads text that JSON.parse has accepted; anything it does not expect (a key with escapes, which
 * would need decoding to compare) gives undefined, and the request is then hashed in full.
 */

export interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

export interface BodySpans {
  /** Each top-level member's value; of duplicate keys the last, as JSON.parse keeps. */
  members: Map<string, Span>;
  /** The elements of the member named by `arrayKey`, when it is an array. */
  elements: Span[] | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(bytes: Buffer, i: number): number {
  while (isSpace(bytes[i])) i++;
  return i;
}

/** End of the string opening at `i` (just past its closing quote), -1 when unterminated. */
function stringEnd(bytes: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let k = quote - 1;
    while (bytes[k] === BACKSLASH) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** End of the value starting at `i`, -1 when it does not end. */
function valueEnd(bytes: Buffer, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < bytes.length; ) {
      const c = bytes[j];
      if (c === QUOTE) {
        j = stringEnd(bytes, j);
        if (j < 0) return -1;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return j + 1;
      j++;
    }
    return -1;
  }
  let j = i;
  while (j < bytes.length) {
    const c = bytes[j];
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
    j++;
  }
  return j > i ? j : -1;
}

/** The elements of the array opening at `i`, and its end. */
function arrayElements(bytes: Buffer, i: number): { elements: Span[]; end: number } | undefined {
  const elements: Span[] = [];
  let at = skipSpace(bytes, i + 1);
  if (bytes[at] === CLOSE_ARRAY) return { elements, end: at + 1 };
  for (;;) {
    const end = valueEnd(bytes, at);
    if (end < 0) return undefined;
    elements.push({ start: at, end });
    at = skipSpace(bytes, end);
    if (bytes[at] === CLOSE_ARRAY) return { elements, end: at + 1 };
    if (bytes[at] !== COMMA) return undefined;
    at = skipSpace(bytes, at + 1);
  }
}

function hasEscape(bytes: Buffer, start: number, end: number): boolean {
  const at = bytes.indexOf(BACKSLASH, start);
  return at >= 0 && at < end;
}

export function bodySpans(bytes: Buffer, arrayKey: string): BodySpans | undefined {
  const members = new Map<string, Span>();
  let elements: Span[] | undefined;
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_OBJECT) return undefined;
  at = skipSpace(bytes, at + 1);
  if (bytes[at] === CLOSE_OBJECT) return { members, elements };
  for (;;) {
    if (bytes[at] !== QUOTE) return undefined;
    const keyEnd = stringEnd(bytes, at);
    if (keyEnd < 0 || hasEscape(bytes, at, keyEnd)) return undefined;
    const key = bytes.toString('utf8', at + 1, keyEnd - 1);
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== COLON) return undefined;
    at = skipSpace(bytes, at + 1);
    let end: number;
    if (key === arrayKey && bytes[at] === OPEN_ARRAY) {
      const array = arrayElements(bytes, at);
      if (!array) return undefined;
      ({ elements, end } = array);
    } else {
      end = valueEnd(bytes, at);
      if (key === arrayKey) elements = undefined;
    }
    if (end < 0) return undefined;
    members.set(key, { start: at, end });
    at = skipSpace(bytes, end);
    if (bytes[at] === CLOSE_OBJECT) return { members, elements };
    if (bytes[at] !== COMMA) return undefined;
    at = skipSpace(bytes, at + 1);
  }
}

export function bytesOf(bytes: Buffer, span: Span | undefined): Uint8Array | undefined {
  return span ? bytes.subarray(span.start, span.end) : undefined;
}

/** The elements' bytes, when they are as many as the parsed array holds (else the spans would not match it). */
export function elementBytes(bytes: Buffer, spans: BodySpans | undefined, count: number): Uint8Array[] | undefined {
  const elements = spans?.elements;
  if (!elements || elements.length !== count) return undefined;
  return elements.map((span) => bytes.subarray(span.start, span.end));
}
