import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../src/transcript/read.js';
import { ForkEngine, type FanOutRun, type SendOutcome } from '../src/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { parentSession } from './support/engine-fixtures.js';

// Internal: readTranscript (src/transcript) reads what a fork's seed kept of the parent's last turn.
/*
 * The library's side of task_stop and send_message (issue 26): `run.cancel(id)` and
 * `run.send(id, message)` on a fan-out, against `forkpool serve` in another process.
 */

let server: ServeProcess;
let engine: ForkEngine;
beforeAll(async () => {
  server = await startServe();
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, concurrency: 1, warmup: 'none' });
});
afterAll(async () => {
  await engine.close();
  await server.stop();
});

const prefix = () => engine.freeze(parentSession([], { words: 10 }));
const later = <T>(ms: number, fn: () => T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

describe('run.send and run.cancel', () => {
  it('a message reaches a running fork at its next turn boundary, and one sent to a queued fork when it starts', async () => {
    // One fork at a time: "queued" waits for "running" to end, and has the message when it starts.
    const run = engine.fanOut(prefix(), [
      { id: 'running', directive: 'SLEEP 800\nRECALL parent agent\\]: \\S+' },
      { id: 'queued', directive: 'RECALL parent agent\\]: \\S+' },
    ]);
    const sent = await later(200, () => [run.send('running', 'to-running'), run.send('queued', 'to-queued')]);
    expect(sent).toEqual([{ status: 'delivered' }, { status: 'delivered' }]);
    const results = await run.results();
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('running')?.text).toContain('parent agent]: to-running');
    // It had answered without it first: the message got a turn of its own.
    expect(byId.get('running')?.turns).toBe(2);
    expect(byId.get('queued')?.text).toContain('parent agent]: to-queued');
    // Without transcripts a run keeps nothing of a fork that ended, so nothing to revive.
    expect(run.send('running', 'too late')).toEqual({ status: 'unknown' });
    expect(run.send('nobody', 'hello')).toEqual({ status: 'unknown' });
  });

  it('cancel ends one fork cancelled and leaves its sibling alone; a fork may not call task_stop or send_message itself', async () => {
    const run = engine.fanOut(prefix(), [
      { id: 'stopped', directive: 'SLEEP 30000' },
      {
        id: 'sibling',
        directive: 'CALL task_stop {"task_id":"stopped"}\nCALL send_message {"task_id":"stopped","message":"x"}\nREPLY tried',
      },
    ]);
    expect(await later(200, () => run.cancel('stopped'))).toBe(true);
    const results = await run.results();
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('stopped')?.status).toBe('cancelled');
    expect(byId.get('sibling')?.status).toBe('completed');
    expect(byId.get('sibling')?.text).toBe('tried');
    expect(run.cancel('stopped')).toBe(false);
    const refused = (
      await engine.fanOut(prefix(), [{ id: 'asks', directive: 'CALL task_stop {"task_id":"x"}\nRECALL task_stop manages [^.]+' }]).results()
    )[0];
    expect(refused?.text).toContain("task_stop manages the main agent's background tasks and is not available inside a sub-agent");
  });

  it('a message sent as a fork finishes is read or refused, never lost', async () => {
    // Whatever the race, a message send() calls delivered is read by the fork (its answer quotes
    // it), and one it refuses is not: none is lost.
    const tasks = Array.from({ length: 24 }, (_, i) => ({ id: `race-${i}`, directive: 'RECALL parent agent\\]: \\S+' }));
    const outcomes = new Map<string, Promise<SendOutcome>>();
    // From the first bytes of each fork's answer on, a few ms apart: before, during and after its end.
    const run: FanOutRun = engine.fanOut(prefix(), tasks, {
      onResponseStart: (id, turn) => {
        if (turn !== 1) return;
        const i = Number(id.slice('race-'.length));
        const send = (): SendOutcome => run.send(id, `late-${i}`);
        // At once, on the next turn of the event loop, or a moment later: around the fork's end.
        outcomes.set(
          id,
          i % 3 === 0
            ? Promise.resolve(send())
            : i % 3 === 1
              ? new Promise((resolve) => setImmediate(() => resolve(send())))
              : later(1, send),
        );
      },
    });
    const results = await run.results();
    const seen = new Set<string>();
    for (const [i, result] of results.entries()) {
      const outcome = await outcomes.get(`race-${i}`);
      seen.add(outcome?.status ?? 'none');
      if (outcome?.status === 'delivered') expect(result.text).toContain(`parent agent]: late-${i}`);
      else expect(result.text).not.toContain(`late-${i}`);
    }
    expect([...seen].every((s) => ['delivered', 'not-delivered', 'unknown'].includes(s))).toBe(true);
  });

  it('on its last allowed turn a fork takes no message: the sender is told, and the fork completes', async () => {
    const run = engine.fanOut(prefix(), [{ id: 'last', directive: 'SLEEP 800\nREPLY done', maxTurns: 1 }]);
    const sent = await later(300, () => run.send('last', 'too late'));
    expect(sent).toEqual({ status: 'not-delivered', reason: 'it is ending (it has answered, or is on its last allowed turn)' });
    const [result] = await run.results();
    expect(result).toMatchObject({ status: 'completed', text: 'done', turns: 1 });
  });

  it('a fork seeded mid-turn keeps a send_message call as the parent sent it (only agent launches are redacted)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forkpool-task-control-'));
    const base = parentSession([], { words: 10 });
    const history = [
      ...base.history,
      { role: 'user' as const, parts: [{ text: 'Tell the task, and start another.' }] },
      {
        role: 'model' as const,
        parts: [
          { functionCall: { id: 'm1', name: 'send_message', args: { task_id: 'fork-a', message: 'keep-these-bytes' } } },
          { functionCall: { id: 'a1', name: 'agent', args: { description: 'x', prompt: 'secret-launch-prompt' } } },
        ],
      },
    ];
    const run = engine.fanOut(engine.freeze({ ...base, history }), [{ id: 'mid', directive: 'REPLY seen' }], { transcripts: { dir } });
    expect((await run.results())[0]?.status).toBe('completed');
    const transcript = await readTranscript(run.transcriptOf('mid') as string);
    const seed = transcript.lines.find((l) => l.type === 'seed');
    expect(seed).toMatchObject({ seedCase: 'mid-turn' });
    const own = JSON.stringify(transcript.lines.filter((l) => l.type === 'message' && l.role === 'seed'));
    expect(own).toContain('keep-these-bytes');
    expect(own).not.toContain('secret-launch-prompt');
    rmSync(dir, { recursive: true, force: true });
  });
});
