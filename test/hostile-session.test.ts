// Internal: MAX_INPUT_BYTES and invalidUtf8Offset (src/session/read.ts): the loaders' size and UTF-8 refusals are their public face; parseSession and loadSession come through forkpool.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSession, parseSession } from '../src/index.js';
import { MAX_INPUT_BYTES, invalidUtf8Offset } from '../src/session/index.js';
import { deepArrays, deepObjects, inputErrorOf, inputRejectionOf } from './fixtures/hostile/errors.js';
import { geminiSession } from './support/gemini-session.js';

/*
 * Hostile session files: every one ends in an InputError that names the file (and the line, byte
 * offset or JSON path where there is one), never in a RangeError, a hang or a silently changed prefix.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-hostile-session-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
function file(content: string | Buffer): string {
  const path = join(tmp, `s${++serial}.json`);
  writeFileSync(path, content);
  return path;
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const textSession = (text: string): string => JSON.stringify({ model: 'm', history: [{ role: 'user', parts: [{ text }] }] });
const NEST_RULE = 'nesting is deeper than 64 levels, which is not allowed';
const PROTO_RULE = 'keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)';

describe('session file: invalid UTF-8 is refused with the line and byte offset, never replaced', () => {
  it('a stray 0xFF byte inside a text part on line 3', async () => {
    const head = utf8('{\n  "model": "m",\n  "history": [{"role": "user", "parts": [{"text": "ab');
    const path = file(Buffer.concat([head, Buffer.from([0xff]), utf8('cd"}]}]\n}\n')]));
    const err = await inputRejectionOf(loadSession(path));
    expect(err.message).toBe(`${path}:3: invalid UTF-8 at byte offset ${head.length} (byte 0xFF); the file must be UTF-8 text`);
    expect([err.file, err.line, err.path]).toEqual([path, 3, '']);
  });

  it.each([
    ['a multi-byte character cut off at the end of the file', [0xc3]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a lone continuation byte', [0x80]],
  ])('%s', async (_label, bytes) => {
    const head = utf8('{"model":"m","history":[{"role":"user","parts":[{"text":"');
    const path = file(Buffer.concat([head, Buffer.from(bytes), utf8('"}]}]}')]));
    const err = await inputRejectionOf(loadSession(path));
    const hex = (bytes[0] as number).toString(16).toUpperCase();
    expect(err.message).toBe(`${path}:1: invalid UTF-8 at byte offset ${head.length} (byte 0x${hex}); the file must be UTF-8 text`);
  });

  it('valid multi-byte text (accents, CJK, emoji, an escaped NUL) is kept exactly', async () => {
    const text = 'héllo 世界 🧪 \u0000 end';
    const session = geminiSession(await loadSession(file(textSession(text))));
    expect(session.history[0]?.parts[0]?.text).toBe(text);
    expect(Buffer.from(session.history[0]?.parts[0]?.text ?? '', 'utf8').equals(utf8(text))).toBe(true);
  });

  it('invalidUtf8Offset agrees with a strict decoder on every 1- and 2-byte sequence', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    const valid = (bytes: Uint8Array): boolean => {
      try {
        strict.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    let disagreements = 0;
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const bytes = Uint8Array.of(a, b);
        if ((invalidUtf8Offset(bytes) === undefined) !== valid(bytes)) disagreements++;
      }
    }
    expect(disagreements).toBe(0);
    expect(invalidUtf8Offset(utf8('ok 🧪'))).toBeUndefined();
    expect(invalidUtf8Offset(Uint8Array.of(0x61, 0xe2, 0x82))).toBe(1);
  });
});

describe('session file: byte-order marks and NUL bytes', () => {
  it('a BOM-only file and a zero-byte file are empty', async () => {
    const bomOnly = file(Buffer.from([0xef, 0xbb, 0xbf]));
    expect((await inputRejectionOf(loadSession(bomOnly))).message).toBe(`${bomOnly}: is empty (expected a JSON object)`);
    const zero = file('');
    expect((await inputRejectionOf(loadSession(zero))).message).toBe(`${zero}: is empty (expected a JSON object)`);
  });

  it('a raw NUL inside a string is a located JSON error', async () => {
    const path = file('{"model":"m\u0000","history":[]}');
    expect((await inputRejectionOf(loadSession(path))).message).toBe(
      `${path}:1: invalid JSON at column 12: bad control character in string literal`,
    );
  });

  it('a file of NUL bytes names the character instead of printing it raw', async () => {
    const path = file(Buffer.alloc(4096));
    const err = await inputRejectionOf(loadSession(path));
    expect(err.message).toBe(`${path}:1: invalid JSON at column 1: unexpected token '\\u0000'`);
    expect(err.message).not.toContain('\u0000');
  });

  it('NUL padding after a valid object is refused at its column (no duplicated position)', async () => {
    const json = JSON.stringify({ model: 'm', history: [] });
    const path = file(`${json}\u0000\u0000`);
    expect((await inputRejectionOf(loadSession(path))).message).toBe(
      `${path}:1: invalid JSON at column ${json.length + 1}: unexpected non-whitespace character after JSON`,
    );
  });
});

describe('session file: nesting that would exhaust a recursive parser', () => {
  it('100,000 nested arrays as the history is an InputError, not a RangeError', async () => {
    const path = file(`{"model":"m","history":${deepArrays(100_000)}}`);
    const err = await inputRejectionOf(loadSession(path));
    expect(err.rule).toBe(NEST_RULE);
    expect(err.path).toBe(`history${'[0]'.repeat(63)}`);
    expect(err.message).toBe(`${path}: history${'[0]'.repeat(63)}: ${NEST_RULE}`);
  });

  it('100,000 nested objects inside functionCall args', async () => {
    const path = file(`{"model":"m","history":[{"role":"model","parts":[{"functionCall":{"name":"f","args":${deepObjects(100_000)}}}]}]}`);
    const err = await inputRejectionOf(loadSession(path));
    expect(err.rule).toBe(NEST_RULE);
    expect(err.path).toBe(`history[0].parts[0].functionCall.args${'.a'.repeat(58)}`);
  });

  it('100,000 unclosed brackets: a located syntax error at the end', async () => {
    const path = file(`{"model":"m","history":${'['.repeat(100_000)}`);
    const err = await inputRejectionOf(loadSession(path));
    expect(err.message).toBe(`${path}:1: invalid JSON at column ${23 + 100_000 + 1}: unexpected end of JSON input`);
  });

  it('a cyclic object handed to parseSession from code stops at the depth limit', () => {
    const cyclic: { model: string; history: unknown[] } = { model: 'm', history: [] };
    cyclic.history.push({ role: 'user', parts: [{ text: 'x', self: cyclic }] });
    const err = inputErrorOf(() => parseSession(cyclic, 'code'));
    expect(err.rule).toBe(NEST_RULE);
    expect(err.path.startsWith('history[0].parts[0].self.history[0].parts[0].self.')).toBe(true);
  });
});

describe('session file: size', () => {
  it('a 64 MiB text part loads whole', async () => {
    const big = 'x'.repeat(64 * 1024 * 1024);
    const session = geminiSession(await loadSession(file(textSession(big))));
    expect(session.history[0]?.parts[0]?.text?.length).toBe(big.length);
  });

  it(`a file over the ${MAX_INPUT_BYTES / 1024 / 1024} MiB default limit is refused before it is read`, async () => {
    expect(MAX_INPUT_BYTES).toBe(256 * 1024 * 1024);
    const path = file('');
    truncateSync(path, MAX_INPUT_BYTES + 1); // sparse: no disk space, no time
    expect((await inputRejectionOf(loadSession(path))).message).toBe(`${path}: is larger than the 256 MiB limit for input files`);
  });

  it('a configurable limit: exactly at it loads, one byte over is refused', async () => {
    const json = textSession('y'.repeat(1000));
    const path = file(json);
    expect(geminiSession(await loadSession(path, { maxBytes: json.length })).history).toHaveLength(1);
    expect((await inputRejectionOf(loadSession(path, { maxBytes: json.length - 1 }))).message).toBe(
      `${path}: is larger than the ${json.length - 1}-byte limit for input files`,
    );
    expect((await inputRejectionOf(loadSession(path, { maxBytes: 1024 }))).message).toBe(
      `${path}: is larger than the 1 KiB limit for input files`,
    );
  });
});

describe('session file: wrong types at every level', () => {
  it.each([
    ['"just a string"', 'a session must be a JSON object ({ "model", "history", … })'],
    ['42', 'a session must be a JSON object ({ "model", "history", … })'],
    ['null', 'a session must be a JSON object ({ "model", "history", … })'],
    ['{"model":7,"history":[]}', 'model: must be a string, not the number 7'],
    ['{"model":"m","history":{}}', 'history: must be an array of messages ({ "role", "parts" })'],
    ['{"model":"m","history":"hi"}', 'history: must be an array of messages ({ "role", "parts" })'],
    ['{"model":"m","history":["hi"]}', 'history[0]: must be a JSON object, not a string'],
    ['{"model":"m","history":[null]}', 'history[0]: must be a JSON object, not null'],
    ['{"model":"m","history":[{"role":1,"parts":[{"text":"x"}]}]}', 'history[0].role: must be "user" or "model"'],
    ['{"model":"m","history":[{"role":"user","parts":"hello"}]}', 'history[0].parts: must be an array, not a string'],
    ['{"model":"m","history":[{"role":"user","parts":["hello"]}]}', 'history[0].parts[0]: must be a JSON object, not a string'],
    [
      '{"model":"m","history":[{"role":"model","parts":[{"functionCall":"f"}]}]}',
      'history[0].parts[0].functionCall: must be a JSON object, not a string',
    ],
    [
      '{"model":"m","history":[{"role":"model","parts":[{"functionCall":{"name":5}}]}]}',
      'history[0].parts[0].functionCall.name: must be a string, not the number 5',
    ],
    [
      '{"model":"m","history":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":"ok"}}]}]}',
      'history[0].parts[0].functionResponse.response: must be a JSON object',
    ],
    ['{"model":"m","history":[],"tools":{}}', 'tools: must be an array, not an object'],
    ['{"model":"m","history":[],"tools":["f"]}', 'tools[0]: must be a JSON object, not a string'],
    ['{"model":"m","history":[],"tools":[{"functionDeclarations":"f"}]}', 'tools[0].functionDeclarations: must be an array, not a string'],
    ['{"model":"m","history":[],"systemInstruction":"be nice"}', 'systemInstruction: must be a JSON object, not a string'],
    ['{"model":"m","history":[],"toolConfig":[]}', 'toolConfig: must be a JSON object, not an array'],
    ['{"model":"m","history":[],"generationConfig":null}', 'generationConfig: must be a JSON object, not null'],
  ])('%s', async (json, rule) => {
    const path = file(json);
    expect((await inputRejectionOf(loadSession(path))).message).toBe(`${path}: ${rule}`);
  });
});

describe('session file: prototype-pollution keys deep inside', () => {
  it.each([
    [
      '{"model":"m","history":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"opts":{"__proto__":{"polluted":1}}}}}]}]}',
      'history[0].parts[0].functionCall.args.opts.__proto__',
    ],
    [
      '{"model":"m","history":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"list":[{"x":1},{"constructor":{"prototype":{"polluted":1}}}]}}}]}]}',
      'history[0].parts[0].functionCall.args.list[1].constructor',
    ],
    [
      '{"model":"m","history":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":{"prototype":{}}}}}]}]}',
      'history[0].parts[0].functionResponse.response.output.prototype',
    ],
    [
      '{"model":"m","history":[],"generationConfig":{"responseSchema":{"properties":{"__proto__":{"type":"string"}}}}}',
      'generationConfig.responseSchema.properties.__proto__',
    ],
  ])('%s', async (json, path) => {
    const at = file(json);
    const err = await inputRejectionOf(loadSession(at));
    expect(err.message).toBe(`${at}: ${path}: ${PROTO_RULE}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('the same words as values, or as look-alike keys, are ordinary data', async () => {
    const json =
      '{"model":"m","history":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"__proto__ ":1,"Constructor":2,"note":"__proto__"}}}]}]}';
    const session = geminiSession(await loadSession(file(json)));
    expect(session.history[0]?.parts[0]?.functionCall?.args).toEqual({ '__proto__ ': 1, Constructor: 2, note: '__proto__' });
  });
});

describe('session file: not a regular file', () => {
  it('/dev/zero is refused without reading (it never ends)', async () => {
    expect((await inputRejectionOf(loadSession('/dev/zero'))).message).toBe('/dev/zero: is not a regular file (it is a character device)');
  });

  it('a named pipe with no writer is refused without opening it (that would block forever)', async () => {
    const fifo = join(tmp, 'session.fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await inputRejectionOf(loadSession(fifo))).message).toBe(`${fifo}: is not a regular file (it is a named pipe)`);
  });

  it('a symlink loop and an over-long path are named, not echoed back at length', async () => {
    const loop = join(tmp, 'loop.json');
    symlinkSync(loop, loop);
    expect((await inputRejectionOf(loadSession(loop))).message).toBe(`${loop}: cannot be read (too many levels of symbolic links)`);
    const long = join(tmp, 'x'.repeat(10_000));
    const err = await inputRejectionOf(loadSession(long));
    expect(err.message).toBe(`${long}: cannot be read (the path is too long)`);
  });

  it('a path through a regular file is "not found"', async () => {
    const through = join(file('{}'), 'inner.json');
    expect((await inputRejectionOf(loadSession(through))).message).toBe(
      `${through}: file not found (a parent in the path is not a directory)`,
    );
  });
});
