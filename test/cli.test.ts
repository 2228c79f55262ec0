import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES_HELP } from '../src/cli/exit-codes.js';
import { findProvider, providerKinds } from '../src/model/providers/index.js';
import { shapeFormats } from '../src/shapes/registry.js';
import { RESULT_KEYS, jsonLines, runCli } from './fixtures/cli/run-cli.js';

/*
 * The built CLI, spawned as a user runs it (node dist/src/cli/main.js, cwd = the repo root,
 * no API key: the built-in local server). `npm test` builds first.
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RESEARCH_IDS = [
  'engine-loop',
  'warmup',
  'prefix-codec',
  'seed-strategies',
  'tool-guards',
  'path-confinement',
  'session-errors',
  'cli-commands',
];

function expectResultLine(line: Record<string, unknown>): void {
  // A run's lines (--out, json) carry what a report shows (directive, turns, tool calls, cache maximum); a stream's notification does not.
  const ran = ['directive', 'perTurn', 'tools', 'maxCachedTokens', 'preexistingCachedTokens'];
  const expected = [...RESULT_KEYS, ...['output', 'error', 'cacheMiss', 'finish', 'cut', ...ran].filter((key) => key in line)];
  if ('directive' in line) {
    for (const key of ran) expect(line).toHaveProperty(key);
    expect(typeof line.directive).toBe('string');
    expect((line.perTurn as unknown[]).length).toBeGreaterThanOrEqual(line.status === 'completed' ? (line.turns as number) : 0);
    expect((line.tools as unknown[]).length).toBe(line.toolCalls);
    expect(Number.isInteger(line.maxCachedTokens)).toBe(true);
  }
  expect(Object.keys(line).sort()).toEqual(expected.sort());
  expect(typeof line.id).toBe('string');
  expect(['completed', 'failed', 'cancelled']).toContain(line.status);
  expect(typeof line.text).toBe('string');
  expect(['fork', 'general-purpose']).toContain(line.subagentType);
  expect(Number.isInteger(line.turns)).toBe(true);
  expect(Number.isInteger(line.toolCalls)).toBe(true);
  expect(Number.isInteger(line.durationMs)).toBe(true);
  expect(new Date(line.endedAt as string).toISOString()).toBe(line.endedAt);
  const usage = line.usage as Record<string, unknown>;
  expect(Object.keys(usage).sort()).toEqual(['cachedTokens', 'outputTokens', 'promptTokens']);
  for (const v of Object.values(usage)) expect(Number.isInteger(v)).toBe(true);
  if (line.status === 'completed') expect(line.error).toBeUndefined();
  else expect(Object.keys(line.error as object).sort()).toEqual(['kind', 'message']);
  if ('cacheMiss' in line) expect(Object.keys(line.cacheMiss as object).sort()).toEqual(['detail', 'reason', 'tokens']);
}

describe('forkpool --version / --help', () => {
  it('--version prints the package version', async () => {
    const run = await runCli(['--version']);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it("--help lists the commands; run --help lists run's flags", async () => {
    const [top, run] = await Promise.all([runCli(['--help']), runCli(['run', '--help'])]);
    expect(top.code).toBe(0);
    for (const command of ['forkpool run', 'forkpool prompt', 'forkpool serve', 'forkpool bench', '--version']) {
      expect(top.stdout).toContain(command);
    }
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: forkpool run --session FILE --tasks FILE\|-/);
    for (const flag of [
      '--out',
      '--workspace',
      '--tools',
      '--output-format',
      '--max-turns',
      '--provider',
      '--cache',
      '--warmup',
      '--history',
    ]) {
      expect(run.stdout).toContain(flag);
    }
    expect(run.stdout).toContain('Exit codes (the same for every command');
  });

  it("every command answers --help with exit 0, and run's help shows the engine's own defaults", async () => {
    const runs = await Promise.all(['run', 'prompt', 'serve', 'bench'].map((command) => runCli([command, '--help'])));
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/usage: forkpool/i);
    }
    const { ENGINE_DEFAULTS } = await import('../src/index.js');
    expect(runs[0]?.stdout).toContain(`model turns per fork (default ${ENGINE_DEFAULTS.maxTurns})`);
    expect(runs[0]?.stdout).toContain(`forks in flight (default ${ENGINE_DEFAULTS.concurrency})`);
  });
});

describe('help texts name every dialect and every exit code', () => {
  it("each command's --help lists the exit codes, signals among them", async () => {
    const commands = ['run', 'prompt', 'serve', 'worker', 'cancel', 'convert', 'import', 'report', 'transcript', 'bench'];
    const helps = await Promise.all([runCli(['--help']), ...commands.map((command) => runCli([command, '--help']))]);
    for (const [i, help] of helps.entries()) {
      const name = i === 0 ? 'forkpool --help' : `forkpool ${commands[i - 1]} --help`;
      expect(help.code, name).toBe(0);
      // The one table, whole, in every command's help.
      expect(help.stdout, name).toContain(EXIT_CODES_HELP);
    }
    expect(EXIT_CODES_HELP).toMatch(/\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}128\+N .*130 SIGINT, 143 SIGTERM/s);
    const [top, , , serve] = helps.map((h) => h.stdout);
    expect(serve).toMatch(/Gemini/);
    expect(serve).toMatch(/OpenAI('s)? Chat\s+Completions/);
    expect(serve).toMatch(/Anthropic(\s|')/);
    expect(serve).toContain('/v1/messages');
    // The top-level help lists the registries' shapes and providers, by the names flags and files take.
    expect(top).toContain(`\n  ${shapeFormats().join(', ')}\n`);
    for (const kind of providerKinds()) {
      const shapes = findProvider(kind)?.shapes.join(', ') ?? '';
      expect(top).toMatch(new RegExp(`^ {2}${kind} +${shapes}$`, 'm'));
    }
  });
});

describe('forkpool run with the examples (the README quick start)', () => {
  it('text: every research fork completes over the repo, with a summary and real cache hits', async () => {
    const run = await runCli(['run', '--session', 'examples/session.json', '--tasks', 'examples/research.jsonl', '--workspace', '.']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('using the built-in local server (a scripted, simulated model)');
    const out = run.stdout;
    // Each fork's answer as it ends (its first lines), then the summary and its table.
    for (const id of RESEARCH_IDS) expect(out).toMatch(new RegExp(`^${id} · completed\\n {2}\\S`, 'm'));
    expect(out).toMatch(/^forkpool run · local simulated model · prefix [0-9a-f]{12} \([\d,]+ bytes, ~[\d,]+ tokens\)/m);
    expect(out.indexOf('forkpool run · local')).toBeGreaterThan(Math.max(...RESEARCH_IDS.map((id) => out.indexOf(`${id} · completed`))));
    for (const id of RESEARCH_IDS) expect(out).toMatch(new RegExp(`^${id}\\s+completed\\s`, 'm'));
    expect(out).toContain('forks      8 completed, 0 failed, 0 cancelled of 8');
    // 14 CALL lines; 3 forks have a CALL@2 (3 model turns), 5 answer on their second turn.
    expect(out).toMatch(/19 model calls · 14 tool calls/);
    const hit = /hit rate ([\d.]+)%/.exec(out);
    expect(hit).not.toBeNull();
    expect(Number(hit?.[1])).toBeGreaterThan(50);
    // The history is far over the local server's 1,024-token minimum: the prefix is cacheable.
    const tokens = /~([\d,]+) tokens\)/.exec(out)?.[1] ?? '0';
    expect(Number(tokens.replace(/,/g, ''))).toBeGreaterThan(3000);
  });

  it('json: one JSON object on stdout, holding the report and one documented result per fork', async () => {
    const run = await runCli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      'examples/research.jsonl',
      '--workspace',
      '.',
      '--output-format',
      'json',
    ]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0] as string) as Record<string, any>;
    expect(summary.type).toBe('result');
    expect(summary.forks).toEqual({ total: 8, totalKnown: true, taken: 8, completed: 8, failed: 0, cancelled: 0, running: 0, queued: 0 });
    expect(summary.toolCalls).toBe(14);
    expect(summary.cachedTokens).toBeGreaterThan(0);
    expect(summary.cachedTokens).toBeLessThanOrEqual(summary.theoreticalCachedTokens);
    expect(summary.hitRate).toBeCloseTo(summary.cachedTokens / summary.promptTokens, 10);
    expect(summary.prefix.id).toMatch(/^[0-9a-f]{64}$/);
    const results = summary.results as Record<string, any>[];
    expect(results.map((r) => r.id).sort()).toEqual([...RESEARCH_IDS].sort());
    for (const r of results) {
      expectResultLine(r);
      expect(r.status).toBe('completed');
      // No REPLY: the scripted model's fixed-shape report with a digest of the fork's tool results.
      expect(r.text).toMatch(/^Scope: .+\nResult: \d tool result\(s\) from [a-z_, ]+, digest [0-9a-f]{8}; context /);
    }
    const engineLoop = results.find((r) => r.id === 'engine-loop');
    expect(engineLoop?.turns).toBe(3);
    expect(engineLoop?.toolCalls).toBe(2);
    expect(engineLoop?.text).toContain('2 tool result(s) from grep, read_file');
  });

  it('marker demo: inherited forks recall the marker, forkTurns 1 does not, tools [] is denied its call', async () => {
    const out = join(tmp, 'marker.jsonl');
    const run = await runCli([
      'run',
      '--session',
      'examples/session.json',
      '--tasks',
      'examples/marker.jsonl',
      '--workspace',
      '.',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const byId = new Map(jsonLines(readFileSync(out, 'utf8')).map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual(['last-turn-only', 'no-tools', 'recall-completed-turns', 'recall-read-only', 'recall-ticket']);
    for (const id of ['recall-ticket', 'recall-completed-turns', 'recall-read-only']) {
      expect(byId.get(id)?.text).toBe('RECALL MARKER-[0-9A-F]{4}: MARKER-1F0C');
    }
    expect(byId.get('last-turn-only')?.text).toBe('RECALL MARKER-[0-9A-F]{4}: no match');
    expect(byId.get('no-tools')?.toolCalls).toBe(1);
    expect(byId.get('no-tools')?.text).toContain('Tool list_dir is not allowed in this fork. This fork may not execute any tool.');
    expect(run.stdout).toContain('note       forkTurns trimmed the history');
  });
});

describe('forkpool run: inputs and outputs', () => {
  const TASKS = [
    '{"id":"alpha","directive":"REPLY first answer","subagentType":"general-purpose"}',
    '',
    '{"id":"beta","directive":"Quote the marker.\\nRECALL MARKER-\\\\w+"}',
    '{"id":"gamma","directive":"JSON {\\"ok\\":true,\\"n\\":3}","outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}},"required":["ok","n"]}}',
  ].join('\n');

  it('--warmup parent: no fork waits, the report says so; a bad --warmup names the accepted values', async () => {
    const [run, bad] = await Promise.all([
      runCli(['run', '--session', SESSION, '--tasks', '-', '--warmup', 'parent', '--output-format', 'json'], { input: TASKS }),
      runCli(['run', '--session', SESSION, '--tasks', '-', '--warmup', 'later'], { input: TASKS }),
    ]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { warmup: string; forks: { completed: number } };
    expect(summary.warmup).toBe('parent');
    expect(summary.forks.completed).toBe(3);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('forkpool: --warmup: must be one of auto, none, parent (got "later")');
  });

  it('--history picks the history mode; the old --seed is an unknown flag, and the help it points to names --history', async () => {
    // A parent mid-turn: its last call (a marker in its arguments) is in flight.
    const session = join(tmp, 'mid-turn.json');
    writeFileSync(
      session,
      JSON.stringify({
        model: 'gemini-2.5-flash',
        history: [
          { role: 'user', parts: [{ text: 'Find the config.' }] },
          { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'read_file', args: { path: 'IN-FLIGHT-7E57' } } }] },
        ],
      }),
    );
    const recall = '{"id":"r","directive":"RECALL IN-FLIGHT-\\\\w+"}';
    const texts = async (extra: string[]): Promise<string> => {
      const r = await runCli(['run', '--session', session, '--tasks', '-', '--output-format', 'json', ...extra], { input: recall });
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { results: { text: string }[] }).results[0]?.text ?? '';
    };
    const [inherited, completed, old, help] = await Promise.all([
      texts([]),
      texts(['--history', 'completed-turns']),
      runCli(['run', '--session', SESSION, '--tasks', '-', '--seed', 'inherit'], { input: TASKS }),
      runCli(['run', '--help']),
    ]);
    expect(inherited).toBe('RECALL IN-FLIGHT-\\w+: IN-FLIGHT-7E57');
    expect(completed).toBe('RECALL IN-FLIGHT-\\w+: no match');
    expect(old.code).toBe(2);
    expect(old.stderr.trim()).toBe('forkpool: unknown flag --seed; see forkpool run --help');
    expect(help.stdout).toMatch(/^ {2}--history inherit\|completed-turns +which history forks start from/m);
  });

  it('--max-tokens: the run stops when its budget is spent, says so, and exits 1', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--max-tokens', '1', '--concurrency', '1', '--warmup', 'none'], {
      input: TASKS,
    });
    expect(run.code).toBe(1);
    // Tasks stream in: the queued one (the read-ahead) ends cancelled, the last line is never taken (beta is line 3, after a blank one).
    expect(run.stdout).toMatch(/^budget {5}[\d,]+ tokens spent of 1 for the run · 1 fork stopped by the budget · run budget spent$/m);
    expect(run.stdout).toMatch(/^forks {6}1 completed, 0 failed, 1 cancelled of 2 taken \(the rest was not read\)$/m);
    expect(run.stdout).toMatch(/^input {6}<stdin>: 2 tasks taken, through line 3; the rest was not read$/m);
    expect(run.stdout).toMatch(/^cancelled {2}beta: budget: the run's token budget was spent/m);
    const bad = await runCli(['run', '--session', SESSION, '--tasks', '-', '--max-tokens-per-fork', '0'], { input: TASKS });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('forkpool: --max-tokens-per-fork: must be a positive integer (got "0")');
  });

  it('reads tasks from stdin with --tasks -', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--output-format', 'json'], { input: TASKS });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { results: Record<string, unknown>[]; forks: { completed: number } };
    expect(summary.forks.completed).toBe(3);
    const byId = new Map(summary.results.map((r) => [r.id, r]));
    expect(byId.get('alpha')?.text).toBe('first answer');
    expect(byId.get('beta')?.text).toBe('RECALL MARKER-\\w+: MARKER-7Q2Z');
    expect(byId.get('gamma')?.output).toEqual({ ok: true, n: 3 });
  });

  it('--out gets one documented JSON line per fork; stdout keeps only the summary', async () => {
    const out = join(tmp, 'out.jsonl');
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--output-format', 'json', '--out', out], { input: TASKS });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(summary.type).toBe('result');
    expect(summary.results).toBeUndefined();
    const lines = jsonLines(readFileSync(out, 'utf8'));
    expect(lines.map((l) => l.id).sort()).toEqual(['alpha', 'beta', 'gamma']);
    for (const line of lines) {
      expectResultLine(line);
      expect(line.status).toBe('completed');
      expect(line.turns).toBe(1);
      expect((line.usage as { promptTokens: number }).promptTokens).toBeGreaterThan(0);
    }
    expect(lines.find((l) => l.id === 'gamma')?.output).toEqual({ ok: true, n: 3 });
    // Each line says what ran: the general-purpose task is not a fork.
    expect(Object.fromEntries(lines.map((l) => [l.id, l.subagentType]))).toEqual({ alpha: 'general-purpose', beta: 'fork', gamma: 'fork' });
    expect(lines.find((l) => l.id === 'alpha')).not.toHaveProperty('output');
  });

  it('stream-json: valid JSON lines, one task_started and one task_notification per fork, then the result', async () => {
    const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--output-format', 'stream-json'], { input: TASKS });
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout) as Record<string, any>[];
    const started = events.filter((e) => e.type === 'system' && e.subtype === 'task_started');
    const notified = events.filter((e) => e.type === 'system' && e.subtype === 'task_notification');
    // Each notification follows the reference's user line saying how the task ended.
    const displays = events.filter((e) => e.type === 'user');
    expect(events).toHaveLength(started.length + displays.length + notified.length + 1);
    for (const e of notified) expect(events[events.indexOf(e) - 1]?.type).toBe('user');
    const texts = displays.map((e) => e.message.content[0].text as string);
    for (const text of texts) expect(text).toMatch(/^Background agent "(fork|general-purpose): .+" completed\.$/s);
    expect(texts.filter((t) => t.startsWith('Background agent "general-purpose: '))).toHaveLength(1);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(1);
    expect(started.map((e) => e.data.task_id).sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(notified.map((e) => e.data.task_id).sort()).toEqual(['alpha', 'beta', 'gamma']);
    for (const e of started) {
      // A run has no tool call: the task's own id, and no tool_use_id.
      expect(Object.keys(e.data).sort()).toEqual(['description', 'subagent_type', 'task_id']);
      expect(e.data.subagent_type).toBe(e.data.task_id === 'alpha' ? 'general-purpose' : 'fork');
      expect(typeof e.data.description).toBe('string');
    }
    for (const e of notified) {
      expect(e.data.status).toBe('completed');
      expect(e.data.tool_use_id).toBeUndefined();
      expect(e.data.summary).toMatch(/^Agent ".+" completed\.$/);
      expect(e.data.result.subagentType).toBe(e.data.task_id === 'alpha' ? 'general-purpose' : 'fork');
      expect(Object.keys(e.data.usage).sort()).toEqual(['duration_ms', 'tool_uses', 'total_tokens']);
      expect(e.data.usage.total_tokens).toBe(e.data.result.usage.promptTokens + e.data.result.usage.outputTokens);
      expect(e.data.usage.tool_uses).toBe(0);
      expectResultLine(e.data.result);
      // A fork is announced before it is reported.
      const startedAt = events.findIndex((s) => s.subtype === 'task_started' && s.data.task_id === e.data.task_id);
      expect(startedAt).toBeLessThan(events.indexOf(e));
    }
    const result = events[events.length - 1] as Record<string, any>;
    expect(result.type).toBe('result');
    expect(result.subtype).toBe('success');
    expect(result.is_error).toBe(false);
    expect(result.report.forks.completed).toBe(3);
    expect(result.usage.input_tokens).toBe(result.report.promptTokens);
  });

  it('exits 1 when a fork fails (max turns), keeping every result', async () => {
    const tasks = ['{"id":"ok","directive":"REPLY fine"}', '{"id":"needs-two","directive":"CALL list_dir {\\"path\\":\\".\\"}"}'].join(
      '\n',
    );
    const run = await runCli(
      ['run', '--session', SESSION, '--tasks', '-', '--workspace', 'test/fixtures/cli', '--max-turns', '1', '--output-format', 'json'],
      { input: tasks },
    );
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as Record<string, any>;
    expect(summary.forks).toMatchObject({ total: 2, completed: 1, failed: 1 });
    const failed = (summary.results as Record<string, any>[]).find((r) => r.id === 'needs-two');
    expect(failed?.status).toBe('failed');
    expect(failed?.error.kind).toBe('max_turns');
    expect(summary.failures).toEqual([{ id: 'needs-two', status: 'failed', kind: 'max_turns', message: failed?.error.message }]);
    expect((summary.results as Record<string, any>[]).find((r) => r.id === 'ok')?.text).toBe('fine');
  });

  it('a reader that closes the pipe early (| head -1) ends the run quietly, without an EPIPE stack', async () => {
    let closed = false;
    const run = await runCli(
      [
        'run',
        '--session',
        'examples/session.json',
        '--tasks',
        'examples/research.jsonl',
        '--workspace',
        '.',
        '--output-format',
        'stream-json',
      ],
      {
        onStdout: (child, soFar) => {
          if (!closed && soFar.includes('\n')) {
            closed = true;
            child.stdout?.destroy();
          }
        },
      },
    );
    expect(closed).toBe(true);
    expect(run.code).toBe(141);
    expect(JSON.parse(run.stdout.split('\n')[0] as string)).toMatchObject({ type: 'system', subtype: 'task_started' });
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
