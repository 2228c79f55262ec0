// Internal: readTranscript and continuationOf (src/transcript) read the files back; the transcripts themselves come through forkpool.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine, defineTool, type ParentSession, type Tool } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { continuationOf } from '../src/transcript/continuation.js';
import { readTranscript } from '../src/transcript/read.js';
import { openAIChatSession, parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

let server: LocalServer;
let engine: ForkEngine;
let dir: string;
const log: ToolLog = { calls: [] };
/** `hold` answers once the test lets it: a fork cancelled while it waits leaves a turn without its answer. */
const held = { release: () => {}, waiting: Promise.resolve(), entered: () => {} };
const holdTool: Tool = defineTool({
  name: 'hold',
  description: 'Waits for the test.',
  parameters: z.object({}),
  execute: async () => {
    held.entered();
    await held.waiting;
    return { held: 'released' };
  },
});
const tools = [...testTools(log), holdTool];
let session: ParentSession;

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, tools });
  dir = mkdtempSync(join(tmpdir(), 'forkpool-transcripts-'));
  const base = parentSession(tools, { marker: 'MARKER-4242' });
  session = {
    ...base,
    tools: [
      {
        functionDeclarations: [
          ...tools.map((t) => t.declaration),
          { name: 'agent', description: 'Starts a sub-agent.', parametersJsonSchema: { type: 'object' } },
        ],
      },
    ],
  };
});
afterAll(async () => {
  await engine.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The Gemini requests the server received for one directive, as sent. */
function requestsOf(marker: string, from = 0): { contents: unknown[] }[] {
  return server.requests
    .slice(from)
    .filter((r) => r.route === 'streamGenerateContent' && r.body.includes(marker))
    .map((r) => JSON.parse(r.body) as { contents: unknown[] });
}

describe('transcripts', () => {
  it("records a fork's own messages with usage, and they rebuild its last request", async () => {
    const sub = join(dir, 'record');
    const prefix = engine.freeze(session);
    const run = engine.fanOut(prefix, [{ id: 'rec-1', directive: 'tr-record\nCALL lookup {"key":"k1"}\nREPLY done' }], {
      transcripts: { dir: sub },
    });
    const [result] = await run.results();
    expect(result?.status).toBe('completed');
    const file = run.transcriptOf('rec-1') as string;
    expect(file).toBe(join(sub, 'rec-1.jsonl'));
    const transcript = await readTranscript(file);
    expect(transcript.header).toMatchObject({ taskId: 'rec-1', prefixId: prefix.id, format: 'gemini', task: { id: 'rec-1' } });
    const kinds = transcript.lines.map((l) => (l.type === 'message' ? `${l.role}@${l.turn}` : l.type));
    expect(kinds).toEqual(['seed', 'seed@0', 'model@1', 'tool@1', 'model@2', 'end']);
    const models = transcript.lines.filter((l) => l.type === 'message' && l.role === 'model');
    expect(models.map((m) => m.type === 'message' && m.usage?.promptTokens)).toEqual(result?.calls.map((c) => c.promptTokens));
    expect(transcript.lines.at(-1)).toMatchObject({ type: 'end', status: 'completed', turns: 2 });

    // The parent's messages, then the transcript's: what the fork sent last (@google/genai writes each
    // part's keys in its own order, so this compares values; the other shapes' tests compare bytes).
    const seed = transcript.lines.find((l) => l.type === 'seed');
    const own = transcript.lines.flatMap((l) => (l.type === 'message' && l.turn < 2 ? [l.message] : []));
    const inherited = seed?.type === 'seed' ? seed.inherited : -1;
    const rebuilt = [...(session as { history: unknown[] }).history.slice(0, inherited), ...own];
    const last = requestsOf('tr-record').at(-1);
    expect(last?.contents).toEqual(rebuilt);
    // The raw file holds no request: never the system instruction or the parent's history again.
    expect(readFileSync(file, 'utf8')).not.toContain('MARKER-4242');
  });

  it("Chat Completions: the parent's messages and the transcript's are the last request's, byte for byte", async () => {
    const sub = join(dir, 'chat');
    const chat = openAIChatSession(tools, { marker: 'MARKER-7070' });
    const run = engine.fanOut(engine.freeze(chat), [{ id: 'chat-1', directive: 'tr-chat\nCALL lookup {"key":"c1"}\nREPLY chat-done' }], {
      transcripts: { dir: sub },
    });
    const [result] = await run.results();
    expect(result?.status).toBe('completed');
    const transcript = await readTranscript(run.transcriptOf('chat-1') as string);
    expect(transcript.header.format).toBe('openai-chat');
    const seed = transcript.lines.find((l) => l.type === 'seed');
    const inherited = seed?.type === 'seed' ? seed.inherited : -1;
    const own = transcript.lines.flatMap((l) => (l.type === 'message' && l.turn < 2 ? [l.message] : []));
    const body = server.requests.filter((r) => r.route === 'chat.completions' && r.body.includes('tr-chat')).at(-1)?.body ?? '';
    const sent = JSON.parse(body) as { messages: unknown[] };
    expect(JSON.stringify(sent.messages)).toBe(JSON.stringify([...chat.messages.slice(0, inherited), ...own]));
  });

  it('resume: a fork cut off mid-turn continues from its last completed turn, not from the start', async () => {
    const sub = join(dir, 'resume');
    const prefix = engine.freeze(session);
    const task = { id: 'res-1', directive: 'tr-resume\nCALL lookup {"key":"a"}\nCALL@2 hold {}\nREPLY finished' };
    held.waiting = new Promise<void>((resolve) => (held.release = resolve));
    const entered = new Promise<void>((resolve) => (held.entered = resolve));
    const first = engine.fanOut(prefix, [task], { transcripts: { dir: sub } });
    await entered;
    first.cancelAll();
    const [cut] = await first.results();
    expect(cut?.status).toBe('cancelled');
    held.release();
    const before = server.requests.length;

    const again = engine.fanOut(prefix, [task], { transcripts: { dir: sub, resume: true } });
    const [result] = await again.results();
    expect(result?.status).toBe('completed');
    expect(result?.text).toContain('finished');
    // Turn 1 came from the transcript; turn 2 (whose call was never answered) and turn 3 were sent now.
    expect(requestsOf('tr-resume', before)).toHaveLength(2);
    expect(result?.turns).toBe(3);
    expect(result?.calls).toHaveLength(3);
    expect(result?.toolCalls).toBe(2);
    const transcript = await readTranscript(first.transcriptOf('res-1') as string);
    expect(transcript.lines.filter((l) => l.type === 'resumed')).toEqual([expect.objectContaining({ from: 'crash' })]);
    expect(continuationOf(transcript)).toMatchObject({ turns: 3, ended: 'completed', endsOnAnswer: true });
  });

  it('resume: a torn last line is left out, and a task that never started starts afresh', async () => {
    const sub = join(dir, 'torn');
    const prefix = engine.freeze(session);
    const task = { id: 'torn-1', directive: 'tr-torn\nCALL lookup {"key":"t"}\nREPLY torn-done' };
    const first = engine.fanOut(prefix, [task], { transcripts: { dir: sub } });
    await first.results();
    const file = first.transcriptOf('torn-1') as string;
    // Cut the file after the tool's answer, mid-way through the final reply's line (a crash while writing it).
    const lines = readFileSync(file, 'utf8').split('\n');
    const answered = lines.findIndex((l) => l.includes('"role":"tool"'));
    writeFileSync(file, `${lines.slice(0, answered + 1).join('\n')}\n${(lines[answered + 1] ?? '').slice(0, 30)}`);
    const before = server.requests.length;
    const again = engine.fanOut(prefix, [task, { id: 'fresh-1', directive: 'tr-torn-fresh\nREPLY new' }], {
      transcripts: { dir: sub, resume: true },
    });
    const results = await again.results();
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(results[0]?.turns).toBe(2);
    expect(requestsOf('tr-torn', before).filter((r) => !JSON.stringify(r).includes('tr-torn-fresh'))).toHaveLength(1);
    expect(results[1]?.turns).toBe(1);
    const transcript = await readTranscript(file);
    expect(transcript.lines.filter((l) => l.type === 'message' && l.role === 'model')).toHaveLength(2);
    appendFileSync(file, '{"type":"message","turn":');
    expect((await readTranscript(file)).torn).toBe(true);
  });

  it('resume refuses a transcript of another conversation, naming it', async () => {
    const sub = join(dir, 'other');
    const task = { id: 'oth-1', directive: 'tr-other\nREPLY one' };
    const first = engine.fanOut(engine.freeze(session), [task], { transcripts: { dir: sub } });
    await first.results();
    const other = engine.freeze(parentSession(tools, { marker: 'MARKER-9999' }));
    const [result] = await engine.fanOut(other, [task], { transcripts: { dir: sub, resume: true } }).results();
    expect(result?.status).toBe('failed');
    expect(result?.status === 'failed' && result.error.message).toMatch(
      /oth-1\.jsonl continues another conversation \(prefix [0-9a-f]{12}, not [0-9a-f]{12}\)/,
    );
  });

  it('run.send revives a completed fork: its own conversation is its prefix (served from cache), the message its next turn', async () => {
    const sub = join(dir, 'revive');
    const prefix = engine.freeze(session);
    const run = engine.fanOut(
      prefix,
      [
        { id: 'rev-1', directive: 'tr-revive\nRECALL parent agent\\]: \\S+' },
        { id: 'rev-fail', directive: 'tr-revive-fail\nFAIL 400' },
      ],
      {
        transcripts: { dir: sub },
      },
    );
    const [done, failed] = await run.results();
    expect(done?.status).toBe('completed');
    expect(done?.text).not.toContain('hello-7');
    expect(failed?.status).toBe('failed');
    const before = server.requests.length;

    const sent = run.send('rev-1', 'hello-7');
    expect(sent.status).toBe('revived');
    if (sent.status !== 'revived') return;
    // Sent again before the revival ran: it goes to the revival (one transcript, one fork going on).
    expect(run.send('rev-1', 'and-8')).toEqual({ status: 'delivered' });
    const [revived] = await sent.run.results();
    expect(revived?.status).toBe('completed');
    expect(revived?.text).toContain('parent agent]: hello-7');
    expect(revived?.text).toContain('parent agent]: and-8');
    // A fresh stretch, its turns counted from the revival: one call, or two when the second message
    // came after the first call had begun (it then gets a turn of its own).
    expect([1, 2]).toContain(revived?.turns);
    expect(revived?.calls).toHaveLength(revived?.turns ?? -1);
    expect(revived?.calls[0]?.cachedTokens).toBeGreaterThan(1000);
    const [earlier] = requestsOf('tr-revive').filter((r) => !JSON.stringify(r).includes('tr-revive-fail'));
    const [now] = requestsOf('tr-revive', before);
    const asSent = earlier?.contents ?? [];
    expect(now?.contents.slice(0, asSent.length)).toEqual(asSent);

    expect(run.send('rev-fail', 'again')).toEqual({ status: 'ended', forkStatus: 'failed' });
    expect(run.send('nobody', 'hi')).toEqual({ status: 'unknown' });
    const transcript = await readTranscript(run.transcriptOf('rev-1') as string);
    expect(transcript.lines.filter((l) => l.type === 'resumed')).toEqual([expect.objectContaining({ from: 'message' })]);
    expect(transcript.lines.filter((l) => l.type === 'end').map((l) => l.type === 'end' && l.status)).toEqual(['completed', 'completed']);
    // Revived again, through the first run or the revival's: the same file goes on.
    const twice = run.send('rev-1', 'hello-9');
    expect(twice.status).toBe('revived');
    if (twice.status === 'revived') expect((await twice.run.results())[0]?.text).toContain('hello-9');
  });

  it('a revival whose transcript is gone fails naming it, and runs nothing', async () => {
    const sub = join(dir, 'gone');
    const run = engine.fanOut(engine.freeze(session), [{ id: 'gone-1', directive: 'tr-gone\nREPLY once' }], { transcripts: { dir: sub } });
    await run.results();
    const file = run.transcriptOf('gone-1') as string;
    rmSync(file);
    const before = server.requests.length;
    const sent = run.send('gone-1', 'hello');
    expect(sent.status).toBe('revived');
    if (sent.status !== 'revived') return;
    const [result] = await sent.run.results();
    expect(result?.status).toBe('failed');
    expect(result?.status === 'failed' && result.error.message).toBe(`${file}: file not found`);
    expect(requestsOf('tr-gone', before)).toHaveLength(0);
    expect(existsSync(file)).toBe(false);
  });

  it('without transcripts, a fork that ended cannot be messaged', async () => {
    const run = engine.fanOut(engine.freeze(session), [{ id: 'plain-1', directive: 'REPLY plain' }]);
    await run.results();
    expect(run.send('plain-1', 'hi')).toEqual({ status: 'unknown' });
    expect(run.transcriptOf('plain-1')).toBeUndefined();
  });

  it('options.transcripts is checked once, naming the option', () => {
    const prefix = engine.freeze(session);
    expect(() => engine.fanOut(prefix, [], { transcripts: { dir: '' } })).toThrow('options.transcripts.dir must be a folder');
    expect(() => engine.fanOut(prefix, [], { transcripts: { dir: 'x', resume: 'yes' as never } })).toThrow(
      'options.transcripts.resume must be true or false',
    );
  });
});
