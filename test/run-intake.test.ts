// Internal: TaskIntake (src/engine/run/intake.ts), a fan-out's task intake; fanOut's tasks and FanOutRun's cancel, send and report are its public face.
import { describe, expect, it } from 'vitest';
import { TaskIntake, cancelledBeforeStart } from '../src/engine/run/intake.js';
import { taskSource, type TaskInput } from '../src/engine/task-source.js';
import { emptyCancelled, emptyFailure } from '../src/result/results.js';
import type { ForkResult } from '../src/result/fork-result.js';
import type { ForkTask } from '../src/session/schema.js';

/* Task intake: tasks taken as they are needed, held until they end, and the taking stopped early. */

const tasks = (n: number): ForkTask[] => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, directive: `task ${i}` }));

/** An intake over `input`, recording what it hands back: queued tasks that end before running, and each arrival. */
function harness(input: TaskInput, readAhead: number, refuse: (task: ForkTask) => ForkResult | undefined = () => undefined) {
  const ended: { index: number; id: string; message: string }[] = [];
  let arrivals = 0;
  const intake: TaskIntake = new TaskIntake(taskSource(input), readAhead, {
    refusal: refuse,
    endQueued: (index, result) => {
      ended.push({ index, id: result.id, message: result.status === 'completed' ? '' : result.error.message });
      // As the run does: the task leaves the queue and, once settled, the intake.
      intake.unqueue(index);
      intake.forget(index);
    },
    arrived: () => arrivals++,
  });
  const takeAll = (): number => {
    let taken = 0;
    while (intake.takeOne()) taken++;
    return taken;
  };
  return { intake, ended, takeAll, arrivals: () => arrivals };
}

const queuedIds = (intake: TaskIntake): string[] => intake.queued.map((i) => intake.taskAt(i).id);

describe('task intake', () => {
  it('takes an array up to the read-ahead, in order, and takes more as tasks leave the queue', () => {
    const h = harness(tasks(5), 2);
    expect(h.takeAll()).toBe(2);
    expect(queuedIds(h.intake)).toEqual(['t0', 't1']);
    expect(h.intake.takeOne()).toBe(false);
    expect(h.intake.knownTotal()).toBe(5);
    // t0 is dispatched: one place more.
    expect(h.intake.unqueue(0)?.id).toBe('t0');
    expect(h.takeAll()).toBe(1);
    expect(queuedIds(h.intake)).toEqual(['t1', 't2']);
    expect(h.intake.taken).toBe(3);
    expect(h.intake.open).toBe(true);
  });

  it('learns the end of the source, and that no more can come', () => {
    const h = harness(tasks(1), 4);
    expect(h.takeAll()).toBe(2); // the task, then the end
    expect(h.intake.open).toBe(false);
    expect(h.intake.stoppedEarly).toBe(false);
    expect(h.intake.knownTotal()).toBe(1);
  });

  it('from an async iterable: each task arrives later, and the first wakes the run waiting for one', async () => {
    async function* stream(): AsyncGenerator<ForkTask> {
      yield* tasks(2);
    }
    const h = harness(stream(), 4);
    const first = h.intake.firstTaken();
    expect(first).toBeInstanceOf(Promise);
    expect(h.intake.takeOne()).toBe(false); // the pull is on its way
    expect(h.intake.takeOne()).toBe(false); // one pull at a time
    await first;
    expect(h.arrivals()).toBe(1);
    expect(queuedIds(h.intake)).toEqual(['t0']);
    expect(h.intake.firstTaken()).toBeUndefined();
    // A stream's length is not known before its end.
    expect(h.intake.knownTotal()).toBeUndefined();
  });

  it('stopped over an array: queued tasks are handed back, and each task taken from then on ends at once, so every task has a result', () => {
    const h = harness(tasks(5), 2);
    h.takeAll();
    const handedBack = h.intake.stopTaking((task) => emptyCancelled(task.id, 'the budget was spent before it started', 'budget'));
    expect(handedBack).toEqual([0, 1]);
    expect(h.intake.queued).toEqual([]);
    h.takeAll();
    expect(h.ended.map((e) => e.id)).toEqual(['t2', 't3', 't4']);
    expect(h.ended[0]?.message).toBe('the budget was spent before it started');
    expect(h.intake.knownTotal()).toBe(5);
    expect(h.intake.stoppedEarly).toBe(false);
  });

  it('stopped over a stream of unknown length: it is read no further, and the report can say so', () => {
    let pulled = 0;
    let told = false;
    function* stream(): Generator<ForkTask> {
      try {
        for (const task of tasks(10)) {
          pulled++;
          yield task;
        }
      } finally {
        told = true;
      }
    }
    const h = harness(stream(), 2);
    h.takeAll();
    expect(pulled).toBe(2);
    h.intake.stopTaking((task) => cancelledBeforeStart(task));
    expect(h.intake.takeOne()).toBe(false);
    expect(pulled).toBe(2);
    expect(told).toBe(true);
    expect(h.intake.stoppedEarly).toBe(true);
    expect(h.intake.open).toBe(false);
    expect(h.intake.knownTotal()).toBeUndefined();
  });

  it('a bad task stops the taking, named; the tasks before it stay', () => {
    const h = harness([{ id: 'good', directive: 'ok' }, { id: 'bad' } as ForkTask][Symbol.iterator](), 4);
    h.takeAll();
    expect(queuedIds(h.intake)).toEqual(['good']);
    expect(h.intake.tasksError?.message).toMatch(/^tasks\[1\]\.directive: is required/);
    expect(h.intake.stoppedEarly).toBe(true);
    expect(h.intake.knownTotal()).toBeUndefined();
  });

  it('a message or a cancel for a task not taken yet waits for it: its inbox, or its end as it arrives', () => {
    const h = harness(tasks(4), 1);
    h.takeAll();
    expect(h.intake.isAhead('t2')).toBe(true);
    expect(h.intake.isAhead('t0')).toBe(false); // taken already
    expect(h.intake.isAhead('nobody')).toBe(false);
    h.intake.sendAhead('t2', 'first');
    h.intake.sendAhead('t2', 'second');
    h.intake.cancelAhead('t1');
    h.intake.unqueue(0);
    h.takeAll();
    expect(h.ended.map((e) => [e.id, e.message])).toEqual([['t1', 'cancelled before it started']]);
    expect(queuedIds(h.intake)).toEqual(['t2']);
    const index = h.intake.indexOf('t2') as number;
    h.intake.unqueue(index);
    const inbox = h.intake.started(index, { channel: undefined as never, since: 0, trace: undefined as never, tools: [] });
    expect(inbox).toEqual(['first', 'second']);
    expect(h.intake.isRunning(index)).toBe(true);
    expect(h.intake.runningCount).toBe(1);
  });

  it('a task the run refuses ends before it runs', () => {
    const h = harness(tasks(3), 4, (task) => (task.id === 't1' ? emptyFailure(task.id, 'rejected', 'too big for the window') : undefined));
    h.takeAll();
    expect(h.ended).toEqual([{ index: 1, id: 't1', message: 'too big for the window' }]);
    expect(queuedIds(h.intake)).toEqual(['t0', 't2']);
  });

  it('notes a task that trims the history, and leads with a fork of the default window', () => {
    const trimmed: ForkTask[] = [
      { id: 'short', directive: 'a', forkTurns: 1 },
      { id: 'whole', directive: 'b' },
    ];
    const h = harness(trimmed, 4);
    expect(h.intake.trimmedTurns).toBe(true);
    h.takeAll();
    expect(h.intake.taskAt(h.intake.lead('inherit') as number).id).toBe('whole');
    expect(harness(tasks(2), 2).intake.trimmedTurns).toBe(false);
  });
});
