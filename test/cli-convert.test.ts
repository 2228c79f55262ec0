import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';
import { parseSession } from '../src/index.js';

/*
 * `forkpool convert`, spawned as a user runs it (the built CLI; `npm test` builds first).
 * Exit 0 converted, 2 not converted (bad usage, an invalid session, or one that cannot be converted).
 */

const EXAMPLE = 'examples/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-convert-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, value: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

const WITH_IMAGE = {
  model: 'gemini-2.5-flash',
  history: [
    { role: 'user', parts: [{ text: 'what is this?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
    { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: 'A square.' }] },
  ],
};

describe('forkpool convert', () => {
  it('writes the converted session to stdout and a one-line summary to stderr', async () => {
    const run = await runCli(['convert', EXAMPLE, '--to', 'openai-chat']);
    expect(run.code).toBe(0);
    const session = JSON.parse(run.stdout) as { format: string };
    expect(session.format).toBe('openai-chat');
    expect(parseSession(session)).toBe(session);
    expect(run.stderr).toBe(`forkpool: converted ${EXAMPLE} from gemini to openai-chat: 18 messages → 20, 4 tools, nothing dropped\n`);
  });

  it('--out writes a file; - reads stdin; there and back gives the example byte for byte', async () => {
    const out = join(tmp, 'chat.json');
    const there = await runCli(['convert', EXAMPLE, '--to', 'openai-chat', '--out', out]);
    expect(there.code).toBe(0);
    expect(there.stdout).toBe('');
    const back = await runCli(['convert', '-', '--to', 'gemini'], { input: readFileSync(out, 'utf8') });
    expect(back.code).toBe(0);
    expect(back.stdout).toBe(readFileSync(EXAMPLE, 'utf8'));
    expect(back.stderr).toBe('forkpool: converted <stdin> from openai-chat to gemini: 20 messages → 18, 4 tools, nothing dropped\n');
  });

  it('what cannot be converted: exit 2, the path named, nothing written', async () => {
    const path = file('image.json', WITH_IMAGE);
    const out = join(tmp, 'never.json');
    const run = await runCli(['convert', path, '--to', 'openai-chat', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `forkpool: ${path}: history[0].parts[1]: inlineData cannot be converted to openai-chat (--drop-unsupported leaves it out)\n`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('--drop-unsupported leaves such items out and lists them', async () => {
    const path = file('image-dropped.json', WITH_IMAGE);
    const run = await runCli(['convert', path, '--to', 'openai-chat', '--drop-unsupported']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      format: 'openai-chat',
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'what is this?' },
        { role: 'assistant', content: 'A square.' },
      ],
    });
    expect(run.stderr).toBe(
      [
        `forkpool: converted ${path} from gemini to openai-chat: 2 messages → 2, 0 tools, 2 items dropped:`,
        '  history[0].parts[1]: inlineData',
        '  history[1].parts[0]: thought',
        '',
      ].join('\n'),
    );
  });

  it('an invalid session exits 2 with file: path: rule', async () => {
    const path = file('bad.json', { model: 'm', history: [{ role: 'assistant', parts: [{ text: 'x' }] }] });
    const run = await runCli(['convert', path, '--to', 'openai-chat']);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: ${path}: history[0].role: must be "user" or "model"\n` });
  });

  it.each<[string[], string]>([
    [['convert', EXAMPLE], 'forkpool: convert: --to gemini|openai-chat|openai-responses|anthropic-messages|ai-sdk is required'],
    [
      ['convert', EXAMPLE, '--to', 'anthropic'],
      'forkpool: convert: --to must be gemini, openai-chat, openai-responses, anthropic-messages or ai-sdk, not "anthropic"',
    ],
    [['convert', '--to', 'gemini'], 'forkpool: convert: the SESSION file is required (- reads standard input)'],
    [['convert', EXAMPLE, EXAMPLE, '--to', 'gemini'], `forkpool: convert: takes one SESSION file; "${EXAMPLE}" is one too many`],
    [['convert', EXAMPLE, '--to', 'gemini', '--frobnicate'], 'forkpool: unknown flag --frobnicate; see forkpool convert --help'],
  ])('usage error: %j', async (args, message) => {
    const run = await runCli(args);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('converting to the shape the session already has exits 2', async () => {
    const run = await runCli(['convert', EXAMPLE, '--to', 'gemini']);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: ${EXAMPLE}: is already a gemini session; nothing to convert\n` });
  });

  it('every pair of shapes, with and without --drop-unsupported: converted (exit 0) or one line saying what and why (exit 2), never a crash', async () => {
    const examples = {
      gemini: EXAMPLE,
      'openai-chat': 'examples/openai-session.json',
      'openai-responses': 'examples/responses-session.json',
      'anthropic-messages': 'examples/anthropic-session.json',
      'ai-sdk': 'examples/ai-sdk-session.json',
    };
    const pairs = Object.entries(examples).flatMap(([from, path]) =>
      Object.keys(examples).flatMap((to) =>
        [[], ['--drop-unsupported']].map((drop) => ({ from, path, to, drop, out: join(tmp, `pair-${from}-${to}-${drop.length}.json`) })),
      ),
    );
    // Five processes at a time: every pair in one test, in the time of a few.
    const runs: Awaited<ReturnType<typeof runCli>>[] = [];
    for (let i = 0; i < pairs.length; i += 5) {
      runs.push(
        ...(await Promise.all(
          pairs.slice(i, i + 5).map(({ path, to, out, drop }) => runCli(['convert', path, '--to', to, '--out', out, ...drop])),
        )),
      );
    }
    pairs.forEach(({ from, path, to, drop, out }, i) => {
      const run = runs[i] as Awaited<ReturnType<typeof runCli>>;
      const pair = `${from} → ${to}${drop.length ? ' --drop-unsupported' : ''}`;
      const lines = run.stderr.trim().split('\n');
      if (from === 'gemini' && to === 'anthropic-messages' && drop.length === 0) {
        // The example's temperature: refused for Anthropic sessions.
        expect(run.stderr, pair).toBe(
          `forkpool: ${path}: generationConfig: temperature cannot be converted to anthropic-messages: forkpool refuses sampling fields in Anthropic sessions: the API version it sends answers them with a 400 error (--drop-unsupported leaves it out)\n`,
        );
      } else if (from === to) {
        expect(run.stderr, pair).toBe(`forkpool: ${path}: is already a ${to} session; nothing to convert\n`);
      } else if (run.code === 2 && drop.length === 0) {
        // What the target cannot represent, by its path in the source, and the way around it.
        expect(run.stderr, pair).toMatch(
          new RegExp(`^forkpool: ${path}: .* cannot be converted to ${to}.*\\(--drop-unsupported leaves it out\\)\n$`),
        );
      } else {
        expect(run.code, pair).toBe(0);
        expect(parseSession(JSON.parse(readFileSync(out, 'utf8')), out), pair).toMatchObject(
          to === 'gemini' ? { history: expect.any(Array) } : { format: to },
        );
        expect(lines[0], pair).toMatch(new RegExp(`^forkpool: converted ${path} from ${from} to ${to}: `));
        return;
      }
      expect(run.code, pair).toBe(2);
      expect(lines, pair).toHaveLength(1);
      expect(existsSync(out), pair).toBe(false);
    });
  }, 300_000);

  it('convert and import: an --out in a directory that does not exist is a usage error naming --out', async () => {
    const missing = join(tmp, 'missing', 'x.json');
    const [convert, imported] = await Promise.all([
      runCli(['convert', EXAMPLE, '--to', 'openai-chat', '--out', missing]),
      runCli(['import', EXAMPLE, '--out', missing]),
    ]);
    for (const run of [convert, imported])
      expect(run).toMatchObject({ code: 2, stdout: '', stderr: `forkpool: --out: cannot write ${missing}: its folder does not exist\n` });
  });

  it('--help lists its flags; forkpool --help lists the command', async () => {
    const [help, top] = await Promise.all([runCli(['convert', '--help']), runCli(['--help'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: forkpool convert SESSION\|- --to SHAPE /);
    expect(help.stdout).toContain('SHAPE:\ngemini, openai-chat, openai-responses, anthropic-messages, ai-sdk.');
    for (const flag of ['--to', '--out', '--drop-unsupported', '--help']) expect(help.stdout).toContain(flag);
    expect(top.stdout).toContain('forkpool convert SESSION --to SHAPE');
  });

  it('convertSession is exported from the forkpool entry point', async () => {
    const root = await import('forkpool');
    expect(typeof root.convertSession).toBe('function');
    expect(root).toHaveProperty('ConversionError');
  });
});
