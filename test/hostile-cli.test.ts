import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, offlineEnv, runCli, type CliRun } from './fixtures/cli/run-cli.js';

/*
 * Hostile flags and inputs through the BUILT CLI (npm run build first): junk numbers, repeated and
 * huge flag values, non-UTF-8 argv, devices and FIFOs as files, invalid UTF-8 on stdin. Each exits
 * 2 with one `forkpool: …` line on stderr, nothing on stdout, and no hang.
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-hostile-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

const TASKS = file('tasks.jsonl', '{"id":"a","directive":"REPLY a"}\n');

/** Exit 2, nothing on stdout, exactly one `forkpool: ` line on stderr (returned). */
function rejected(run: CliRun): string {
  expect(run.code).toBe(2);
  expect(run.signal).toBeNull();
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]?.startsWith('forkpool: ')).toBe(true);
  return lines[0] as string;
}

const run = (...flags: string[]): Promise<CliRun> => runCli(['run', '--session', SESSION, '--tasks', TASKS, ...flags]);

/** Runs the CLI through /bin/sh so argv can carry bytes that are not UTF-8 (printf escapes in `script`). */
function runShell(script: string, stdin: Buffer = Buffer.alloc(0)): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { cwd: REPO_ROOT, env: { ...offlineEnv(), CLI }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('forkpool run: numbers with junk', () => {
  it.each([
    [['--threads', '2x'], 'forkpool: --threads: must be a positive integer (got "2x")'],
    [['--threads=-1'], 'forkpool: --threads: must be a positive integer (got "-1")'],
    [['--threads', '0'], 'forkpool: --threads: must be a positive integer (got "0")'],
    [['--threads', '1.5'], 'forkpool: --threads: must be a positive integer (got "1.5")'],
    [['--threads', ' 2'], 'forkpool: --threads: must be a positive integer (got " 2")'],
    [['--threads', '０２'], 'forkpool: --threads: must be a positive integer (got "０２")'],
    [['--concurrency', '1e9'], 'forkpool: --concurrency: must be a positive integer (got "1e9")'],
    [['--concurrency', '0x10'], 'forkpool: --concurrency: must be a positive integer (got "0x10")'],
    [['--concurrency', '99999999999999999999'], 'forkpool: --concurrency: must be a positive integer (got "99999999999999999999")'],
    [['--timeout-ms', ''], 'forkpool: --timeout-ms: must be a positive integer (got "")'],
    [['--timeout-ms='], 'forkpool: --timeout-ms: must be a positive integer (got "")'],
    [['--max-turns', 'NaN'], 'forkpool: --max-turns: must be a positive integer (got "NaN")'],
    [['--min-cache-tokens', '5k'], 'forkpool: --min-cache-tokens: must be a non-negative integer (got "5k")'],
  ])('%j', async (flags, message) => {
    expect(rejected(await run(...flags))).toBe(message);
  });

  it('a negative number after a space is the value, refused as 0 is (not "ambiguous"); a dash word is still an option', async () => {
    expect(rejected(await run('--threads', '-1'))).toBe('forkpool: --threads: must be a positive integer (got "-1")');
    expect(rejected(await run('--threads', '-.5'))).toBe('forkpool: --threads: must be a positive integer (got "-.5")');
    const result = await run('--threads', '-x');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^forkpool: Option '--threads' argument is ambiguous/);
  });
});

describe('forkpool run: repeated and huge flag values', () => {
  it('a value flag given twice is refused, whichever value came last', async () => {
    const missing = join(tmp, 'second-session.json');
    expect(rejected(await runCli(['run', '--session', SESSION, '--session', missing, '--tasks', TASKS]))).toBe(
      'forkpool: --session is given twice; give it once',
    );
    expect(rejected(await run('--output-format', 'json', '--output-format', 'json'))).toBe(
      'forkpool: --output-format is given twice; give it once',
    );
  });

  it('a 100,000-digit --threads is refused, quoting only the start of it', async () => {
    const digits = '9'.repeat(100_000);
    expect(rejected(await run('--threads', digits))).toBe(
      `forkpool: --threads: must be a positive integer (got "${'9'.repeat(80)}"… (100000 characters))`,
    );
  });

  it('more threads than the engine allows is refused with what to do instead', async () => {
    expect(rejected(await run('--threads', '100000'))).toBe(
      'forkpool: --threads: at most 256 (got 100000); forks wait on the network, so raise --concurrency instead',
    );
  });

  it('a 100,000-character --session path is named as too long', async () => {
    const long = `/tmp/${'s'.repeat(100_000)}.json`;
    expect(rejected(await runCli(['run', '--session', long, '--tasks', TASKS]))).toBe(
      `forkpool: ${long}: cannot be read (the path is too long)`,
    );
  });

  it('a 100,000-character unknown flag is refused', async () => {
    const flag = `--${'x'.repeat(100_000)}`;
    expect(rejected(await run(flag))).toBe(`forkpool: unknown flag ${flag}; see forkpool run --help`);
  });
});

describe('forkpool run: argv that is not UTF-8', () => {
  it('a --session path with bytes 0xFF 0xFE arrives as replacement characters and is not found', async () => {
    // Node decodes argv as UTF-8, so a file really named with these bytes cannot be reached; the error says which path it looked for.
    const result = await runShell(`exec node "$CLI" run --session "$(printf '\\377\\376.json')" --tasks ${TASKS}`);
    expect(rejected(result)).toBe('forkpool: \uFFFD\uFFFD.json: file not found');
  });

  it('a flag value with an invalid byte is echoed with a replacement character', async () => {
    const result = await runShell(`exec node "$CLI" run --session ${SESSION} --tasks ${TASKS} --output-format "$(printf 'js\\377on')"`);
    expect(rejected(result)).toBe('forkpool: --output-format: must be one of text, json, stream-json (got "js\uFFFDon")');
  });
});

describe('forkpool run: files that are not regular files', () => {
  it('--session /dev/zero is refused at once (no endless read)', async () => {
    expect(rejected(await runCli(['run', '--session', '/dev/zero', '--tasks', TASKS]))).toBe(
      'forkpool: /dev/zero: is not a regular file (it is a character device)',
    );
  });

  it('--session and --tasks naming a FIFO with no writer are refused (no hang)', async () => {
    const fifo = join(tmp, 'input.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(rejected(await runCli(['run', '--session', fifo, '--tasks', TASKS]))).toBe(
      `forkpool: ${fifo}: is not a regular file (it is a named pipe)`,
    );
    expect(rejected(await runCli(['run', '--session', SESSION, '--tasks', fifo]))).toBe(
      `forkpool: ${fifo}: is not a regular file (it is a named pipe); to read tasks from a pipe, pass - and pipe them to standard input`,
    );
  });

  it('--tools naming a FIFO is refused', async () => {
    const fifo = join(tmp, 'tools.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(rejected(await run('--tools', fifo))).toBe(`forkpool: --tools: tools module ${JSON.stringify(fifo)}: not a file (${fifo})`);
  });

  it('--session naming a directory is refused', async () => {
    expect(rejected(await runCli(['run', '--session', tmp, '--tasks', TASKS]))).toBe(`forkpool: ${tmp}: is a directory, not a file`);
  });
});

describe('forkpool run: hostile file contents', () => {
  it('a session with an invalid UTF-8 byte names the file, line and byte offset', async () => {
    const head = Buffer.from('{\n"model": "gemini-2.5-flash",\n"history": [{"role": "user", "parts": [{"text": "x');
    const session = file('bad-utf8.json', Buffer.concat([head, Buffer.from([0xc3, 0x28]), Buffer.from('"}]}]}\n')]));
    expect(rejected(await runCli(['run', '--session', session, '--tasks', TASKS]))).toBe(
      `forkpool: ${session}:3: invalid UTF-8 at byte offset ${head.length} (byte 0xC3); the file must be UTF-8 text`,
    );
  });

  it('tasks on stdin with an invalid UTF-8 byte on line 3 name <stdin>:3', async () => {
    // The first task: a bad line after good ones stops a run that has started (test/cli-stream.test.ts).
    const head = Buffer.from('\r\n\r\n{"id":"b","directive":"REPLY ');
    const result = await runShell(
      `exec node "$CLI" run --session ${SESSION} --tasks -`,
      Buffer.concat([head, Buffer.from([0xff]), Buffer.from('"}\n')]),
    );
    expect(rejected(result)).toBe(
      `forkpool: <stdin>:3: invalid UTF-8 at byte offset ${head.length} (byte 0xFF); the file must be UTF-8 text`,
    );
  });

  it('a session nested 100,000 deep is a located InputError, not a crash', async () => {
    const session = file('deep.json', `{"model":"m","history":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(rejected(await runCli(['run', '--session', session, '--tasks', TASKS]))).toBe(
      `forkpool: ${session}: history${'[0]'.repeat(63)}: nesting is deeper than 64 levels, which is not allowed`,
    );
  });

  it('a task line with __proto__ deep in outputSchema is refused on its line', async () => {
    const tasks = file('proto.jsonl', '\n{"id":"b","directive":"REPLY b","outputSchema":{"properties":{"__proto__":{"polluted":true}}}}\n');
    expect(rejected(await runCli(['run', '--session', SESSION, '--tasks', tasks]))).toBe(
      `forkpool: ${tasks}:2: outputSchema.properties.__proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)`,
    );
  });
});
