import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
// Internal: the transcript's writer, reader, continuation and printer (src/transcript/): `forkpool transcript` and `--resume` are their public face.
import { continuationOf } from '../../src/transcript/continuation.js';
import { TRANSCRIPT_VERSION, type TranscriptLine } from '../../src/transcript/format.js';
import { printTranscript } from '../../src/transcript/print.js';
import { readTranscript } from '../../src/transcript/read.js';
import { openTranscript } from '../../src/transcript/writer.js';
import { viewMessage } from '../../src/shapes/registry.js';
import type { AnyMessage } from '../../src/shapes/view.js';
import type { Shape } from '../../src/shapes/shape.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

const dir = mkdtempSync(join(tmpdir(), 'forkpool-parity-transcripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const USAGE = { promptTokens: 1200, cachedTokens: 1024, outputTokens: 40 };

/**
 * The transcript facet: a fork's conversation in the shape's own messages is written, read back to
 * where a resumed fork picks up, and printed with its calls and their results. The messages come
 * from the shape itself (its sample's call, its dialect's answer and texts), so a shape whose
 * readers disagree with its writers fails here.
 */
export function transcriptParity(shape: Shape): void {
  it('writes a transcript, reads it back to where a resumed fork picks up, and prints its calls and results', async () => {
    const session = sampleSession(shape.format);
    const dialect = shape.dialect;
    const reply = shape.messages(session).find((message) => viewMessage(message as AnyMessage).calls.length > 0) as AnyMessage | undefined;
    if (reply === undefined) throw new Error(`the ${shape.format} sample session holds no model call`);
    const calls = viewMessage(reply).calls;
    const answers = dialect.answer(
      calls,
      calls.map(() => ({ output: 'parity result text' })),
      [],
    ).messages;
    const final = dialect.modelText('The parity answer.');
    const child = dialect.userText('Find the parity marker.');
    const lines: TranscriptLine[] = [
      {
        type: 'header',
        version: TRANSCRIPT_VERSION,
        taskId: 'parity',
        prefixId: 'p'.repeat(64),
        format: shape.format,
        task: { id: 'parity', directive: 'Find the parity marker.' },
        at: '2026-12-05T10:00:00.000Z',
      },
      { type: 'seed', inherited: shape.messages(session).length, trimmed: 0, seedCase: 'continue' },
      { type: 'message', turn: 0, role: 'seed', message: child },
      { type: 'message', turn: 1, role: 'model', message: reply, usage: USAGE },
      ...answers.map(
        (message, i): TranscriptLine => ({ type: 'message', turn: 1, role: 'tool', message, part: i + 1, parts: answers.length }),
      ),
      { type: 'message', turn: 2, role: 'model', message: final, usage: USAGE },
      { type: 'end', status: 'completed', turns: 2, at: '2026-12-05T10:00:01.000Z' },
    ];
    const file = join(dir, `${shape.format}.jsonl`);
    const writer = openTranscript(file, 'fresh');
    for (const line of lines) writer.write(line);
    await writer.close();

    const transcript = await readTranscript(file);
    expect(transcript.header.format).toBe(shape.format);
    const continuation = continuationOf(transcript);
    expect(continuation.seedMessages).toEqual([child]);
    expect(continuation.messages).toEqual([reply, ...answers, final]);
    expect(continuation).toMatchObject({
      endsOnAnswer: true,
      turns: 2,
      toolCalls: calls.length,
      text: 'The parity answer.',
      ended: 'completed',
    });

    const printed = printTranscript(transcript);
    for (const call of calls) {
      expect(printed).toContain(`→ ${call.name}(`);
      expect(printed).toContain(`← ${call.name}: parity result text`);
    }
    expect(printed).toContain('The parity answer.');
    expect(printed).toContain(`format     ${shape.format}`);
  });
}
