/**
 * Which fork goes next, and when: at most `concurrency` in flight, tasks in order, and with
 * warm-up every fork but the first waits until the first's response has begun (or the stagger
 * cap passes), so that its siblings find the prefix cached. One scheduler for the engine and the
 * benchmark's variants without an engine.
 */
export interface SchedulerOptions {
  /** How many tasks there are (indices 0 … count − 1). */
  count: number;
  concurrency: number;
  /** false: nobody waits (no warm-up, or the parent has just sent the prefix). */
  warmup: boolean;
  staggerCapMs: number;
  /** Whether a task is still waiting to be dispatched (a cancel may have settled it). */
  isQueued(index: number): boolean;
  /** Starts one task. The caller reports back with `responded(first)` and `finished(first)`. */
  dispatch(index: number, first: boolean): void;
}

export interface Scheduler {
  /** Begins dispatching, leading with `lead` when it is still queued. */
  start(lead: number): void;
  /** Dispatches what may go now (after a cancel freed a task, for instance). */
  pump(): void;
  /** A fork's first response began: the lead's releases its siblings. */
  responded(first: boolean): void;
  /** A dispatched fork's slot is free again. */
  finished(first: boolean): void;
  readonly inFlight: number;
  readonly dispatched: number;
}

export function createScheduler(o: SchedulerOptions): Scheduler {
  let started = false;
  let next = 0;
  let inFlight = 0;
  let dispatched = 0;
  let released = !o.warmup;
  const release = (): void => {
    if (released) return;
    released = true;
    pump();
  };
  const send = (index: number): void => {
    const first = dispatched === 0;
    if (first && !released) setTimeout(release, o.staggerCapMs).unref();
    dispatched++;
    inFlight++;
    o.dispatch(index, first);
  };
  function pump(): void {
    if (!started) return;
    while (next < o.count && inFlight < o.concurrency && (released || dispatched === 0)) {
      const index = next++;
      if (o.isQueued(index)) send(index);
    }
  }
  return {
    start(lead) {
      started = true;
      if (o.isQueued(lead) && o.concurrency > 0) send(lead);
      pump();
    },
    pump,
    responded(first) {
      if (first) release();
    },
    finished(first) {
      inFlight--;
      if (first) release();
      pump();
    },
    get inFlight() {
      return inFlight;
    },
    get dispatched() {
      return dispatched;
    },
  };
}
