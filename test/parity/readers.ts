import { expect, it } from 'vitest';
import { parentLines, streamSession } from '../../src/cli/stream-json.js';
import type { ModelMessage } from '../../src/model/types.js';
import { loadingOf } from '../../src/shapes/loading.js';
import { dialectFor, viewMessage } from '../../src/shapes/registry.js';
import type { Shape } from '../../src/shapes/shape.js';
import type { AnyMessage, CallView, MessageView } from '../../src/shapes/view.js';
import { replyContent, requestContent } from '../../src/shapes/call-content.js';
import type { TranscriptHeader, TranscriptLine } from '../../src/transcript/format.js';
import { TRANSCRIPT_VERSION } from '../../src/transcript/format.js';
import { printTranscript } from '../../src/transcript/print.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

/*
 * The readers' facets: a shape reads its own messages (its `reader`), and everything that shows a
 * conversation — stream-json, transcripts, telemetry content — reads it through that view. Checked
 * on the shape's sample session and on the results its own dialect writes, ok and failed.
 */

type Line = Record<string, any>;

/** The sample's conversation and each message's view by the shape's reader. */
function sample(shape: Shape): { session: Record<string, unknown>; messages: AnyMessage[]; views: MessageView[] } {
  const session = loadingOf(shape).parse(sampleSession(shape.format)) as Record<string, unknown>;
  const messages = shape.messages(session) as AnyMessage[];
  return { session, messages, views: messages.map((m) => shape.reader.view(m)) };
}

/** The results the shape's dialect writes for two calls, one answered and one failed, then a user's words. */
function answered(shape: Shape): { calls: CallView[]; messages: AnyMessage[] } {
  const calls: CallView[] = [
    { id: 'call_ok', name: 'lookup', args: { key: 'a' } },
    { id: 'call_bad', name: 'lookup', args: { key: 'b' } },
  ];
  const { messages } = shape.dialect.answer(calls, [{ output: 'found it' }, { error: 'no such key' }], ['and now?']);
  return { calls, messages };
}

export function readersParity(shape: Shape): void {
  it('its reader finds the sample’s calls, and results with their text, answering those calls by id', () => {
    const { views } = sample(shape);
    const calls = views.flatMap((v) => v.calls);
    const results = views.flatMap((v) => v.results);
    expect(calls.length).toBeGreaterThan(0);
    expect(results.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.name).toMatch(/\S/);
    const ids = new Set(calls.map((c) => c.id));
    for (const result of results) {
      expect(ids.has(result.id)).toBe(true);
      expect(result.text).toMatch(/\S/);
      expect(result.isError).toBe(false);
    }
    // The parts hold the same calls and results, in order, beside the texts.
    for (const view of views) {
      expect(view.parts.flatMap((p) => (p.kind === 'call' ? [p.call] : []))).toEqual(view.calls);
      expect(view.parts.flatMap((p) => (p.kind === 'result' ? [p.result] : []))).toEqual(view.results);
    }
    expect(views.some((v) => v.role === 'model' && v.texts.length > 0)).toBe(true);
    expect(views.some((v) => v.role === 'user' && v.texts.length > 0)).toBe(true);
  });

  it('reads back the results its dialect writes: the output’s text, the error’s message with its flag, then the user’s words', () => {
    const { messages } = answered(shape);
    const views = messages.map((m) => shape.reader.view(m));
    expect(views.flatMap((v) => v.results).map((r) => ({ id: r.id, text: r.text, isError: r.isError }))).toEqual([
      { id: 'call_ok', text: 'found it', isError: false },
      { id: 'call_bad', text: 'no such key', isError: true },
    ]);
    expect(views.flatMap((v) => v.texts).at(-1)).toBe('and now?');
    // Without its shape at hand (the fork rules' public functions), a message reads the same.
    for (const [i, message] of messages.entries()) expect(viewMessage(message)).toEqual(views[i]);
  });

  it('a frozen message is read once: the same view each time', () => {
    const { messages } = sample(shape);
    const frozen = Object.freeze(structuredClone(messages.find((m) => shape.reader.view(m).calls.length > 0)!));
    expect(shape.reader.view(frozen)).toBe(shape.reader.view(frozen));
  });

  it('stream-json: the model’s message is an assistant line with its tool_use blocks, the answers user lines with tool_result blocks', () => {
    const { messages, views } = sample(shape);
    const at = views.findIndex((v) => v.role === 'model' && v.calls.length > 0);
    const reply = messages[at]!;
    const written: string[] = [];
    const lines = parentLines(streamSession('parity'), shape.reader, 'model-x', (line) => written.push(line));
    // The ids the parent loop gives calls that have none (Gemini's often have none).
    const callIds = views[at]!.calls.map((c, i) => c.id ?? `call-${i + 1}`);
    lines.event({
      type: 'message',
      role: 'assistant',
      message: reply,
      turn: 1,
      usage: { promptTokens: 10, cachedTokens: 0, outputTokens: 2 },
      callIds,
    });
    const { messages: answers } = shape.dialect.answer(
      views[at]!.calls,
      views[at]!.calls.map(() => ({ output: 'done' })),
      ['next?'],
    );
    for (const answer of answers) lines.event({ type: 'message', role: 'user', message: answer, turn: 1 });
    const out = written.map((l) => JSON.parse(l) as Line);
    const uses = out
      .filter((l) => l.type === 'assistant')
      .flatMap((l) => l.message.content as Line[])
      .filter((b) => b.type === 'tool_use');
    expect(uses.map((b) => b.name)).toEqual(views[at]!.calls.map((c) => c.name));
    expect(uses.map((b) => b.id)).toEqual(callIds);
    const users = out.filter((l) => l.type === 'user').flatMap((l) => l.message.content as Line[]);
    expect(users.filter((b) => b.type === 'tool_result')).toEqual(
      uses.map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'done', is_error: false })),
    );
    expect(users.filter((b) => b.type === 'text')).toEqual([{ type: 'text', text: 'next?' }]);
    expect(out.every((l) => l.parent_tool_use_id === null)).toBe(true);
  });

  it('a transcript of its messages prints the calls, the results (an error as one) and the texts', () => {
    const { views, messages } = sample(shape);
    const at = views.findIndex((v) => v.role === 'model' && v.calls.length > 0);
    const call = views[at]!.calls[0]!;
    const { messages: results } = shape.dialect.answer([call], [{ error: 'it broke' }], []);
    const header = {
      type: 'header',
      version: TRANSCRIPT_VERSION,
      taskId: 't-parity',
      prefixId: '0123456789abcdef',
      format: shape.format,
      task: { id: 't-parity', directive: 'look' },
      at: '2026-01-01T00:00:00.000Z',
    } as unknown as TranscriptHeader;
    const lines: TranscriptLine[] = [
      header,
      {
        type: 'message',
        turn: 1,
        role: 'model',
        message: messages[at],
        usage: { promptTokens: 1200, cachedTokens: 1024, outputTokens: 30 },
      },
      ...results.map((message): TranscriptLine => ({ type: 'message', turn: 1, role: 'tool', message })),
      { type: 'end', status: 'completed', turns: 1, at: '2026-01-01T00:00:01.000Z' },
    ];
    const text = printTranscript({ file: 'parity.jsonl', header, lines, torn: false });
    expect(text).toContain(`  format     ${shape.format}\n`);
    expect(text).toContain(`  → ${call.name}(`);
    expect(text).toContain(`  ← ${call.name}: error: it broke\n`);
    expect(text).toContain('totals: 1 turn · 1 model call');
  });

  it('telemetry: its requests and replies as the conventions’ messages, calls and their responses among them', () => {
    const { session, messages, views } = sample(shape);
    const request = dialectFor(shape.format).request(session, messages);
    const input = JSON.parse(requestContent(request).input) as { role: string; parts: { type: string; name?: string }[] }[];
    expect(input.length).toBeGreaterThan(0);
    const parts = input.flatMap((m) => m.parts);
    expect(parts.filter((p) => p.type === 'tool_call').map((p) => p.name)).toEqual(
      expect.arrayContaining(views.flatMap((v) => v.calls.map((c) => c.name))),
    );
    expect(parts.some((p) => p.type === 'tool_call_response')).toBe(true);
    expect(input.some((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text'))).toBe(true);
    const at = views.findIndex((v) => v.role === 'model' && v.calls.length > 0);
    const reply = JSON.parse(replyContent(shape.format, messages[at] as ModelMessage, 'tool_calls')) as {
      role: string;
      parts: { type: string }[];
      finish_reason: string;
    }[];
    expect(reply).toHaveLength(1);
    expect(reply[0]).toMatchObject({ role: 'assistant', finish_reason: 'tool_calls' });
    expect(reply[0]!.parts.some((p) => p.type === 'tool_call')).toBe(true);
  });
}
