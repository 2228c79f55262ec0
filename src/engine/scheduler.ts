/**
 * Which fork goes next, and when: at most `concurrency` in flight, tasks in order, and with
 * warm-up every fork but the first waits until the first's response has begun (or the stagger
 * cap passes), so that its siblings find the prefix cached. One scheduler for the engine and the
 * benchmark's variants without an engine.
 */
export interface SchedulerOptions {
  concurrency: number;
  /** false: nobody waits (no warm-up, or the parent has just sent the prefix). */
  warmup: boolean;
  staggerCapMs: number;
  /**
   * How long a provider takes to make a written prefix readable (DeepSeek builds its disk cache in
   * "seconds"). With warm-up, the others go this long after the first response began; without
   * (the parent has just sent the prefix), every fork waits this long from the start. Default 0.
   */
  cacheBuildMs?: number;
  /**
   * The task that goes next, in order, or undefined when none is waiting now (the caller may not
   * have taken more yet: tasks can arrive as a stream). `dispatch` takes it off the queue.
   */
  next(): number | undefined;
  /** Whether a task is still waiting to be dispatched (a cancel may have settled it). */
  isQueued(index: number): boolean;
  /** Starts one task. The caller reports back with `responded(first)` and `finished(first)`. */
  dispatch(index: number, first: boolean): void;
}

export interface Scheduler {
  /** Begins dispatching, leading with `lead` when it is still queued (without one, with the next in order). */
  start(lead: number | undefined): void;
  /** Dispatches what may go now (after a cancel freed a task, or new tasks arrived). */
  pump(): void;
  /** A fork's first response began: the lead's releases its siblings. */
  responded(first: boolean): void;
  /** A dispatched fork's slot is free again. */
  finished(first: boolean): void;
  /** Clears the waits still pending (the run is over): nothing of the scheduler's outlives it. */
  stop(): void;
  readonly inFlight: number;
  readonly dispatched: number;
}

export function createScheduler(o: SchedulerOptions): Scheduler {
  let started = false;
  let inFlight = 0;
  let dispatched = 0;
  const buildMs = o.cacheBuildMs ?? 0;
  // Without warm-up but with a build delay, even the first fork waits for the parent's entry.
  let holding = !o.warmup && buildMs > 0;
  let released = !o.warmup && !holding;
  let releasing = false;
  // These waits are the run's work, not housekeeping: they keep the process alive (an unref'd one let
  // Node exit with code 13 mid-run whenever nothing else was pending), and each is cleared once moot.
  const timers = new Set<NodeJS.Timeout>();
  const after = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const stop = (): void => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
  const open = (): void => {
    if (released) return;
    released = true;
    stop();
    pump();
  };
  const release = (): void => {
    if (released || releasing) return;
    releasing = true;
    if (buildMs > 0) after(buildMs, open);
    else open();
  };
  const send = (index: number): void => {
    const first = dispatched === 0;
    if (first && !released) after(Math.max(o.staggerCapMs, buildMs), open);
    dispatched++;
    inFlight++;
    o.dispatch(index, first);
  };
  function pump(): void {
    if (!started) return;
    while (inFlight < o.concurrency && (released || (dispatched === 0 && !holding))) {
      const index = o.next();
      if (index === undefined) return;
      send(index);
    }
  }
  return {
    start(lead) {
      started = true;
      const go = (): void => {
        holding = false;
        released ||= !o.warmup;
        if (lead !== undefined && o.isQueued(lead) && o.concurrency > 0) send(lead);
        pump();
      };
      if (holding) after(buildMs, go);
      else go();
    },
    pump,
    stop,
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
