/**
 * Which fork goes next, and when: at most `concurrency` in flight, tasks in order, and with
 * warm-up the leads go one at a time, each once the one before it has a readable prefix (its
 * response has begun, or the stagger cap passed), and the rest after the last lead, so that they
 * find the prefix cached. One scheduler for the engine and the benchmark's variants without an engine.
 */
export interface SchedulerOptions {
  concurrency: number;
  /** false: nobody waits (no warm-up, or the parent has just sent the prefix). */
  warmup: boolean;
  /**
   * How many forks go one at a time before the rest (default 1). DeepSeek's cache makes a unit at
   * a prefix two requests share, so the shared prefix is cached only once a second fork has sent it.
   */
  leads?: number;
  staggerCapMs: number;
  /**
   * How long a provider takes to make a written prefix readable (DeepSeek builds its disk cache in
   * "seconds"). With warm-up, the next go this long after a lead's response began; without
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
  /** Starts one task, the `order`-th dispatched (0: the run's first). The caller reports back with `responded(order)` and `finished(order)`. */
  dispatch(index: number, order: number): void;
}

export interface Scheduler {
  /** Begins dispatching, leading with `lead` when it is still queued (without one, with the next in order). */
  start(lead: number | undefined): void;
  /** Dispatches what may go now (after a cancel freed a task, or new tasks arrived). */
  pump(): void;
  /** The `order`-th dispatched fork's first response began: a lead's lets the next go. */
  responded(order: number): void;
  /** The `order`-th dispatched fork's slot is free again. */
  finished(order: number): void;
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
  const leads = Math.max(1, o.leads ?? 1);
  // Without warm-up but with a build delay, even the first fork waits for the parent's entry.
  let holding = !o.warmup && buildMs > 0;
  let released = !o.warmup && !holding;
  /** With warm-up: how many forks may be dispatched before the release (the leads let go so far). */
  let allowed = 1;
  /** The leads whose prefix is being built (each advances once). */
  const advancing = new Set<number>();
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
  /** Lead `order`'s prefix is readable (or its cap passed): the next lead goes, or after the last, everyone. */
  const advance = (order: number): void => {
    if (released || order !== allowed - 1) return;
    stop();
    if (order >= leads - 1) released = true;
    else allowed++;
    pump();
  };
  const readable = (order: number): void => {
    if (released || order !== allowed - 1 || advancing.has(order)) return;
    advancing.add(order);
    if (buildMs > 0) after(buildMs, () => advance(order));
    else advance(order);
  };
  const send = (index: number): void => {
    const order = dispatched;
    if (!released && order < leads) after(Math.max(o.staggerCapMs, buildMs), () => advance(order));
    dispatched++;
    inFlight++;
    o.dispatch(index, order);
  };
  function pump(): void {
    if (!started) return;
    while (inFlight < o.concurrency && (released || (dispatched < allowed && !holding))) {
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
    responded: readable,
    finished(order) {
      inFlight--;
      readable(order);
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
