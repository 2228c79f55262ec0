// Internal: loadTasks (src/session/load.ts), a task file read whole into an array (its public face is streamTasks).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { deepArrays, deepObjects, inputErrorOf, inputRejectionOf } from './fixtures/hostile/errors.js';
import { parseTasks } from '../src/index.js';
import { loadTasks } from '../src/session/load.js';

/*
 * Hostile task files (JSONL): the error names file:line (right after blank lines and CRLF endings)
 * and the field; nothing is half-loaded.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-hostile-tasks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let serial = 0;
function file(content: string | Buffer): string {
  const path = join(tmp, `t${++serial}.jsonl`);
  writeFileSync(path, content);
  return path;
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const GOOD = '{"id":"a","directive":"x"}';
const NEST_RULE = 'nesting is deeper than 64 levels, which is not allowed';
const PROTO_RULE = 'keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)';
const NOT_OBJECT = 'each line must be a JSON object ({ "id", "directive", … })';

describe('task lines: line numbers', () => {
  it('CRLF endings and blank CRLF lines keep the count right', () => {
    const text = [GOOD, '', '   ', '{"id":"b","directive":"y"}', '', '{"id":"c","directive":"z","maxTurns":-3}', ''].join('\r\n');
    const err = inputErrorOf(() => parseTasks(text, 't.jsonl'));
    expect(err.message).toBe('t.jsonl:6: maxTurns: must be a positive integer');
    expect([err.line, err.path]).toEqual([6, 'maxTurns']);
  });

  it('old Mac CR-only endings read as one line and fail on line 1 at the second object', () => {
    const err = inputErrorOf(() => parseTasks(`${GOOD}\r{"id":"b","directive":"y"}`, 't.jsonl'));
    // The CR is JSON whitespace (column 27); the second object starts at column 28.
    expect(err.message).toBe(`t.jsonl:1: invalid JSON at column ${GOOD.length + 2}: unexpected non-whitespace character after JSON`);
  });

  it('a BOM at the start is accepted; one at the start of line 2 is named, not printed', async () => {
    const tasks = await loadTasks(file(`\uFEFF${GOOD}\n{"id":"b","directive":"y"}\n`));
    expect(tasks.map((t) => t.id)).toEqual(['a', 'b']);
    const err = inputErrorOf(() => parseTasks(`${GOOD}\n\uFEFF{"id":"b","directive":"y"}`, 't.jsonl'));
    expect(err.message).toBe("t.jsonl:2: invalid JSON at column 1: unexpected token '\\ufeff'");
  });
});

describe('task lines: not an object', () => {
  it.each([['["a","b"]'], ['"just a directive"'], ['42'], ['null'], ['true']])('%s on line 3', (line) => {
    expect(inputErrorOf(() => parseTasks(`${GOOD}\n\n${line}\n`, 't.jsonl')).message).toBe(`t.jsonl:3: ${NOT_OBJECT}`);
  });
});

describe('task lines: wrong types', () => {
  it.each([
    ['{"id":1,"directive":"x"}', 'id: must be a string, not the number 1'],
    ['{"id":"a","directive":["x"]}', 'directive: must be a string, not an array'],
    ['{"id":"a","directive":null}', 'directive: must be a string, not null'],
    ['{"id":"a","directive":"x","tools":{}}', 'tools: must be an array of tool names or MCP patterns'],
    ['{"id":"a","directive":"x","tools":[1]}', 'tools[0]: must be a string, not the number 1'],
    ['{"id":"a","directive":"x","maxTurns":"3"}', 'maxTurns: must be a positive integer'],
    [
      '{"id":"a","directive":"x","maxTurns":1e400}',
      'maxTurns: Infinity is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
    ['{"id":"a","directive":"x","forkTurns":1e300}', 'forkTurns: must be "all" or a positive integer'],
    ['{"id":"a","directive":"x","history":null}', 'history: must be "inherit" or "completed-turns"'],
  ])('%s', (line, rule) => {
    expect(inputErrorOf(() => parseTasks(`${GOOD.replace('"a"', '"first"')}\n${line}`, 't.jsonl')).message).toBe(`t.jsonl:2: ${rule}`);
  });
});

describe('task lines: hostile structure', () => {
  it('100,000 nested arrays on line 2 is an InputError on line 2, not a RangeError', () => {
    const err = inputErrorOf(() => parseTasks(`${GOOD}\n${deepArrays(100_000)}\n`, 't.jsonl'));
    expect([err.line, err.rule]).toEqual([2, NEST_RULE]);
    expect(err.path).toBe('[0]'.repeat(64));
  });

  it('100,000 nested objects inside outputSchema', () => {
    const line = `{"id":"b","directive":"x","outputSchema":${deepObjects(100_000)}}`;
    const err = inputErrorOf(() => parseTasks(`${GOOD}\n\n${line}`, 't.jsonl'));
    expect(err.message).toBe(`t.jsonl:3: outputSchema${'.a'.repeat(63)}: ${NEST_RULE}`);
  });

  it('100,000 unclosed brackets on line 2: located at the end of that line', () => {
    const err = inputErrorOf(() => parseTasks(`${GOOD}\n${'['.repeat(100_000)}\n${GOOD}`, 't.jsonl'));
    expect(err.message).toBe('t.jsonl:2: invalid JSON at column 100001: unexpected end of JSON input');
  });

  it('__proto__ nested in an outputSchema, on line 4 after CRLF blanks', () => {
    const line = '{"id":"b","directive":"x","outputSchema":{"type":"object","properties":{"__proto__":{"type":"string","polluted":true}}}}';
    const err = inputErrorOf(() => parseTasks([GOOD, '', '', line].join('\r\n'), 't.jsonl'));
    expect(err.message).toBe(`t.jsonl:4: outputSchema.properties.__proto__: ${PROTO_RULE}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('constructor.prototype in a tools list entry', () => {
    const err = inputErrorOf(() =>
      parseTasks('{"id":"a","directive":"x","tools":[{"constructor":{"prototype":{"polluted":1}}}]}', 't.jsonl'),
    );
    expect(err.message).toBe(`t.jsonl:1: tools[0].constructor: ${PROTO_RULE}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('task lines: size and count', () => {
  it('a 16 MiB directive on one line parses', () => {
    const directive = 'd'.repeat(16 * 1024 * 1024);
    const tasks = parseTasks(`${GOOD}\n${JSON.stringify({ id: 'big', directive })}\n`, 't.jsonl');
    expect(tasks[1]?.directive.length).toBe(directive.length);
  });

  it('a 16 MiB line with a syntax error at its end gives a short message, not the line', () => {
    const line = `{"id":"big","directive":"${'d'.repeat(16 * 1024 * 1024)}" oops}`;
    const err = inputErrorOf(() => parseTasks(line, 't.jsonl'));
    expect(err.message).toBe(`t.jsonl:1: invalid JSON at column ${line.length - 4}: expected ',' or '}' after property value`);
  });

  it('100,000 tasks parse, in order', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(JSON.stringify({ id: `t${i}`, directive: `REPLY ${i}` }));
    const tasks = await loadTasks(file(`${lines.join('\n')}\n`));
    expect(tasks).toHaveLength(100_000);
    expect(tasks[0]).toEqual({ id: 't0', directive: 'REPLY 0' });
    expect(tasks[99_999]).toEqual({ id: 't99999', directive: 'REPLY 99999' });
    expect(new Set(tasks.map((t) => t.id)).size).toBe(100_000);
  });

  it('a duplicate id among 100,000 names both lines', () => {
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(JSON.stringify({ id: `t${i === 99_999 ? 5 : i}`, directive: 'x' }));
    expect(inputErrorOf(() => parseTasks(lines.join('\n'), 't.jsonl')).message).toBe(
      't.jsonl:100000: id: "t5" repeats line 6; task ids must be unique',
    );
  });

  it('a file over a configured limit is refused', async () => {
    const path = file(`${GOOD}\n`.repeat(100));
    expect((await inputRejectionOf(loadTasks(path, undefined, { maxBytes: 1024 }))).message).toBe(
      `${path}: is larger than the 1 KiB limit for input files`,
    );
  });
});

describe('task files: invalid UTF-8 names the line', () => {
  it('a bad byte on line 4, after a blank line and CRLF endings', async () => {
    const head = utf8([GOOD, '', '{"id":"b","directive":"y"}', '{"id":"c","directive":"z'].join('\r\n'));
    const path = file(Buffer.concat([head, Buffer.from([0xfe]), utf8('"}\r\n')]));
    const err = await inputRejectionOf(loadTasks(path));
    expect(err.message).toBe(`${path}:4: invalid UTF-8 at byte offset ${head.length} (byte 0xFE); the file must be UTF-8 text`);
    expect(err.line).toBe(4);
  });

  it('on standard input, with the bad sequence split across chunks', async () => {
    const stdin = Readable.from([utf8(`${GOOD}\n{"id":"b","directive":"`), Buffer.from([0xe2, 0x82]), Buffer.from([0x41]), utf8('"}\n')]);
    const err = await inputRejectionOf(loadTasks('-', stdin));
    expect(err.message).toBe(`<stdin>:2: invalid UTF-8 at byte offset ${GOOD.length + 24} (byte 0xE2); the file must be UTF-8 text`);
  });

  it('a multi-byte character split across stdin chunks is decoded whole', async () => {
    const euro = utf8('€');
    const stdin = Readable.from([utf8('{"id":"a","directive":"'), euro.subarray(0, 1), euro.subarray(1), utf8('"}')]);
    expect(await loadTasks('-', stdin)).toEqual([{ id: 'a', directive: '€' }]);
  });
});

describe('task files: standard input and special files', () => {
  it('standard input over the limit is refused and no more is read', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(512, 0x20));
      },
    });
    const err = await inputRejectionOf(loadTasks('-', endless, { maxBytes: 4096 }));
    expect(err.message).toBe('<stdin>: is larger than the 4 KiB limit for input files');
    expect(pulled).toBeLessThan(64);
    expect(endless.destroyed).toBe(true);
  });

  it('a named pipe is refused with the way to pipe tasks in', async () => {
    const fifo = join(tmp, 'tasks.fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await inputRejectionOf(loadTasks(fifo))).message).toBe(
      `${fifo}: is not a regular file (it is a named pipe); to read tasks from a pipe, pass - and pipe them to standard input`,
    );
  });

  it('/dev/zero is refused', async () => {
    expect((await inputRejectionOf(loadTasks('/dev/zero'))).message).toBe(
      '/dev/zero: is not a regular file (it is a character device); to read tasks from a pipe, pass - and pipe them to standard input',
    );
  });
});
