// Internal: importTranscript (src/import/index.ts), the importers on a transcript's text: loadSession, which reads a file, is its public face, and importSession (src/import/load.ts), what loadSession reads a file with, returns the import's summary and origins too; everything else comes through forkpool.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { importTranscript } from '../src/import/index.js';
import { ForkEngine, defineTool, formatImportSummary, InputError, loadSession, parseSession, type ImportSummary } from '../src/index.js';
import { importSession } from '../src/import/load.js';

/*
 * Importing other agents' transcripts (issue 17), from fixtures built on each agent's own record
 * types (test/fixtures/import/; the sources are named at the top of each src/import/ file).
 * Every fixture holds a marker that only its imported history holds; forks recall it.
 */

const F = 'test/fixtures/import';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

type Parts = {
  text?: string;
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string };
}[];
const historyOf = (session: unknown) => (session as { history: { role: string; parts: Parts }[] }).history;
const messagesOf = (session: unknown) => (session as { messages: { role: string; content: unknown }[] }).messages;
type ChatMessage = {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
};
const chatOf = (session: unknown) => (session as { messages: ChatMessage[] }).messages;

async function imported(path: string, options: Parameters<typeof importSession>[1] = {}) {
  const result = await importSession(path, options);
  expect(parseSession(result.session)).toBe(result.session);
  return result;
}

describe('Gemini CLI', () => {
  it('a /chat save checkpoint: the history as it was, startup context recognized, the provider default model', async () => {
    const { session, summary } = await imported(`${F}/gemini-cli-checkpoint.json`);
    expect(summary.format).toBe('gemini-cli');
    expect(summary.kind).toBe('a Gemini CLI checkpoint (/chat save)');
    expect(session.model).toBe('gemini-2.5-flash');
    expect(summary.model).toEqual({ name: 'gemini-2.5-flash', from: 'default' });
    const history = historyOf(session);
    expect(history).toHaveLength(8);
    expect(summary.synthetic).toEqual({ startupContext: 2, compactedSummary: 0 });
    expect(JSON.stringify(history)).toContain('MARKER-G3C1');
    expect(summary.dropped).toEqual([
      { path: 'authType', what: 'authType', reason: "Gemini CLI's sign-in method, not part of the conversation" },
    ]);
  });

  it("maps read_file and list_directory to forkpool's workspace tools: declarations, calls and results rewritten", async () => {
    const { session, summary } = await imported(`${F}/gemini-cli-checkpoint.json`);
    const history = historyOf(session);
    expect(history[3]?.parts[0]?.functionCall).toEqual({
      name: 'read_file',
      args: { path: '/home/ana/shop/src/orders.ts', offset: 1, limit: 40 },
    });
    expect(history[5]?.parts[0]?.functionCall).toEqual({ name: 'list_dir', args: { path: '/home/ana/shop/src' } });
    expect(history[6]?.parts[0]?.functionResponse?.name).toBe('list_dir');
    const tools = (session as { tools: { functionDeclarations: { name: string }[] }[] }).tools;
    expect(tools.flatMap((t) => t.functionDeclarations.map((d) => d.name))).toEqual(['read_file', 'list_dir']);
    expect(summary.declared.map((d) => [d.name, d.from, d.recordedAs])).toEqual([
      ['read_file', 'workspace', 'read_file'],
      ['list_dir', 'workspace', 'list_directory'],
    ]);
    expect(summary.toolsUsed).toEqual([
      { name: 'read_file', calls: 1 },
      { name: 'list_dir', calls: 1 },
    ]);
    expect(Object.keys(session)).toEqual(['model', 'tools', 'history']);
  });

  it('a tool whose calls carry an argument forkpool has no counterpart for stays undeclared, its calls as recorded', () => {
    const checkpoint = JSON.parse(readFileSync(`${F}/gemini-cli-checkpoint.json`, 'utf8'));
    checkpoint.history[5].parts[0].functionCall.args.ignore = ['*.log'];
    const { session, summary } = importTranscript(JSON.stringify(checkpoint), 'c.json');
    expect(historyOf(session)[5]?.parts[0]?.functionCall?.name).toBe('list_directory');
    expect(summary.undeclared).toEqual([
      {
        name: 'list_directory',
        why: "does not map to forkpool's list_dir: a call's argument \"ignore\" has no counterpart in forkpool's list_dir",
      },
    ]);
  });

  it("a session recording: convertSessionToClientHistory, UI-only messages and slash commands left out, the records' model", async () => {
    const { session, summary } = await imported(`${F}/gemini-cli-session.json`);
    const history = historyOf(session);
    expect(history.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model']);
    const calls = history[1]?.parts.filter((p) => p.functionCall);
    expect(calls?.map((p) => p.functionCall?.name)).toEqual(['grep', 'run_shell_command']);
    expect(calls?.[0]?.functionCall).toEqual({
      id: 'grep_search-1772533805000-a1',
      name: 'grep',
      args: { pattern: 'function total', path: '/home/ana/shop/src', glob: '*.ts' },
    });
    expect(history[2]?.parts.map((p) => p.functionResponse?.name)).toEqual(['grep', 'run_shell_command']);
    expect(summary.model).toEqual({ name: 'gemini-2.5-pro', from: 'records' });
    expect(summary.dropped.map((d) => d.path)).toEqual(['messages[2]', 'messages[3]']);
    expect(summary.dropped[1]?.reason).toContain('/stats');
    expect(summary.undeclared.map((u) => u.name)).toEqual(['run_shell_command']);
    expect(summary.notes).toEqual([
      '1 thought part kept as Gemini CLI sends them back on resume (recorded thought summaries become { "text", "thought": true } parts)',
    ]);
  });

  it('a session recording as JSONL: replaced records in place, $rewindTo drops the rewound branch', async () => {
    const { session, summary } = await imported(`${F}/gemini-cli-session.jsonl`);
    const history = historyOf(session);
    expect(history.map((c) => c.parts[0]?.text ?? c.parts[0]?.functionCall?.name ?? c.parts[0]?.functionResponse?.name)).toEqual([
      'Remember the code word MARKER-GJ7K, then list src.',
      'list_dir',
      'list_dir',
      'src holds orders.ts.',
      'What does src hold?',
      'Only orders.ts.',
    ]);
    expect(summary.dropped.map((d) => [d.line, d.reason])).toEqual([
      [6, 'rewound by line 8 ($rewindTo): a branch not on the chain'],
      [7, 'rewound by line 8 ($rewindTo): a branch not on the chain'],
    ]);
    expect(summary.model.name).toBe('gemini-3-pro-preview');
  });
});

describe('Qwen Code', () => {
  it('the parentUuid chain from the last record, the compression checkpoint applied, the partly written last line tolerated', async () => {
    const { session, summary } = await imported(`${F}/qwen-code.jsonl`);
    // qwen3-coder-plus is no Gemini model: Qwen Code reached it through an OpenAI-compatible API.
    expect(session.format).toBe('openai-chat');
    const messages = chatOf(session);
    expect(messages).toHaveLength(6);
    expect(messages[0]?.content).toContain('MARKER-QC7Z');
    expect(messages[1]?.content).toBe('Got it. Thanks for the additional context!');
    expect(summary.synthetic).toEqual({ startupContext: 0, compactedSummary: 2 });
    expect(summary.partialLastLine).toBe(17);
    expect(summary.model).toEqual({ name: 'qwen3-coder-plus', from: 'records' });
    expect(messages[3]?.tool_calls?.[0]).toEqual({
      id: 'call_5e6f7a',
      type: 'function',
      function: { name: 'grep', arguments: '{"pattern":"fee","path":"/home/ana/shop/src","glob":"*.ts"}' },
    });
    const reasons = new Map(summary.dropped.map((d) => [d.line, d.reason]));
    expect(reasons.get(6)).toBe('telemetry, not part of the conversation');
    expect(reasons.get(7)).toBe('a branch not on the chain (the parentUuid chain that ends at the last record)');
    expect(reasons.get(11)).toContain('UI-only');
    expect(reasons.get(1)).toBe('replaced by the compression checkpoint on line 12 (Qwen Code resumes from its compressedHistory)');
  });

  it('without a checkpoint: every message of the chain, records sharing a uuid aggregated, thought parts stripped', () => {
    const lines = readFileSync(`${F}/qwen-code.jsonl`, 'utf8').split('\n').slice(0, 10).join('\n');
    const { session, summary } = importTranscript(`${lines}\n`, 'q.jsonl');
    const messages = chatOf(session);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(messages[1]?.tool_calls).toEqual([
      { id: 'call_8c1f2e', type: 'function', function: { name: 'list_dir', arguments: '{"path":"/home/ana/shop/src"}' } },
    ]);
    expect(messages[3]?.tool_calls?.[0]?.function).toEqual({
      name: 'read_file',
      arguments: '{"path":"/home/ana/shop/src/refunds.ts","offset":1,"limit":80}',
    });
    expect(summary.notes).toContain("1 thought part left out (as Qwen Code's resume strips them)");
    expect(summary.partialLastLine).toBeUndefined();
  });
});

describe('Claude Code', () => {
  it('an Anthropic-shaped session: the chain, one message merged from its records, parallel results recovered in call order', async () => {
    const { session, summary } = await imported(`${F}/claude-code.jsonl`);
    expect(session.format).toBe('anthropic-messages');
    expect(session.model).toBe('claude-opus-4-6');
    const messages = messagesOf(session);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect((messages[1]!.content as { type: string }[]).map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect((messages[2]!.content as { tool_use_id: string }[]).map((b) => b.tool_use_id)).toEqual([
      'toolu_01ReadAb12Cd34Ef56Gh78Ij',
      'toolu_01GrepKl90Mn12Op34Qr56St',
    ]);
    expect(messages[4]?.content).toBe('Is the fee ever refunded?');
    expect(JSON.stringify(messages)).toContain('MARKER-CC4D');
    const reasons = new Map(summary.dropped.map((d) => [d.line, d.reason]));
    expect(reasons.get(11)).toMatch(/^a sidechain: a sub-agent's conversation, not this one/);
    expect(reasons.get(14)).toBe(
      'a branch not on the chain (the parentUuid chain that ends at the last record): a rewound or retried turn',
    );
    expect(reasons.get(1)).toBe('a title for --resume, not a message');
    expect(reasons.get(8)).toBe('UI-only: progress shown while a tool runs');
    expect(summary.undeclared.map((u) => u.name)).toEqual(['Read', 'Grep']);
  });

  it("--tools declares the module's tools in the session's shape; a recorded tool it defines is then declared", async () => {
    const Read = defineTool({
      name: 'Read',
      description: 'Read a file',
      parameters: z.object({ file_path: z.string() }),
      execute: () => 'ok',
    });
    const { session, summary } = await imported(`${F}/claude-code.jsonl`, { tools: [Read] });
    expect((session as { tools: { name: string; input_schema: unknown }[] }).tools.map((t) => t.name)).toEqual(['Read']);
    expect(summary.declared).toEqual([{ name: 'Read', from: 'module' }]);
    expect(summary.undeclared.map((u) => u.name)).toEqual(['Grep']);
  });
});

describe('OpenAI and Anthropic requests', () => {
  it('OpenAI messages (a JSON array) and a request body: transport fields left out, recorded tools kept', async () => {
    const array = await imported(`${F}/openai-messages.json`);
    expect(array.session.format).toBe('openai-chat');
    expect(array.summary.model).toEqual({ name: 'gpt-4.1-mini', from: 'default' });
    const body = await imported(`${F}/openai-request.json`);
    expect(Object.keys(body.session)).toEqual(['format', 'model', 'messages', 'tools', 'temperature']);
    expect(body.summary.dropped.map((d) => d.path)).toEqual(['stream', 'stream_options', 'user']);
    expect(body.summary.declared).toEqual([{ name: 'search_code', from: 'recorded' }]);
  });

  it('an Anthropic request body: sampling fields refused by forkpool left out and listed', async () => {
    const { session, summary } = await imported(`${F}/anthropic-request.json`);
    expect(Object.keys(session)).toEqual(['format', 'model', 'max_tokens', 'system', 'tools', 'messages']);
    expect(summary.dropped.map((d) => d.path)).toEqual(['temperature', 'stream', 'metadata']);
  });

  it("an ambiguous body is read as OpenAI's unless the format is named", async () => {
    const path = file('plain.json', JSON.stringify({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }));
    expect((await loadSession(path)).format).toBe('openai-chat');
    expect((await loadSession(path, { format: 'anthropic-messages' })).format).toBe('anthropic-messages');
  });
});

describe("forkpool's own files", () => {
  it('pass through untouched: a session without "format" stays Gemini-shaped, and no import is reported', async () => {
    const seen: ImportSummary[] = [];
    const session = await loadSession('examples/session.json', { onImport: (s) => seen.push(s) });
    expect(session).toEqual(JSON.parse(readFileSync('examples/session.json', 'utf8')));
    expect(seen).toEqual([]);
    const transcript = await loadSession(`${F}/qwen-code.jsonl`, { onImport: (s) => seen.push(s) });
    expect(transcript.model).toBe('qwen3-coder-plus');
    expect(seen.map((s) => s.format)).toEqual(['qwen-code']);
  });

  it('a forkpool error stays a forkpool error', async () => {
    const path = file('bad.json', JSON.stringify({ model: 'x', history: [{ role: 'model', parts: [] }] }));
    await expect(loadSession(path)).rejects.toThrow(`${path}: history[0].parts: a message must hold at least one part`);
  });
});

describe('bad files', () => {
  const qwen = readFileSync(`${F}/qwen-code.jsonl`, 'utf8').split('\n');

  it('a line that does not parse, before the last, is an error naming it', async () => {
    const path = file('broken.jsonl', [qwen[0], '{"uuid": "x",', qwen[1]].join('\n'));
    await expect(loadSession(path)).rejects.toThrow(new RegExp(`^${path}:2: invalid JSON`));
  });

  it('a cut-off last line is an error when the file ends with a newline', async () => {
    const path = file('cut.jsonl', `${qwen[0]}\n{"uuid":"u9","parentU\n`);
    await expect(loadSession(path, { format: 'qwen-code' })).rejects.toThrow(new RegExp(`^${path}:2: invalid JSON`));
  });

  it("a record's field is named with its line", async () => {
    const record = JSON.parse(qwen[0] as string);
    record.message.parts = 'hello';
    const path = file('field.jsonl', `${qwen[0]}\n${JSON.stringify({ ...record, uuid: 'u2', parentUuid: 'u1' })}\n`);
    await expect(loadSession(path)).rejects.toThrow(`${path}:2: message.parts: must be an array of parts`);
    const claude = readFileSync(`${F}/claude-code.jsonl`, 'utf8').split('\n');
    const bad = JSON.parse(claude[2] as string);
    bad.message.content = 42;
    const path2 = file('claude.jsonl', `${claude[2]}\n${JSON.stringify({ ...bad, uuid: 'u9', parentUuid: 'u1' })}\n`);
    await expect(loadSession(path2)).rejects.toThrow(`${path2}:2: message.content: must be a string or an array of content blocks`);
  });

  it('an error the session validation finds in a converted message names the source line and field', async () => {
    const record = JSON.parse(qwen[0] as string);
    record.message.parts = [{ functionCall: { name: '', args: {} } }];
    const path = file('deep.jsonl', `${JSON.stringify(record)}\n`);
    const err = await loadSession(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(`${path}:1: message.parts[0].functionCall.name: a function name must not be empty`);
  });

  it('JSONL no agent can be told from is refused with a hint', async () => {
    const path = file('who.jsonl', '{"a":1}\n{"b":2}\n');
    await expect(loadSession(path)).rejects.toThrow('no record shows which agent wrote it');
  });
});

describe('the summary', () => {
  it('lists what was kept, the model and where it came from, the tools, every dropped record, the cut-off line', () => {
    const { summary } = importTranscript(readFileSync(`${F}/qwen-code.jsonl`, 'utf8'), 'qwen-code.jsonl');
    const text = formatImportSummary(summary);
    expect(text).toContain(
      'forkpool: imported qwen-code.jsonl (a Qwen Code session (JSONL)) as a session in OpenAI Chat Completions\' shape ("format": "openai-chat")',
    );
    expect(text).toContain('  messages   6 kept, of which a compacted-history summary (2 messages)');
    expect(text).toContain("  model      qwen3-coder-plus (from the records (the last assistant record's model))");
    expect(text).toContain('             line 7: an "assistant" record: a branch not on the chain');
    expect(text).toContain('  tools      grep ×1');
    expect(text).toContain('  partial    line 17 is cut off (the agent may still be writing it): left out');
    expect(text).toMatch(/ {2}tokens {5}~\d+/);
  });
});

describe('a fork of an imported session recalls what only its history holds (local simulator)', () => {
  const cases = [
    ['Gemini CLI checkpoint', `${F}/gemini-cli-checkpoint.json`, 'MARKER-G3C1'],
    ['Qwen Code session', `${F}/qwen-code.jsonl`, 'MARKER-QC7Z'],
    ['Claude Code session', `${F}/claude-code.jsonl`, 'MARKER-CC4D'],
    ['OpenAI request body', `${F}/openai-request.json`, 'MARKER-OA5E'],
  ] as const;
  it.each(cases)('%s', async (_name, path, marker) => {
    const session = await loadSession(path);
    const engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1 });
    try {
      const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'recall', directive: 'RECALL MARKER-[0-9A-Z]{4}' }]).results();
      expect(result?.status).toBe('completed');
      expect(result?.status === 'completed' ? result.text : '').toContain(marker);
    } finally {
      await engine.close();
    }
  });
});
