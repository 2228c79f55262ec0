import type { ForkTask } from '../session/schema.js';
import { createTaskChecker, INDEX_PLACES } from '../session/task-check.js';
import { TaskLines } from '../session/task-lines.js';

/** What `fanOut` takes: an array, any iterable, or an async iterable of tasks. */
export type TaskInput = readonly ForkTask[] | Iterable<ForkTask> | AsyncIterable<ForkTask>;

/** One step of taking tasks: the next task (checked), the end, or why no more can be taken. */
export type Taken = { kind: 'task'; task: ForkTask } | { kind: 'end' } | { kind: 'error'; error: Error };

/** Where a run takes its tasks from, one at a time. */
export interface TaskSource {
  /** Every task, when they were given as an array (checked up front); undefined for a stream. */
  readonly all: readonly ForkTask[] | undefined;
  /**
   * How many tasks it holds, when that is known before they are taken (an array; a task file,
   * checked whole): such a source can be read to its end at once, so a run that stops early takes
   * the rest and ends each cancelled. undefined: a stream that may still be growing (standard input,
   * a pipe, the caller's iterator), of which a stopped run reads no more.
   */
  readonly total: number | undefined;
  /** The next task: at once for an array or an iterable, a promise (never rejected) for an async iterable. */
  take(): Taken | Promise<Taken>;
  /** No more will be taken: the iterator is told (a generator's `finally` runs; a TaskLines stops reading). */
  stop(): void;
}

/**
 * The run's task source. An array is checked whole, now (an InputError naming `tasks[i]` is thrown
 * by fanOut, and nothing runs); an iterable's tasks are checked one by one as they are taken (the
 * error then ends the taking, named the same way); TaskLines arrive checked (named `file:line`).
 */
export function taskSource(tasks: TaskInput): TaskSource {
  if (Array.isArray(tasks)) return arraySource(tasks as readonly ForkTask[]);
  if (tasks instanceof TaskLines) return asyncSource(tasks, (value) => value as ForkTask, tasks.total);
  const check = createTaskChecker(INDEX_PLACES);
  let index = 0;
  const checked = (value: unknown): ForkTask => check(value, index++);
  if (isAsyncIterable(tasks)) return asyncSource(tasks, checked);
  if (isIterable(tasks)) return syncSource(tasks, checked);
  throw new TypeError('ForkEngine.fanOut: tasks must be an array, an iterable or an async iterable of tasks');
}

function arraySource(tasks: readonly ForkTask[]): TaskSource {
  const check = createTaskChecker(INDEX_PLACES);
  tasks.forEach((task, i) => {
    check(task, i);
  });
  // Our own array (a pointer per task): a caller reusing theirs cannot change a run under way.
  const all = tasks.slice();
  let next = 0;
  return {
    all,
    total: all.length,
    take: () => (next < all.length ? { kind: 'task', task: all[next++] as ForkTask } : { kind: 'end' }),
    stop: () => undefined,
  };
}

function syncSource(tasks: Iterable<ForkTask>, check: (value: unknown) => ForkTask): TaskSource {
  const iterator = tasks[Symbol.iterator]();
  return {
    all: undefined,
    total: undefined,
    take() {
      try {
        const step = iterator.next();
        return step.done ? { kind: 'end' } : { kind: 'task', task: check(step.value) };
      } catch (err) {
        return { kind: 'error', error: asError(err) };
      }
    },
    stop() {
      try {
        iterator.return?.();
      } catch {
        // The caller's iterator failed to clean up: the run is over either way.
      }
    },
  };
}

function asyncSource(tasks: AsyncIterable<ForkTask>, check: (value: unknown) => ForkTask, total?: number): TaskSource {
  const iterator = tasks[Symbol.asyncIterator]();
  return {
    all: undefined,
    total,
    take: () =>
      iterator
        .next()
        .then(
          (step): Taken => (step.done ? { kind: 'end' } : { kind: 'task', task: check(step.value) }),
          (err: unknown): Taken => ({ kind: 'error', error: asError(err) }),
        )
        .catch((err: unknown): Taken => ({ kind: 'error', error: asError(err) })),
    stop() {
      // Not awaited: an async generator's return() waits for a next() in progress, which may never end.
      iterator.return?.().catch(() => undefined);
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ForkTask> {
  return value !== null && typeof value === 'object' && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

function isIterable(value: unknown): value is Iterable<ForkTask> {
  return value !== null && value !== undefined && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function';
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** One task on its own (ForkEngine.runFork), checked as a fan-out checks each: an InputError names `task`. */
export function checkTask(task: unknown): ForkTask {
  const check = createTaskChecker({ ...INDEX_PLACES, at: () => ({ path: 'task' }), name: () => 'task' });
  return check(task, 0);
}
