// Internal: importSession (src/import/load.ts), what loadSession reads a file with, returning the import's summary and origins too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, formatImportSummary, type ImportSummary, type ParentSession, parseSession } from '../src/index.js';
import { importSession } from '../src/import/load.js';
import { geminiSession } from './support/gemini-session.js';
import { recall as recallOn } from './support/recall.js';

/*
 * Transcripts as people have them (issue 22): real files from public repositories
 * (test/fixtures/import/real/, origins in its README) and files written after the record layouts
 * real files show (test/fixtures/import/). Each test asserts what a fork of the imported session
 * sees: a fork on the local simulator asked to RECALL what only the source conversation holds.
 */

const F = 'test/fixtures/import';
const R = `${F}/real`;

let engine: ForkEngine;
beforeAll(async () => {
  engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1 });
});
afterAll(async () => {
  await engine.close();
});

/** What a fork of `session` answers to `RECALL pattern` (test/support/recall.ts), on this file's engine. */
const recall = (session: ParentSession, pattern: string): Promise<string[]> => recallOn(engine, session, pattern);

async function imported(path: string, options: Parameters<typeof importSession>[1] = {}) {
  const result = await importSession(path, options);
  expect(parseSession(result.session)).toBe(result.session);
  return result;
}

type Block = { type: string; id?: string; tool_use_id?: string; text?: string; is_error?: boolean };
const messagesOf = (session: ParentSession) => (session as unknown as { messages: { role: string; content: string | Block[] }[] }).messages;
const blocksOf = (content: string | Block[]) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
const reasonsAt = (summary: ImportSummary) =>
  new Map(summary.dropped.map((d) => [`${d.line ?? ''}${d.path ? ` ${d.path}` : ''}`, d.reason]));

describe('Claude Code: no silent loss', () => {
  it('parallel calls: every tool_use record of a message.id is merged, each answered in the next message, in call order', async () => {
    const { session, summary } = await imported(`${F}/claude-code-parallel.jsonl`);
    const messages = messagesOf(session);
    const first = blocksOf(messages[1]?.content ?? '');
    expect(first.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use', 'tool_use', 'tool_use']);
    const calls = first.filter((b) => b.type === 'tool_use').map((b) => b.id);
    expect(blocksOf(messages[2]?.content ?? '').map((b) => b.tool_use_id)).toEqual(calls);
    // The results of the calls the parentUuid chain does not pass through reach the fork too.
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}')).toEqual([
      'MARKER-BA5H',
      'MARKER-CP2P',
      'MARKER-GL0B',
      'MARKER-GR3P',
      'MARKER-RE4D',
      'MARKER-SEQ1',
    ]);
    expect(summary.toolsUsed).toEqual([
      { name: 'Grep', calls: 1 },
      { name: 'Read', calls: 1 },
      { name: 'Glob', calls: 1 },
      { name: 'Bash', calls: 3 },
    ]);
    expect(summary.leftOut).toBeUndefined();
  });

  it('calls run one after another under one message.id: one assistant message, then all its results; a call with no result is answered and said so', async () => {
    const { session, summary } = await imported(`${F}/claude-code-parallel.jsonl`);
    const messages = messagesOf(session);
    const sequential = messages.findIndex((m) => JSON.stringify(m.content).includes('toolu_01BashFeeTests0000000005'));
    expect(blocksOf(messages[sequential]?.content ?? '').map((b) => b.id)).toEqual([
      'toolu_01BashFeeTests0000000005',
      'toolu_01BashRefundTests00000006',
    ]);
    const results = blocksOf(messages[sequential + 1]?.content ?? '');
    expect(results.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      ['toolu_01BashFeeTests0000000005', false],
      ['toolu_01BashRefundTests00000006', true],
    ]);
    expect(summary.notes).toContain(
      'line 19: the Bash call "toolu_01BashRefundTests00000006" has no result in the file; it is answered with an error result saying so (the Messages API requires an answer for every call)',
    );
  });

  it('whitespace-only text blocks are left out and listed (the Messages API refuses them), the rest of their message kept', async () => {
    const { session, summary } = await imported(`${F}/claude-code-parallel.jsonl`);
    const texts = messagesOf(session)
      .flatMap((m) => blocksOf(m.content))
      .filter((b) => b.type === 'text');
    expect(texts.every((b) => (b.text ?? '').trim() !== '')).toBe(true);
    const reasons = reasonsAt(summary);
    expect(reasons.get('3 message.content[0]')).toBe(
      'text of whitespace only, which the Messages API refuses ("text content blocks must contain non-whitespace text")',
    );
    expect(reasons.get('22 message.content[0]')).toBe(reasons.get('3 message.content[0]'));
    expect(messagesOf(session).at(-1)?.content).toEqual([{ type: 'text', text: 'The fee tests passed: 4 of 4.' }]);
  });

  it("a sub-agent file (every record a sidechain) is that sub-agent's conversation", async () => {
    const { session, summary } = await imported(`${F}/claude-code-subagent-2.1.jsonl`);
    expect(summary.kind).toBe('a Claude Code sub-agent session (JSONL)');
    expect(messagesOf(session).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await recall(session, 'MARKER-SB[0-9A-Z]{2}')).toEqual(['MARKER-SB1D', 'MARKER-SB2M', 'MARKER-SB3F']);
  });

  it("Claude Code 2.0.13, a sub-agent's records inline (real file): the sidechain is left out and listed, the Task result kept", async () => {
    const { session, summary } = await imported(`${R}/claude-code-2.0.13-subagent.jsonl`);
    expect(messagesOf(session).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(reasonsAt(summary).get('7')).toMatch(/^a sidechain: a sub-agent's conversation, not this one/);
    expect(await recall(session, 'Pretty[ ]friendly[ ]agent|React-based[ ]visual[ ]design[ ]tool')).toEqual([
      'Pretty friendly agent',
      'React-based visual design tool',
    ]);
  });

  it('compaction (real file, 2.0.13): the conversation starts at the summary, marked synthetic; what it replaced is listed, and the share left out is said first', async () => {
    const { session, summary } = await imported(`${R}/claude-code-2.0.13-compact.jsonl`);
    const messages = messagesOf(session);
    expect(String(messages[0]?.content)).toMatch(/^This session is being continued from a previous conversation/);
    expect(summary.synthetic).toEqual({ startupContext: 0, compactedSummary: 1 });
    expect(reasonsAt(summary).get('7')).toBe(
      'before the compaction on line 11: Claude Code resumes from its summary (line 12), not from these',
    );
    expect(summary.leftOut).toEqual({ messages: 6, of: 10 });
    expect(formatImportSummary(summary).split('\n')[0]).toBe(
      `forkpool: 6 of the 10 message records of ${R}/claude-code-2.0.13-compact.jsonl (60%) are left out of the session; each is listed under "dropped" with its reason`,
    );
    expect(summary.model).toEqual({ name: 'claude-sonnet-4-5-20250929', from: 'records' });
    // The summary is what the fork knows of the time before the compaction.
    expect(await recall(session, 'how[ ]are[ ]you[ ]doing|Tailwind[ ]Studio')).toEqual(['how are you doing']);
  });
});

describe('Claude Code 2.1 (real files)', () => {
  it('2.1.38, parallel calls (spotter tool_heavy.jsonl): the call and result the parentUuid chain skips reach the fork, answered in call order', async () => {
    const { session, summary } = await imported(`${R}/claude-code-2.1.38-parallel.jsonl`);
    const messages = messagesOf(session);
    // Line 27's "\n\n" text, line 28's thinking and lines 29-30's WebSearch and Glob calls share one message.id;
    // the chain from the last record passes through the WebSearch call only (line 30's Glob and its result, line 32, hang off it).
    const parallel = messages.findIndex((m) => JSON.stringify(m.content).includes('toolu_01JJds55jYrYwd9TktNGndRY'));
    expect(blocksOf(messages[parallel]?.content ?? '').map((b) => `${b.type} ${b.id ?? ''}`)).toEqual([
      'thinking ',
      'tool_use toolu_01DKTWcKpZ2ksZQmoKKfxiw6',
      'tool_use toolu_01JJds55jYrYwd9TktNGndRY',
    ]);
    const results = blocksOf(messages[parallel + 1]?.content ?? '') as (Block & { content?: unknown })[];
    expect(results.map((b) => b.tool_use_id)).toEqual(['toolu_01DKTWcKpZ2ksZQmoKKfxiw6', 'toolu_01JJds55jYrYwd9TktNGndRY']);
    expect(results[1]?.content).toBe('/home/marco/projects/spotter/assets/js/app.js');
    // The Glob call's pattern is on line 30 only, off the chain.
    expect(await recall(session, 'assets/js/[*]{2}/[*][.]js')).toEqual(['assets/js/**/*.js']);
    const reasons = reasonsAt(summary);
    expect(reasons.get('27 message.content[0]')).toBe(
      'text of whitespace only, which the Messages API refuses ("text content blocks must contain non-whitespace text")',
    );
    expect(reasons.get('9')).toBe('input queue bookkeeping, not a message');
    expect(reasons.get('23')).toMatch(/^the output of a local command as shown on screen/);
    expect(summary.dropped.some((d) => /branch not on the chain/.test(d.reason))).toBe(false);
    expect(summary.leftOut).toBeUndefined();
    expect(summary.model).toEqual({ name: 'claude-opus-4-6', from: 'records' });
  });

  it('2.1.38, four parallel calls answered out of order (spotter subagent.jsonl): all four results reach the fork, the Task result too', async () => {
    const { session, summary } = await imported(`${R}/claude-code-2.1.38-task.jsonl`);
    const messages = messagesOf(session);
    const first = messages.findIndex((m) => JSON.stringify(m.content).includes('toolu_01UBumkyGa4vv7EbMVke2AiH'));
    const calls = blocksOf(messages[first]?.content ?? '')
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.id);
    // Written as lines 9-12, their results as lines 13-16 in another order; the chain passes through lines 9, 10 and 16 only.
    expect(calls).toEqual([
      'toolu_01UBumkyGa4vv7EbMVke2AiH',
      'toolu_01FqWwvYWkHZHuD78wSmgc6r',
      'toolu_01PPH5xRopN6EKFruBKc1giM',
      'toolu_01DgymFTXTDEthJ9vJBG4n59',
    ]);
    expect(blocksOf(messages[first + 1]?.content ?? '').map((b) => b.tool_use_id)).toEqual(calls);
    // Line 13 (WebFetch), 14 and 15 (WebSearch) are off the chain; line 16 is on it.
    expect(await recall(session, 'Claude[ ]Marketplace[ ]for[ ]Elixir|hexdocs[.]pm/(dialyxir|mix_audit|credo)')).toEqual([
      'Claude Marketplace for Elixir',
      'hexdocs.pm/credo',
      'hexdocs.pm/dialyxir',
      'hexdocs.pm/mix_audit',
    ]);
    expect(summary.toolsUsed).toContainEqual({ name: 'Task', calls: 1 });
    expect(summary.toolsUsed).toContainEqual({ name: 'WebSearch', calls: 5 });
    expect(reasonsAt(summary).get('6 message.content[0]')).toMatch(/^text of whitespace only/);
    expect(summary.dropped.some((d) => /branch not on the chain/.test(d.reason))).toBe(false);
    expect(summary.leftOut).toBeUndefined();
  });

  it('2.1.39, a sub-agent file (spotter subagents/agent-aac57f5.jsonl): every record a sidechain, two messages of six parallel calls each, results in another order', async () => {
    const { session, summary } = await imported(`${R}/claude-code-2.1.39-agent-aac57f5.jsonl`);
    expect(summary.kind).toBe('a Claude Code sub-agent session (JSONL)');
    const messages = messagesOf(session);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    for (const at of [1, 3]) {
      const calls = blocksOf(messages[at]?.content ?? '')
        .filter((b) => b.type === 'tool_use')
        .map((b) => b.id);
      expect(calls).toHaveLength(6);
      expect(blocksOf(messages[at + 1]?.content ?? '').map((b) => b.tool_use_id)).toEqual(calls);
    }
    // Of the twelve results the chain passes through three (lines 20, 28, 39); the others hang off their own calls.
    expect(
      await recall(
        session,
        'released[ ]on[ ][A-Z][a-z]+[ ][0-9]+|Latest[ ]Stable[ ]Version:[*]{2}[ ][0-9.]+[0-9]|opentelemetry_(req|process|ecto|liveview)',
      ),
    ).toEqual([
      'Latest Stable Version:** 1.10.0',
      'opentelemetry_ecto',
      'opentelemetry_liveview',
      'opentelemetry_process',
      'opentelemetry_req',
      'released on August 21',
      'released on Feb 21',
      'released on February 21',
      'released on July 11',
      'released on October 17',
    ]);
    expect(summary.toolsUsed).toEqual([
      { name: 'WebSearch', calls: 6 },
      { name: 'WebFetch', calls: 6 },
    ]);
    expect(summary.dropped.map((d) => d.reason)).toEqual(Array(12).fill('UI-only: progress shown while a tool runs'));
    expect(summary.leftOut).toBeUndefined();
  });
});

describe('OpenAI and Anthropic logs, read as the APIs read them', () => {
  it("null fields are absent, client extras and a stream delta's index are left out, all listed in one pass", async () => {
    const { session, summary } = await imported(`${F}/openai-request-log.json`);
    const messages = (session as unknown as { messages: Record<string, unknown>[] }).messages;
    expect(messages.map((m) => Object.keys(m))).toEqual([
      ['role', 'content'],
      ['role', 'content'],
      ['role', 'content', 'tool_calls'],
      ['role', 'tool_call_id', 'content'],
      ['role', 'content', 'refusal'],
    ]);
    expect(Object.keys(session)).toEqual(['format', 'model', 'messages', 'tools', 'temperature']);
    expect(summary.dropped.map((d) => d.path)).toEqual([
      'tool_choice',
      'parallel_tool_calls',
      'stream',
      'stream_options',
      'messages[1].sender',
      'messages[1].timestamp',
      'messages[1].displayContent',
      'messages[2].function_call',
      'messages[2].anthropicReasoning',
      'messages[2].reasoning',
      'messages[2].tool_calls[0].index',
      'messages[3].tool_name',
      'messages[3].name',
      'messages[4].tool_calls',
      'messages[4].function_call',
      'messages[4].anthropicReasoning',
    ]);
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+')).toEqual(['MARKER-OL9G', 'REFUND_FEE = 2.5']);
  });

  it('what the API itself refuses stays an error, with its path and rule', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const path = join(mkdtempSync(join(tmpdir(), 'forkpool-import-real-')), 'bad.json');
    writeFileSync(
      path,
      JSON.stringify({
        model: 'm',
        messages: [
          { role: 'user', content: 'hi', sender: 'x' },
          { role: 'tool', content: 'r', tool_call_id: null },
        ],
      }),
    );
    await expect(importSession(path)).rejects.toThrow(`${path}: messages[1].tool_call_id: is required`);
  });
});

describe('Qwen Code: the model and provider it was recorded with', () => {
  it('0.15.6 on an OpenAI-compatible server (real file): an openai-chat session with the model as the server named it', async () => {
    const { session, summary } = await imported(`${R}/qwen-code-0.15.6.jsonl`);
    expect(session.format).toBe('openai-chat');
    expect(session.model).toBe('cleanunicorn/qwen3-coder-30b-a3b-instruct');
    expect(summary.shape).toBe('openai-chat');
    expect(summary.notes).toContain(
      'recorded with auth_type "openai" (an OpenAI-compatible API): converted to an openai-chat session; run it with --provider openai-compatible --base-url URL (or the local server)',
    );
    expect(await recall(session, '0\\.69935132|simple[ ]multiplication')).toEqual(['0.69935132']);
  });
});

describe('Gemini CLI recordings (real files)', () => {
  type Part = {
    text?: string;
    thought?: boolean;
    functionCall?: { id?: string; name: string; args: Record<string, unknown> };
    functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  };
  const historyOf = (session: ParentSession) => (session as unknown as { history: { role: string; parts: Part[] }[] }).history;

  it('October 2025, gemini-2.5-pro (ai-sessions gemini-cli-pomodoro-timer.json): three calls of one message answered together, an error result kept, thought summaries sent back', async () => {
    const { session, summary } = await imported(`${R}/gemini-cli-2025-10-recording.json`);
    expect(summary.kind).toBe('a Gemini CLI session recording');
    const history = historyOf(session);
    expect(history).toHaveLength(28);
    expect(history[1]?.parts.map((p) => (p.functionCall ? p.functionCall.args.file_path : p.thought ? 'thought' : 'text'))).toEqual([
      'thought',
      'thought',
      'text',
      '/Users/yoavfarhi/dev/pomodoro/gemini/index.html',
      '/Users/yoavfarhi/dev/pomodoro/gemini/style.css',
      '/Users/yoavfarhi/dev/pomodoro/gemini/script.js',
    ]);
    expect(history[2]?.parts.map((p) => p.functionResponse?.id)).toEqual(
      history[1]?.parts.flatMap((p) => (p.functionCall ? [p.functionCall.id] : [])),
    );
    // Each write_file result, and the replace call's error, exist only in the recorded toolCalls' results.
    expect(
      await recall(session, 'wrote[ ]to[ ]new[ ]file: /[A-Za-z/]+/(index|style|script)[.][a-z]+|A[ ]secondary[ ]check[ ]by[ ]an[ ]LLM'),
    ).toEqual([
      'A secondary check by an LLM',
      'wrote to new file: /Users/yoavfarhi/dev/pomodoro/gemini/index.html',
      'wrote to new file: /Users/yoavfarhi/dev/pomodoro/gemini/script.js',
      'wrote to new file: /Users/yoavfarhi/dev/pomodoro/gemini/style.css',
    ]);
    expect(summary.toolsUsed).toEqual([
      { name: 'write_file', calls: 3 },
      { name: 'replace', calls: 8 },
    ]);
    expect(summary.dropped).toEqual([]);
    expect(summary.model).toEqual({ name: 'gemini-2.5-pro', from: 'records' });
  });

  it("March 2026, gemini-3.1-pro-preview (aim matrix_pro.json): Part[] user content, read_file start_line/end_line mapped to forkpool's read_file, its error result kept", async () => {
    const { session, summary } = await imported(`${R}/gemini-cli-2026-03-recording.json`);
    const history = historyOf(session);
    expect(history.map((c) => c.role)).toEqual(Array.from({ length: 70 }, (_, i) => (i % 2 === 0 ? 'user' : 'model')));
    const calls = history.flatMap((c) => c.parts.flatMap((p) => (p.functionCall?.name === 'read_file' ? [p.functionCall.args] : [])));
    expect(calls).toEqual([
      { path: 'TASK.md' },
      { path: 'django/core/validators.py', offset: 100, limit: 61 },
      { path: 'django_repo/django/core/validators.py', offset: 100, limit: 61 },
    ]);
    expect(geminiSession(session).tools?.[0]).toMatchObject({ functionDeclarations: [{ name: 'read_file' }] });
    // The failed read's error and the shell results are in the tool results only.
    expect(await recall(session, 'File[ ]not[ ]found: [^ ]+[.]py|Found[ ][0-9]+[ ]matches[ ]for[ ]pattern')).toEqual([
      'File not found: /home/kingb/aim_benchmarks/django_matrix_pro/django/core/validators.py',
      'Found 100 matches for pattern',
      'Found 2 matches for pattern',
      'Found 47 matches for pattern',
    ]);
    expect(summary.toolsUsed).toContainEqual({ name: 'read_file', calls: 3 });
    expect(summary.dropped).toEqual([]);
    expect(summary.model).toEqual({ name: 'gemini-3.1-pro-preview', from: 'records' });
  });
});

describe('Gemini CLI: its current resume rules', () => {
  it('session and hook context and empty messages skipped, thought parts sent back, read_file ranges mapped, re-written records listed', async () => {
    const { session, summary } = await imported(`${F}/gemini-cli-current.jsonl`);
    const history = (session as unknown as { history: { role: string; parts: Record<string, unknown>[] }[] }).history;
    expect(history.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model']);
    expect(history[1]?.parts[0]).toEqual({ text: "**Reading the range** I'll read just lines 10-20.", thought: true });
    expect(history[1]?.parts[1]?.functionCall).toEqual({
      id: 'read_file_1772600000000_0',
      name: 'read_file',
      args: { path: '/home/ana/shop/src/orders.ts', offset: 10, limit: 11 },
    });
    expect(history[3]?.parts).toEqual([
      { text: '**Summarizing** The function sums the items.', thought: true },
      { text: 'Lines 10-20 compute the order total as the sum of its items.' },
    ]);
    expect(summary.dropped.map((d) => [d.line, d.reason])).toEqual([
      [2, 'session context Gemini CLI adds again itself on resume (a <session_context> message), not sent back'],
      [4, 'written again on line 5 (the same id): the later record replaces it'],
      [6, 'hook output Gemini CLI adds again itself on resume (a <hook_context> message), not sent back'],
      [8, 'empty: Gemini CLI leaves empty user messages out on resume'],
      [9, 'UI-only: shown to the user, never sent to the model'],
    ]);
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}|<session_[c]ontext>|<hook_[c]ontext>')).toEqual(['MARKER-GR4N']);
  });
});
