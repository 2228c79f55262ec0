import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';
import { parseSession } from '../src/index.js';

/*
 * `forkpool import`, and transcripts as `--session` of `run` and `prompt`, spawned as a user runs
 * them (the built CLI; `npm test` builds first). Offline: the local simulator answers.
 */

const F = 'test/fixtures/import';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('forkpool import', () => {
  it("writes the session in the source's shape to stdout and the summary to stderr", async () => {
    const run = await runCli(['import', `${F}/claude-code.jsonl`]);
    expect(run.code).toBe(0);
    const session = JSON.parse(run.stdout) as { format: string; model: string };
    expect(session.format).toBe('anthropic-messages');
    expect(parseSession(session)).toBe(session);
    expect(run.stderr).toContain(
      `forkpool: imported ${F}/claude-code.jsonl (a Claude Code session (JSONL)) as a session in Anthropic Messages' shape`,
    );
    expect(run.stderr).toContain("  model      claude-opus-4-6 (from the records (the last assistant record's model))");
    expect(run.stderr).toContain('             undeclared Read: no declaration recorded and none from --tools');
    expect(run.stderr).toContain('line 11: a "user" record: a sidechain: a sub-agent\'s conversation, not this one');
  });

  it("--out, --model and --tools: the file written, the model named, the module's tools declared", async () => {
    const out = join(tmp, 'checkpoint.json');
    const run = await runCli([
      'import',
      `${F}/gemini-cli-checkpoint.json`,
      '--out',
      out,
      '--model',
      'gemini-2.5-pro',
      '--tools',
      'test/fixtures/cli/tools.mjs',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const session = JSON.parse(readFileSync(out, 'utf8')) as { model: string; tools: { functionDeclarations: { name: string }[] }[] };
    expect(session.model).toBe('gemini-2.5-pro');
    expect(session.tools[0]?.functionDeclarations.map((d) => d.name)).toEqual(['lookup_ticket', 'read_file', 'list_dir']);
    expect(run.stderr).toContain('  model      gemini-2.5-pro (from --model)');
    expect(run.stderr).toContain('             declared lookup_ticket: from --tools');
    expect(run.stderr).toContain("             declared list_dir: forkpool's workspace tool, for the recorded list_directory");
  });

  it('a partly written last line is tolerated and reported; --format names the format', async () => {
    const run = await runCli(['import', `${F}/qwen-code.jsonl`, '--format', 'qwen-code']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('  partial    line 17 is cut off (the agent may still be writing it): left out');
    const wrong = await runCli(['import', `${F}/qwen-code.jsonl`, '--format', 'gemini-api']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      'forkpool: import: --format must be one of forkpool, gemini-cli, qwen-code, claude-code, gemini, openai-chat, openai-responses, anthropic-messages, ai-sdk, not "gemini-api"\n',
    );
    // A shape's format is one too (a logged request of that shape), and a JSONL transcript is not one.
    const shape = await runCli(['import', `${F}/qwen-code.jsonl`, '--format', 'gemini']);
    expect(shape.code).toBe(2);
    expect(shape.stderr).toContain('is JSONL (one record a line), which is not a gemini file');
  });

  it('a bad record: exit 2, its line and field named, nothing on stdout', async () => {
    const lines = readFileSync(`${F}/qwen-code.jsonl`, 'utf8').split('\n');
    const record = JSON.parse(lines[1] as string);
    record.message.role = 'assistant';
    const path = join(tmp, 'bad.jsonl');
    writeFileSync(path, `${lines[0]}\n${JSON.stringify(record)}\n`);
    const run = await runCli(['import', path]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`forkpool: ${path}:2: message.role: must be "user" or "model"\n`);
  });

  it('--help lists the flags', async () => {
    const run = await runCli(['import', '--help']);
    expect(run.code).toBe(0);
    for (const flag of ['--out FILE', '--format NAME', '--model NAME', '--tools MODULE']) expect(run.stdout).toContain(flag);
  });
});

describe('files of no format forkpool reads (issue 22)', () => {
  it("an iFlow CLI session (records much like Claude Code's) is refused naming the formats tried; --format reads it anyway", async () => {
    const run = await runCli(['import', `${F}/iflow-cli.jsonl`]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`forkpool: ${F}/iflow-cli.jsonl: is JSONL of none of the formats forkpool reads: tried gemini-cli (`);
    expect(run.stderr).toContain('claude-code (a "message" with "content" and a bare-UUID "sessionId")');
    expect(run.stderr).toContain('name the format with --format (or --session-format) to read it as one anyway');
    const forced = await runCli([
      'prompt',
      'FORK RECALL call_[0-9a-f]{24}',
      '--session',
      `${F}/iflow-cli.jsonl`,
      '--session-format',
      'claude-code',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stdout.trim()).toBe('Fork results:\nRECALL call_[0-9a-f]{24}: call_e55a5b729638448fb77ba8fc');
  });

  it('a JSON object of no claimed format is refused naming the formats tried', async () => {
    const path = join(tmp, 'other.json');
    writeFileSync(path, JSON.stringify({ conversation: [{ speaker: 'ana', text: 'hi' }] }));
    const run = await runCli(['import', path]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`forkpool: ${path}: is a JSON object of none of the formats forkpool reads: tried forkpool session`);
  });
});

describe('transcripts as --session', () => {
  it("run forks a Claude Code session with parallel calls: the fork sees every call's result, and the summary line says what was left out", async () => {
    const tasks = join(tmp, 'parallel-tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'recall', directive: 'RECALL MARKER-[0-9A-Z]{4}' })}\n`);
    const run = await runCli(['run', '--session', `${F}/claude-code-parallel.jsonl`, '--tasks', tasks, '--output-format', 'json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { results: { text: string }[] };
    expect(result.results[0]?.text).toBe(
      'RECALL MARKER-[0-9A-Z]{4}: MARKER-CP2P, MARKER-GR3P, MARKER-RE4D, MARKER-GL0B, MARKER-BA5H, MARKER-SEQ1',
    );
    expect(run.stderr).toContain(
      `forkpool: read ${F}/claude-code-parallel.jsonl as a Claude Code session (JSONL): 10 messages kept, 5 dropped (5 other records or fields)`,
    );
  });

  it('prompt forks a real Claude Code 2.0.13 compacted session: the share left out comes first', async () => {
    const run = await runCli(['prompt', 'FORK RECALL how[ ]are[ ]you[ ]doing', '--session', `${F}/real/claude-code-2.0.13-compact.jsonl`]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL how[ ]are[ ]you[ ]doing: how are you doing');
    expect(run.stderr.split('\n')[0]).toBe(
      `forkpool: 6 of the 10 message records of ${F}/real/claude-code-2.0.13-compact.jsonl (60%) are left out of the session; each is listed under "dropped" with its reason`,
    );
  });

  it('prompt forks an imported Qwen Code session and the fork recalls the marker only its history holds', async () => {
    const run = await runCli(['prompt', 'FORK RECALL MARKER-[0-9A-Z]{4}', '--session', `${F}/qwen-code.jsonl`]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL MARKER-[0-9A-Z]{4}: MARKER-QC7Z');
    expect(run.stderr).toContain(
      `forkpool: read ${F}/qwen-code.jsonl as a Qwen Code session (JSONL): 6 messages kept, 9 dropped (7 message records and 2 other records or fields), line 17 cut off and left out, model qwen3-coder-plus (forkpool import shows the details)`,
    );
  });

  it('a Qwen Code session recorded through Anthropic: import writes an anthropic-messages session and names the provider; prompt forks it on Anthropic routes', async () => {
    const path = `${F}/qwen-code-anthropic.jsonl`;
    const imported = await runCli(['import', path]);
    expect(imported.code).toBe(0);
    const session = JSON.parse(imported.stdout) as { format: string; model: string };
    expect(session).toMatchObject({ format: 'anthropic-messages', model: 'claude-sonnet-4-5' });
    expect(parseSession(session)).toBe(session);
    expect(imported.stderr).toContain(
      '  note       recorded with auth_type "anthropic" (Anthropic\'s API): converted to an anthropic-messages session; run it with --provider anthropic (or the local server)',
    );
    expect(imported.stderr).toContain(
      'line 6 message.parts[0]: whitespace-only text: has no counterpart in Anthropic Messages, or Anthropic Messages refuses it',
    );
    const run = await runCli(['prompt', 'FORK RECALL MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+', '--session', path]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+: MARKER-QA8N, REFUND_FEE = 3.75');
  });

  it('run forks a Claude Code session on the local server (Anthropic routes) and a Gemini CLI session recording', async () => {
    for (const [path, marker] of [
      [`${F}/claude-code.jsonl`, 'MARKER-CC4D'],
      [`${F}/gemini-cli-session.json`, 'MARKER-G5R2'],
    ] as const) {
      const tasks = join(tmp, 'tasks.jsonl');
      writeFileSync(tasks, `${JSON.stringify({ id: 'recall', directive: 'RECALL MARKER-[0-9A-Z]{4}' })}\n`);
      const run = await runCli(['run', '--session', path, '--tasks', tasks, '--output-format', 'json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as { results: { text: string }[] };
      expect(result.results[0]?.text).toContain(marker);
    }
  });

  it("--format and --session-format take every shape's format: forkpool's own session of that shape passes through, a logged request of it is read", async () => {
    const gemini = await runCli(['prompt', 'FORK REPLY ok', '--session', 'examples/session.json', '--session-format', 'gemini']);
    expect(gemini.code).toBe(0);
    expect(gemini.stderr).not.toContain('--session-format');
    const aiSdk = await runCli(['import', 'examples/ai-sdk-session.json', '--format', 'ai-sdk']);
    expect(aiSdk.code).toBe(0);
    expect(JSON.parse(aiSdk.stdout)).toEqual(JSON.parse(readFileSync('examples/ai-sdk-session.json', 'utf8')));
    const body = join(tmp, 'generate-content.json');
    writeFileSync(body, JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Code word MARKER-G3M1.' }] }], safetySettings: [] }));
    const read = await runCli(['import', body, '--format', 'gemini']);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual({
      model: 'gemini-2.5-flash',
      history: [{ role: 'user', parts: [{ text: 'Code word MARKER-G3M1.' }] }],
    });
    expect(read.stderr).toContain("(a Gemini generateContent request body) as a session in Gemini's shape");
    expect(read.stderr).toContain('safetySettings: a request field: a setting of one request, not part of the conversation');
  });

  it("--session-format reads an ambiguous body as Anthropic's; an unknown name is a usage error", async () => {
    const path = join(tmp, 'plain.json');
    writeFileSync(
      path,
      JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Code word MARKER-PL4N.' }] }),
    );
    const run = await runCli(['prompt', 'FORK RECALL MARKER-[0-9A-Z]{4}', '--session', path, '--session-format', 'anthropic-messages']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Fork results:\nRECALL MARKER-[0-9A-Z]{4}: MARKER-PL4N');
    expect(run.stderr).toContain('as an Anthropic Messages request body');
    const bad = await runCli(['prompt', 'hi', '--session', path, '--session-format', 'claude']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'forkpool: --session-format: must be one of forkpool, gemini-cli, qwen-code, claude-code, gemini, openai-chat, openai-responses, anthropic-messages, ai-sdk (got "claude")',
    );
  });
});
