import { seedWindow } from '../../fork/seed-window.js';
import type { ForkTask, HistoryMode } from '../../session/schema.js';
import type { ForkResult } from '../../result/fork-result.js';
import { emptyCancelled } from '../../result/results.js';
import type { ForkTrace } from '../../telemetry/fan-out-trace.js';
import type { ForkChannel } from '../host-end.js';
import type { Taken, TaskSource } from '../task-source.js';
import type { ToolCallRecord } from '../report.js';

/** A task taken and not yet terminal: the only tasks a run holds (at most the read-ahead plus the forks in flight). */
export type Live =
  /** `inbox`: the parent's messages for it, delivered when it starts. */
  | { state: 'queued'; task: ForkTask; inbox?: string[] }
  /** `tools`: its tool calls so far, for the result listeners. */
  | {
      state: 'running';
      task: ForkTask;
      channel: ForkChannel;
      since: number;
      trace: ForkTrace;
      tools: ToolCallRecord[];
      graceTimer?: NodeJS.Timeout;
    };

export type Running = Extract<Live, { state: 'running' }>;

export interface IntakeHooks {
  /** A task just taken that must end before it runs (it would not fit the model's window): its result. */
  refusal(task: ForkTask): ForkResult | undefined;
  /** A queued task ends without running, with this result: cancelled, refused, or taken while draining. */
  endQueued(index: number, result: ForkResult): void;
  /** An async source's task arrived: the run takes and dispatches what it can. */
  arrived(): void;
}

/**
 * Task intake: tasks taken from their source as they are needed, at most `readAhead` waiting to
 * be dispatched (a stream of any length is never read whole), held from their taking to their end;
 * what is addressed to a task before it is taken (a message, a cancel), kept until it is; and the
 * end of the taking (the source exhausted, stopped early, or stopped by a bad task).
 */
export class TaskIntake {
  /** Tasks taken and not yet terminal, by index. */
  readonly live = new Map<number, Live>();
  /** The queued ones, in order. */
  private waiting: number[] = [];
  private takenCount = 0;
  /** Forks dispatched whose result is not in yet: what the report calls running. */
  private runningForks = 0;
  /** 'open': more may come; 'ended': the source is exhausted; 'stopped': no more are taken (cancel, budget, a bad task). */
  private taking: 'open' | 'ended' | 'stopped' = 'open';
  /**
   * Set when the run stops early over a source of known length: each task taken from then on ends
   * at once, with this result, so that every task of the source has one.
   */
  private draining: ((task: ForkTask) => ForkResult) | undefined;
  /** An async source's next task is on its way. */
  private pulling = false;
  private wakeFirst: (() => void) | undefined;
  private badTask: Error | undefined;
  /** Messages sent to a task of the run before it was taken: its inbox once it is. */
  private readonly sentAhead = new Map<string, string[]>();
  /** Ids cancelled before their task was taken: the task ends cancelled as it arrives. */
  private readonly cancelledAhead = new Set<string>();
  /** A task trimmed the history (forkTurns). */
  private trimmed: boolean;

  constructor(
    private readonly source: TaskSource,
    /** Tasks taken and not yet dispatched, at most: a whole wave, ready when the slots free up. */
    private readonly readAhead: number,
    private readonly hooks: IntakeHooks,
  ) {
    this.trimmed = source.all?.some(trimsHistory) ?? false;
  }

  /** Tasks taken so far. */
  get taken(): number {
    return this.takenCount;
  }

  /** Queued tasks, in order: the next to dispatch first. */
  get queued(): readonly number[] {
    return this.waiting;
  }

  /** More tasks may still come from the source. */
  get open(): boolean {
    return this.taking === 'open';
  }

  /** The taking stopped before the source's end (a cancel, a spent budget, a bad task). */
  get stoppedEarly(): boolean {
    return this.taking === 'stopped';
  }

  /**
   * Why the taking stopped at a bad task, once it has: the task's failed check, or what the
   * iterator threw.
   */
  get tasksError(): Error | undefined {
    return this.badTask;
  }

  /** A task taken trims the history (forkTurns): the forks share less than the whole prefix. */
  get trimmedTurns(): boolean {
    return this.trimmed;
  }

  /**
   * The run's tasks, when their number is known: the source ended, or it told its length before (an
   * array, a task file checked whole) and no bad task stopped the taking. Never a guess.
   */
  knownTotal(): number | undefined {
    if (this.taking === 'ended') return this.takenCount;
    return this.badTask === undefined ? this.source.total : undefined;
  }

  /** The whole source in order, when it is an array: its task ids tell which are still to be taken. */
  get all(): readonly ForkTask[] | undefined {
    return this.source.all;
  }

  /**
   * Takes one task when the read-ahead has room and the source has one at hand; true when it did
   * (or learnt the source's end), so the caller dispatches and takes again. An async source's task
   * comes later, through `arrived`.
   */
  takeOne(): boolean {
    if (this.taking !== 'open' || this.pulling || this.waiting.length >= this.readAhead) return false;
    const taken = this.source.take();
    if (taken instanceof Promise) {
      this.pulling = true;
      void taken.then((next) => {
        this.pulling = false;
        this.accept(next);
        this.hooks.arrived();
      });
      return false;
    }
    this.accept(taken);
    return true;
  }

  /** Resolves once a task waits to be dispatched or no more can come; undefined when that is so already. */
  firstTaken(): Promise<void> | undefined {
    if (this.waiting.length > 0 || this.taking !== 'open') return undefined;
    return new Promise<void>((resolve) => (this.wakeFirst = resolve));
  }

  private accept(taken: Taken): void {
    if (this.taking !== 'open') return; // arrived after the run stopped taking: not one of its tasks
    if (taken.kind === 'end') this.taking = 'ended';
    else if (taken.kind === 'error') {
      this.taking = 'stopped';
      this.badTask = taken.error;
      this.source.stop();
    } else {
      const index = this.takenCount++;
      const { task } = taken;
      if (this.draining !== undefined) {
        this.live.set(index, { state: 'queued', task });
        this.hooks.endQueued(index, this.draining(task));
        return;
      }
      if (trimsHistory(task)) this.trimmed = true;
      const inbox = this.sentAhead.get(task.id);
      this.sentAhead.delete(task.id);
      this.live.set(index, inbox === undefined ? { state: 'queued', task } : { state: 'queued', task, inbox });
      this.waiting.push(index);
      const refused = this.hooks.refusal(task);
      if (refused !== undefined) this.hooks.endQueued(index, refused);
      else if (this.cancelledAhead.delete(task.id)) this.hooks.endQueued(index, cancelledBeforeStart(task));
    }
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeFirst;
    this.wakeFirst = undefined;
    wake?.();
  }

  /**
   * Stops the taking: queued tasks are handed back (the caller ends them with `ended`), and so are
   * the tasks not taken yet when the source's length is known (an array, a task file): the rest is
   * taken, each ending at once with `ended(task)` as it comes, so every task has its result. A
   * stream that may still be growing is read no further.
   */
  stopTaking(ended: (task: ForkTask) => ForkResult): number[] {
    const queued = this.waiting;
    this.waiting = [];
    if (this.taking === 'open' && this.draining === undefined && this.source.total !== undefined) {
      this.draining = ended;
    } else if (this.taking === 'open' && this.draining === undefined) {
      this.taking = 'stopped';
      this.source.stop();
    }
    this.wake();
    return queued;
  }

  /** A queued task leaves the queue without running: its task, or undefined when it is not queued (it started, or ended). */
  unqueue(index: number): ForkTask | undefined {
    const live = this.live.get(index);
    if (live?.state !== 'queued') return undefined;
    const at = this.waiting.indexOf(index);
    if (at >= 0) this.waiting.splice(at, 1);
    return live.task;
  }

  /** A task dispatched (unqueued first) runs from now on; its inbox: the messages it was sent while queued. */
  started(index: number, running: Omit<Running, 'state' | 'task'>): string[] | undefined {
    const queued = this.live.get(index) as Live;
    this.live.set(index, { state: 'running', task: queued.task, ...running });
    this.runningForks++;
    return queued.state === 'queued' ? queued.inbox : undefined;
  }

  /** Forks running now. */
  get runningCount(): number {
    return this.runningForks;
  }

  /** A running fork's result is in (it is being settled): it counts as running no more. */
  ending(): void {
    this.runningForks--;
  }

  /** A task is terminal: the intake holds it no more. */
  forget(index: number): void {
    this.live.delete(index);
  }

  /** The queued task to send first: one of the default window (its response warms the most), else any fork. */
  lead(history: HistoryMode): number | undefined {
    const main = this.waiting.find((i) => seedWindow(this.taskAt(i), history) === `${history}|all`);
    return main ?? this.waiting.find((i) => this.taskAt(i).subagentType !== 'general-purpose') ?? this.waiting[0];
  }

  /** A task taken and not yet terminal. */
  taskAt(index: number): ForkTask {
    return (this.live.get(index) as Live).task;
  }

  /** The index of the live task with this id. */
  indexOf(id: string): number | undefined {
    for (const [index, live] of this.live) if (live.task.id === id) return index;
    return undefined;
  }

  /** Whether the task at `index` runs and is being cancelled (its worker has been asked to stop). */
  beingCancelled(index: number): boolean {
    const live = this.live.get(index);
    return live?.state === 'running' && live.graceTimer !== undefined;
  }

  /** Whether the task at `index` is running (not queued, not yet ended). */
  isRunning(index: number): boolean {
    return this.live.get(index)?.state === 'running';
  }

  /** The tasks running now. */
  *running(): IterableIterator<Running> {
    for (const live of this.live.values()) if (live.state === 'running') yield live;
  }

  /** Whether `id` is one of the source's tasks still to be taken (only an array's are known ahead). */
  isAhead(id: string): boolean {
    return (
      this.taking === 'open' && this.draining === undefined && (this.source.all?.findIndex((t) => t.id === id) ?? -1) >= this.takenCount
    );
  }

  /** A message for a task still to be taken (isAhead): it gets it when it is. */
  sendAhead(id: string, message: string): void {
    this.sentAhead.set(id, [...(this.sentAhead.get(id) ?? []), message]);
  }

  /**
   * A cancel for a task that may still come: it ends cancelled as it is taken. false: none can
   * (the run takes no more tasks, or an array's task of that id was taken already).
   */
  cancelAhead(id: string): boolean {
    if (this.taking !== 'open') return false;
    // An array's task that was taken already has ended: only one not taken yet can come.
    const all = this.source.all;
    if (all !== undefined && all.findIndex((t) => t.id === id) < this.takenCount) return false;
    this.cancelledAhead.add(id);
    return true;
  }
}

/** The result of a task cancelled while it waited. */
export function cancelledBeforeStart(task: ForkTask): ForkResult {
  return emptyCancelled(task.id, 'cancelled before it started');
}

function trimsHistory(task: ForkTask): boolean {
  return task.forkTurns !== undefined && task.forkTurns !== 'all';
}
