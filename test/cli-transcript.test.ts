// Internal: transcriptCommand (src/cli/transcript-command.ts), `forkpool transcript` run in-process for the torn-line case: no entry point exports a command; the transcripts themselves come from forks run through forkpool.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkResult, type ParentSession } from '../src/index.js';
import { transcriptCommand } from '../src/cli/transcript-command.js';
import type { CliIo } from '../src/cli/io.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { anthropicSession, openAIChatSession, parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * `forkpool transcript FILE`: real transcripts, written by forks run on the local simulator, read
 * back by the built CLI (`npm test` builds first) as a person reads them.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-transcript-'));
const dir = join(tmp, 'transcripts');
const log: ToolLog = { calls: [] };
const tools = testTools(log);
const SHAPES: [name: string, session: ParentSession][] = [
  ['gemini', parentSession(tools)],
  ['openai-chat', openAIChatSession(tools)],
  ['anthropic-messages', anthropicSession(tools)],
  ['openai-responses', responsesSession()],
];
/** The same parent in the Responses API's shape: instructions, function tools, input items. */
function responsesSession(): ParentSession {
  return {
    format: 'openai-responses',
    model: 'gpt-4.1-mini',
    instructions: 'You are a research agent.',
    input: [
      { role: 'user', content: 'Look into the cache.' },
      { role: 'assistant', content: 'I looked into it; the cache is keyed by prefix.' },
    ],
    tools: tools.map((t) => ({
      type: 'function',
      name: t.declaration.name,
      description: t.declaration.description,
      parameters: t.declaration.parametersJsonSchema,
      strict: false,
    })),
  } as ParentSession;
}

/** The fork's result per task id: the engine's own figures, to hold the printed totals to. */
const results = new Map<string, ForkResult>();
/** A reply that would retitle the terminal and turn it red, were it printed as it is. */
const ESCAPES = '\u001b]0;pwned\u0007 \u001b[31mred';
const directive = (shape: string): string =>
  `Look up alpha for ${shape}.\nCALL lookup {"key":"alpha"}\nREPLY alpha is value-of-alpha (${shape})`;

beforeAll(async () => {
  const engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1, tools });
  try {
    for (const [shape, session] of SHAPES) {
      const prefix = engine.freeze(session);
      const tasks = [
        { id: `t-${shape}`, directive: directive(shape) },
        ...(shape === 'gemini' ? [{ id: 'escapes', directive: `REPLY ${ESCAPES}` }] : []),
      ];
      for (const result of await engine.fanOut(prefix, tasks, { transcripts: { dir } }).results()) results.set(result.id, result);
    }
  } finally {
    await engine.close();
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const fileOf = (shape: string): string => join(dir, `t-${shape}.jsonl`);
const num = (n: number): string => n.toLocaleString('en-US');
type Usage = { promptTokens: number; cachedTokens: number | null; outputTokens: number };

describe('forkpool transcript FILE', () => {
  it.each(SHAPES.map(([shape]) => shape))(
    'prints a %s fork: its directive, the call and its result, the answer, per-call usage and totals',
    async (shape) => {
      const file = fileOf(shape);
      const lines = jsonLines(readFileSync(file, 'utf8'));
      // The transcript the fork wrote holds a seed, a model reply with the call, the tool's answer and the final reply.
      expect(lines.map((l) => (l.type === 'message' ? `${l.type}:${l.role}` : l.type))).toEqual([
        'header',
        'seed',
        'message:seed',
        'message:model',
        'message:tool',
        'message:model',
        'end',
      ]);
      const result = results.get(`t-${shape}`)!;
      expect(result.status).toBe('completed');

      const run = await runCli(['transcript', file]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = run.stdout;
      expect(out.startsWith(`task t-${shape}\n  directive  Look up alpha for ${shape}.\n             CALL lookup {"key":"alpha"}\n`)).toBe(
        true,
      );
      expect(out).toContain(`  format     ${shape}\n`);
      expect(out).toContain('  seeded     inherits ');
      // The seed message shows the directive, the fork's fixed rules as one tag.
      expect(out).toContain(`[seed] user\n  <fork-boilerplate>…</fork-boilerplate>\n\n  Directive: Look up alpha for ${shape}.\n`);
      const call = out.indexOf('  → lookup({"key":"alpha"})\n');
      const answer = out.indexOf('  ← lookup: {"output":{"value":"value-of-alpha"}}\n');
      const final = out.indexOf(`[turn 2] model`);
      expect(call).toBeGreaterThan(0);
      expect(answer).toBeGreaterThan(call);
      expect(final).toBeGreaterThan(answer);
      expect(out.slice(final)).toContain(`\n  alpha is value-of-alpha (${shape})\n`);
      expect(out).toContain('── end: completed after 2 turns (');

      // Each model line's usage is printed with its turn, and the totals add them up.
      const usages = lines.filter((l) => l.role === 'model').map((l) => l.usage as Usage);
      expect(usages).toHaveLength(2);
      for (const [i, u] of usages.entries())
        expect(out).toContain(
          `[turn ${i + 1}] model  (prompt ${num(u.promptTokens)} · cached ${num(u.cachedTokens!)} · output ${num(u.outputTokens)}`,
        );
      const sum = (pick: (u: Usage) => number): number => usages.reduce((s, u) => s + pick(u), 0);
      const totals = `totals: 2 turns · 2 model calls · 1 tool call · prompt ${num(sum((u) => u.promptTokens))} · cached ${num(sum((u) => u.cachedTokens!))} · output ${num(sum((u) => u.outputTokens))}`;
      expect(out).toContain(`\n${totals}`);
      // The transcript's figures are the fork's own.
      expect(sum((u) => u.promptTokens)).toBe(result.usage.promptTokens);
      expect(sum((u) => u.outputTokens)).toBe(result.usage.outputTokens);
      expect(sum((u) => u.cachedTokens!)).toBe(result.usage.cachedTokens);
    },
  );

  it('--json prints the lines again as JSON Lines, the header first', async () => {
    const file = fileOf('openai-chat');
    const run = await runCli(['transcript', file, '--json']);
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout)).toEqual(jsonLines(readFileSync(file, 'utf8')));
  });

  it('-h prints its help; the top-level help lists the command', async () => {
    const [own, top] = await Promise.all([runCli(['transcript', '-h']), runCli(['--help'])]);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: forkpool transcript FILE [--json]');
    expect(own.stdout).toContain('Exit codes (the same for every command');
    expect(top.stdout).toContain('  forkpool transcript FILE [--json]');
  });
});

describe('forkpool transcript: text from the model or a tool', () => {
  it('shows control characters as escapes: nothing reaches the terminal as a command', async () => {
    expect(results.get('escapes')?.text).toBe(ESCAPES);
    const run = await runCli(['transcript', join(dir, 'escapes.jsonl')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\n  \\u001b]0;pwned\\u0007 \\u001b[31mred\n');
    const controls = [...run.stdout].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f));
    expect(controls).toEqual([]);
  });
});

describe('forkpool transcript: bad input exits 2 and names it', () => {
  it('a line in the middle that is not a transcript line: file:line, the field and the rule', async () => {
    const lines = readFileSync(fileOf('gemini'), 'utf8').split('\n');
    const file = join(tmp, 'bad-role.jsonl');
    writeFileSync(file, [...lines.slice(0, 3), '{"type":"message","turn":1,"role":"nobody","message":{}}', ...lines.slice(3)].join('\n'));
    const run = await runCli(['transcript', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^forkpool: ${escapeRegExp(file)}:4: role: .*"model".*\n$`));
  });

  it('a line in the middle that is not JSON (no resumption after it, so no crash cut it): file:line', async () => {
    const lines = readFileSync(fileOf('anthropic-messages'), 'utf8').split('\n');
    const file = join(tmp, 'bad-json.jsonl');
    writeFileSync(file, [...lines.slice(0, 4), '{"type":"message","tu', ...lines.slice(4)].join('\n'));
    const run = await runCli(['transcript', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`forkpool: ${file}:5: a transcript line must be one JSON object\n`);
  });

  it('a missing file is named', async () => {
    const file = join(tmp, 'no-such-task.jsonl');
    const run = await runCli(['transcript', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`forkpool: ${file}: file not found\n`);
  });

  it('no FILE, or two, is a usage error', async () => {
    const [none, two] = await Promise.all([runCli(['transcript']), runCli(['transcript', 'a.jsonl', 'b.jsonl'])]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('forkpool: transcript: the transcript FILE is required\n');
    expect(two.code).toBe(2);
    expect(two.stderr).toBe('forkpool: transcript: takes one FILE; "b.jsonl" is one too many\n');
  });
});

describe('forkpool transcript: a last line cut off mid-write', () => {
  it('prints what was whole, and says the last line was left out', async () => {
    const whole = readFileSync(fileOf('openai-chat'), 'utf8');
    const file = join(tmp, 'torn.jsonl');
    // The process died while writing a reply: half of a model line, no newline.
    const modelLine = whole.split('\n').find((l) => l.includes('"role":"model"'))!;
    writeFileSync(file, whole);
    appendFileSync(file, modelLine.slice(0, Math.floor(modelLine.length / 2)));

    const [torn, intact] = [await inProcess([file]), await inProcess([fileOf('openai-chat')])];
    expect(torn.code).toBe(0);
    expect(torn.stderr).toBe('');
    const note = '\n(the last line was cut off mid-write — the process stopped while writing it — and is left out)\n';
    expect(torn.stdout).toContain(note);
    expect(intact.stdout).not.toContain(note);
    // Apart from the note, it is the whole file's text: the torn reply counts nowhere.
    expect(torn.stdout.replace(note, '')).toBe(intact.stdout);
  });
});

/** `forkpool transcript ARGS` in this process, its output collected. */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const collect = () => {
    const chunks: string[] = [];
    return { stream: { write: (chunk: string) => chunks.push(chunk) > 0 } as any, text: () => chunks.join('') };
  };
  const stdout = collect();
  const stderr = collect();
  const io: CliIo = { stdin: new PassThrough(), stdout: stdout.stream, stderr: stderr.stream, env: {} };
  const code = await transcriptCommand(args, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
