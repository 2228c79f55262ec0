// Internal: ForkMessages and TaskIntake (src/engine/run/), a fan-out's messaging and revival; FanOutRun.send and stop are their public face.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForkChannel } from '../src/engine/host-end.js';
import { TaskIntake } from '../src/engine/run/intake.js';
import { ForkMessages, type Revival } from '../src/engine/run/messages.js';
import type { MessagingSettings, SendOutcomeOf } from '../src/engine/run/send-outcome.js';
import { taskSource } from '../src/engine/task-source.js';
import type { ForkTask } from '../src/session/schema.js';

/* Messaging and revival: where the parent's message to a fork goes, whatever state the fork is in. */

/** A run a revival continues in, recording what reaches it. */
class RevivalRun implements Revival<RevivalRun> {
  readonly messages: string[] = [];
  readonly stopped: string[] = [];
  constructor(readonly task: ForkTask) {}
  send(id: string, message: string): SendOutcomeOf<RevivalRun> {
    this.messages.push(`${id}: ${message}`);
    return { status: 'delivered' };
  }
  stop(id: string): boolean {
    this.stopped.push(id);
    return true;
  }
}

/** The main thread's end of a fork's channel, as far as a message goes: it takes one until the fork is ending. */
function channel(accepts: boolean) {
  const sent: string[] = [];
  const send = (text: string): boolean => {
    if (accepts) sent.push(text);
    return accepts;
  };
  const end = { send } as unknown as ForkChannel;
  return { end, sent };
}

const tasks: ForkTask[] = ['running', 'ending', 'queued', 'ahead'].map((id) => ({ id, directive: `I am ${id}` }));

/** Four tasks: two running (one that still reads messages, one ending), one queued, one not taken yet. */
function harness(settings: Partial<MessagingSettings<RevivalRun>> = {}) {
  const intake = new TaskIntake(taskSource(tasks), 3, { refusal: () => undefined, endQueued: () => {}, arrived: () => {} });
  while (intake.takeOne());
  const open = channel(true);
  const ending = channel(false);
  for (const [index, ch] of [
    [0, open],
    [1, ending],
  ] as const) {
    intake.unqueue(index);
    intake.started(index, { channel: ch.end, since: 0, trace: undefined as never, tools: [] });
  }
  const revived: { task: string; message: string }[] = [];
  let closed = false;
  const messages = new ForkMessages<RevivalRun>(intake, {
    remoteForks: false,
    revive: (task, message) => {
      if (closed) return undefined;
      revived.push({ task: task.id, message });
      return new RevivalRun(task);
    },
    ...settings,
  });
  return { intake, messages, open, ending, revived, close: () => (closed = true) };
}

describe("a run's messages", () => {
  it('reach a running fork at once, a queued one when it starts, and one not taken yet when it is', () => {
    const h = harness();
    expect(h.messages.send('running', 'hello')).toEqual({ status: 'delivered' });
    expect(h.open.sent).toEqual(['hello']);
    expect(h.messages.send('ending', 'too late')).toEqual({
      status: 'not-delivered',
      reason: 'it is ending (it has answered, or is on its last allowed turn)',
    });
    expect(h.messages.send('queued', 'wait')).toEqual({ status: 'delivered' });
    expect(h.messages.send('ahead', 'later')).toEqual({ status: 'delivered' });
    expect(h.messages.send('nobody', 'hi')).toEqual({ status: 'unknown' });
    // The queued fork starts with its inbox; the task not taken yet gets its own once taken.
    expect(h.intake.unqueue(2)?.id).toBe('queued');
    expect(h.intake.started(2, { channel: channel(true).end, since: 0, trace: undefined as never, tools: [] })).toEqual(['wait']);
    expect(h.intake.takeOne()).toBe(true);
    const ahead = h.intake.indexOf('ahead') as number;
    expect(h.intake.live.get(ahead)).toMatchObject({ state: 'queued', inbox: ['later'] });
  });

  it('say a fork being stopped will not read it', () => {
    const h = harness();
    const live = h.intake.live.get(0);
    if (live?.state !== 'running') throw new Error('expected a running fork');
    live.graceTimer = setTimeout(() => {}, 0);
    clearTimeout(live.graceTimer);
    expect(h.intake.beingCancelled(0)).toBe(true);
    expect(h.messages.send('running', 'stop?')).toEqual({ status: 'not-delivered', reason: 'it is being stopped' });
    expect(h.open.sent).toEqual([]);
  });

  it('do not reach forks in another process (a distributed run)', () => {
    const h = harness({ remoteForks: true, transcripts: { dir: '/tmp/t' } });
    const elsewhere = { status: 'not-delivered', reason: 'it runs in another process (a distributed run), which messages do not reach' };
    expect(h.messages.send('running', 'x')).toEqual(elsewhere);
    expect(h.messages.send('queued', 'x')).toEqual(elsewhere);
    expect(h.messages.send('ahead', 'x')).toEqual(elsewhere);
    h.messages.forkEnded(tasks[0] as ForkTask, 'completed');
    h.intake.forget(0);
    expect(h.messages.send('running', 'x')).toEqual({
      status: 'not-delivered',
      reason: 'it ran in another process (a distributed run), which messages do not reach',
    });
    expect(h.open.sent).toEqual([]);
  });

  it('revive a completed fork once, with transcripts: later messages and stops go to its revival', () => {
    const h = harness({ transcripts: { dir: '/tmp/t' } });
    h.messages.forkEnded(tasks[0] as ForkTask, 'completed');
    h.intake.forget(0);
    const outcome = h.messages.send('running', 'once more');
    expect(outcome.status).toBe('revived');
    expect(h.revived).toEqual([{ task: 'running', message: 'once more' }]);
    const revival = (outcome as { run: RevivalRun }).run;
    expect(h.messages.revivalOf('running')).toBe(revival);
    expect(h.messages.send('running', 'and again')).toEqual({ status: 'delivered' });
    expect(revival.messages).toEqual(['running: and again']);
    expect(h.revived).toHaveLength(1);
  });

  it('do not revive a fork that failed or was cancelled, nor any once the engine is closed; without transcripts nothing is kept', () => {
    const h = harness({ transcripts: { dir: '/tmp/t' } });
    h.messages.forkEnded(tasks[0] as ForkTask, 'failed');
    h.intake.forget(0);
    expect(h.messages.send('running', 'x')).toEqual({ status: 'ended', forkStatus: 'failed' });
    h.messages.forkEnded(tasks[1] as ForkTask, 'completed');
    h.intake.forget(1);
    h.close();
    expect(h.messages.send('ending', 'x')).toEqual({ status: 'not-delivered', reason: 'the engine is closed' });
    const without = harness();
    without.messages.forkEnded(tasks[0] as ForkTask, 'completed');
    without.intake.forget(0);
    expect(without.messages.send('running', 'x')).toEqual({ status: 'unknown' });
    expect(without.messages.transcriptOf('running')).toBeUndefined();
    expect(without.messages.transcriptTarget('running')).toBeUndefined();
  });

  it("name each fork's transcript, and whether its fork continues from it", () => {
    const dir = join('/tmp', 'transcripts');
    const path = join(dir, 'running.jsonl');
    expect(harness({ transcripts: { dir } }).messages.transcriptTarget('running')).toEqual({ path });
    expect(harness({ transcripts: { dir, continueFrom: 'crash' } }).messages.transcriptTarget('running')).toEqual({
      path,
      continueFrom: 'crash',
    });
    expect(harness({ transcripts: { dir, continueFrom: 'message', message: 'go on' } }).messages.transcriptTarget('running')).toEqual({
      path,
      continueFrom: 'message',
      message: 'go on',
    });
    expect(harness({ transcripts: { dir } }).messages.transcriptOf('running')).toBe(path);
  });
});
