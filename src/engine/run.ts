import { needsWarmup } from '../model/plan.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { ForkTask } from '../session/schema.js';
import type { ToolHost } from '../tools/host.js';
import { startFork, type ForkPool, type ForkStart } from './fork-start.js';
import { forkJobOf, spawnToolsOf } from './fork-job.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { createEventLog, type EventsOptions, type ForkEvent } from './events.js';
import { seedWindow } from '../fork/seed-window.js';
import type { CancelKind, ForkResult } from '../result/fork-result.js';
import type { FanOutTrace } from '../telemetry/fan-out-trace.js';
import type { FanOutMetrics } from '../telemetry/metrics.js';
import { runTelemetry } from './run/telemetry.js';
import { emptyCancelled, thisRunsPart } from '../result/results.js';
import { warnDeprecated } from '../input/deprecation.js';
import { ForkpoolError } from '../input/forkpool-error.js';
import { windowRefusal } from './window-check.js';
import { createCacheAccounting, type CacheAccounting } from './cache-accounting.js';
import { efficiencyOf } from './cache-figures.js';
import type { TaskSource } from './task-source.js';
import type { ForkEnd, RunReport, ToolCallRecord } from './report.js';
import { cancelledBeforeStart, TaskIntake } from './run/intake.js';
import { RunSpending } from './run/spending.js';
import { ForkMessages } from './run/messages.js';
import type { SendOutcomeOf } from './run/send-outcome.js';
import { RunCaches } from './run/caches.js';
import { RunTally } from './run/tally.js';
import { cancelOnAbort } from './run/abort.js';
import type { RunSettingsOf } from './run/settings.js';
import { forkHooksOf, notifyAll, startedEvent, type RunListeners } from './run/fork-events.js';

/** @internal A run's settings: the options under their own names, and what the engine resolved from them once (the engine makes them). */
export type RunSettings = RunSettingsOf<FanOutRun>;

/** What became of a message sent to a fork (FanOutRun.send). */
export type SendOutcome = SendOutcomeOf<FanOutRun>;

/** Listens for each fork's result, with the task it ran and its figures and tool calls (the run keeps none once it is told). */
export type ResultListener = (result: ForkResult, task: ForkTask, end: ForkEnd) => void;

/**
 * One fan-out: forks of one prefix, scheduled over the engine's pool. Its parts: the intake
 * (tasks taken as they are needed, run/intake.ts), the scheduler (which goes next, and when), the
 * caches, the spending (budget and cost), the messages (and revivals), the tally (the report) and
 * each fork's events (run/fork-events.ts). The run starts forks, settles each exactly once, and
 * ends when nothing more can come.
 */
export class FanOutRun {
  readonly prefix: FrozenPrefix;
  private readonly intake: TaskIntake;
  private readonly scheduler: Scheduler;
  private readonly caches: RunCaches;
  private readonly spending: RunSpending;
  private readonly messages: ForkMessages<FanOutRun>;
  private readonly tally: RunTally;
  private readonly accounting: CacheAccounting;
  private readonly listeners: RunListeners;
  /** The tools that start agents (the option's and `agent`). */
  private readonly spawnTools: ReadonlySet<string>;
  private readonly log: ReturnType<typeof createEventLog<ForkEvent>>;
  /** What every fork is started with, once the run's caches are made. */
  private forkStart: ForkStart | undefined;
  private advancing = false;
  private readonly startedAt = performance.now();
  private endedAt: number | undefined;
  private readonly done: Promise<ForkResult[]>;
  private resolveDone!: (results: ForkResult[]) => void;
  private readonly resultListeners: ResultListener[] = [];
  /** The run's own background work (cache setup and cleanup), for the engine's close(). */
  private readonly background: Promise<void>;
  /** Its spans (src/telemetry): nothing when the application registered no tracer provider. */
  private readonly trace: FanOutTrace;
  /** Its metrics (src/telemetry): the API's no-op instruments when the application registered no meter provider. */
  private readonly metrics: FanOutMetrics;

  /** @internal engine.fanOut makes a run. */
  constructor(
    private readonly pool: ForkPool,
    private readonly host: ToolHost,
    private readonly settings: RunSettings,
    prefix: FrozenPrefix,
    source: TaskSource,
  ) {
    this.prefix = prefix;
    this.spawnTools = spawnToolsOf(settings);
    const { plan } = settings;
    this.intake = new TaskIntake(source, Math.max(1, settings.concurrency), {
      refusal: (task) =>
        settings.contextWindow === undefined
          ? undefined
          : windowRefusal(task, prefix, settings.contextWindow, { history: settings.history, spawnTools: this.spawnTools }),
      endQueued: (index, result) => this.cancelQueued(index, result),
      arrived: () => this.advance(),
    });
    this.caches = new RunCaches({ ...settings, spawnTools: this.spawnTools });
    this.spending = new RunSpending(settings, (reason, why) => {
      this.cancelQueuedAndRest({ why, kind: 'budget' });
      for (const running of this.intake.running()) running.channel.stop(reason);
    });
    this.messages = new ForkMessages<FanOutRun>(this.intake, settings);
    this.tally = new RunTally(settings.retainResults);
    this.accounting = createCacheAccounting(prefix, { history: settings.history, spawnTools: [...this.spawnTools], plan });
    this.log = createEventLog<ForkEvent>(settings.eventReplayLimit);
    const { trace, metrics, callMetrics } = runTelemetry(prefix, settings);
    this.trace = trace;
    this.metrics = metrics;
    // Nothing is dispatched before start(): an explicit cache may still be in the making.
    this.scheduler = createScheduler({
      concurrency: settings.concurrency,
      warmup: needsWarmup(plan, settings),
      staggerCapMs: settings.staggerCapMs,
      ...(plan.readable.leads !== undefined ? { leads: plan.readable.leads } : {}),
      // Nothing to wait for when nothing is cached (cache off) or when no fork waits (warm-up none).
      cacheBuildMs: settings.cache === 'off' || settings.warmup === 'none' ? 0 : plan.readable.buildMs,
      next: () => this.intake.queued[0],
      isQueued: (index) => this.intake.live.get(index)?.state === 'queued',
      dispatch: (index, order) => this.dispatch(index, order),
    });
    this.listeners = {
      readableAfter: plan.readable.after,
      firstResponses: new Map(),
      accounting: this.accounting,
      responded: (order) => this.scheduler.responded(order),
      log: this.log,
      callMetrics,
      spending: this.spending,
      onResponseStart: settings.onResponseStart,
    };
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    // Started on the next microtask: whoever subscribes right after fanOut() sees every event (an abort's too).
    this.background = Promise.resolve().then(() => this.start());
  }

  /**
   * The run's events from this call on (`{ replay: true }`: first the recent events the run still
   * keeps); the iterator ends when every fork is terminal.
   */
  events(options: EventsOptions = {}): AsyncIterableIterator<ForkEvent> {
    return this.log.read(options);
  }

  /**
   * Calls back once per fork, the moment its result exists (for writing results as they come), with
   * the task it ran. Results that ended before the listener was added are replayed only when
   * results are retained (without their tool calls: the run keeps those only until the result).
   */
  onResult(listener: ResultListener): void {
    this.resultListeners.push(listener);
    // forEach skips the holes of forks still running.
    this.tally.kept.forEach((k) => {
      listener(k.result, k.task, { figures: k.figures, tools: [] });
    });
  }

  /**
   * Every fork's result, in task order, once all are terminal. Unavailable with `retainResults:
   * false`. Rejects with `tasksError` when the run stopped taking tasks at a bad one (the results of
   * the forks before it went to onResult and are in report()).
   */
  results(): Promise<ForkResult[]> {
    if (!this.settings.retainResults) {
      return Promise.reject(
        new ForkpoolError(
          'results_not_retained',
          'FanOutRun.results: this run does not retain results (retainResults: false); take each from onResult, and await settled()',
        ),
      );
    }
    return this.done.then((results) => {
      const error = this.intake.tasksError;
      if (error) throw error;
      return results;
    });
  }

  /**
   * Why the run stopped taking tasks before their end, once it has: a task that failed its check
   * (an InputError naming `tasks[i]`, or `file:line` for streamTasks), or what the iterator threw.
   * The tasks before it still run; none after it is read.
   */
  get tasksError(): Error | undefined {
    return this.intake.tasksError;
  }

  /** Resolves when the run is over and its explicit caches are deleted. */
  async settled(): Promise<void> {
    await this.done;
    await this.background;
  }

  /**
   * Cancels one fork: one that has not ended (queued or running) ends cancelled with what it had,
   * one result as for any cancel; a task not taken yet is cancelled as it arrives. false: there is
   * nothing to cancel (the fork ended, is being cancelled already, or the run takes no more tasks).
   */
  cancel(id: string): boolean {
    if (this.stopLive(id)) return true;
    if (this.intake.indexOf(id) !== undefined || this.messages.hasEnded(id)) return false;
    return this.intake.cancelAhead(id);
  }

  /** @deprecated Use cancel(id). */
  stop(id: string): boolean {
    warnDeprecated('run.stop');
    return this.stopLive(id);
  }

  /** Stops one fork that has not ended (queued or running). false: no such fork is live (never taken, or already ended). */
  private stopLive(id: string): boolean {
    const revival = this.messages.revivalOf(id);
    if (revival !== undefined) return revival.stopLive(id);
    const index = this.intake.indexOf(id);
    // Already being cancelled: not stopped a second time.
    if (index === undefined || this.intake.beingCancelled(index)) return false;
    this.cancelIndex(index);
    return true;
  }

  /**
   * The parent's message to a fork. One that has not ended reads it at its next turn boundary
   * (with its tool results, or as a turn of its own after an answer; a queued one when it starts).
   * One that completed, in a run with transcripts, is revived: a run of its own continues it from
   * its transcript with the message as its next turn, on the same pool, and its result comes there.
   */
  send(id: string, message: string): SendOutcome {
    return this.messages.send(id, message);
  }

  /** Where a fork's transcript is written, in a run with transcripts. */
  transcriptOf(id: string): string | undefined {
    return this.messages.transcriptOf(id);
  }

  /**
   * Cancels every fork. The tasks not taken yet end cancelled too when the source's length is known
   * (an array, a task file); from a stream that may still be growing, no more are taken.
   */
  cancelAll(): void {
    this.cancelQueuedAndRest(undefined);
    for (const index of [...this.intake.live.keys()]) this.cancelIndex(index);
  }

  report(): RunReport {
    const s = this.settings;
    const intake = this.intake;
    return this.tally.report({
      prefix: this.prefix,
      plan: this.caches.plan,
      corrections: this.accounting.corrections(),
      wallMs: (this.endedAt ?? performance.now()) - this.startedAt,
      ended: this.endedAt !== undefined,
      forks: { total: intake.knownTotal(), taken: intake.taken, running: intake.runningCount, waiting: intake.queued.length },
      stoppedEarly: intake.stoppedEarly,
      tasksError: intake.tasksError,
      trimmedTurns: intake.trimmedTurns,
      warmup: s.parentWarm ? 'parent' : s.warmup,
      cache: { requested: s.cache, explicit: this.caches.active, note: this.caches.note, storage: this.caches.storage },
      cost: this.spending.cost(this.caches.storage),
      budget: (stoppedForks) => this.spending.budget(stoppedForks),
    });
  }

  private async start(): Promise<void> {
    if (this.settings.signal) cancelOnAbort(this.settings.signal, this);
    // Takes what it can now: up to the read-ahead from an array or an iterable; an async iterable's first pull starts.
    this.advance();
    const firstTaken = this.intake.firstTaken();
    if (firstTaken !== undefined) await firstTaken;
    if (this.intake.queued.length > 0) {
      // From a stream, the windows of the tasks read so far get a cache.
      const tasks = this.intake.all ?? this.intake.queued.map((i) => this.intake.taskAt(i));
      await this.caches.prepare(this.prefix.session, tasks, this.intake.all?.length);
    }
    const s = this.settings;
    const job = forkJobOf(this.prefix, s, {
      provider: s.provider,
      plan: this.caches.plan,
      toolTimeoutMs: this.host.longestTimeoutMs,
      captureContent: s.telemetry.captureContent === true,
    });
    this.forkStart = {
      pool: this.pool,
      host: this.host,
      gate: s.callGate,
      declaredTools: s.declaredTools,
      spawnTools: this.spawnTools,
      writesTranscripts: !s.remoteForks,
      job,
    };
    // The lead: a fork of the default window, whose first response warms the most.
    this.scheduler.start(this.intake.lead(s.history));
    this.advance();
  }

  /**
   * Takes tasks up to the read-ahead and dispatches what may go, until neither moves; then ends the
   * run when nothing more can come and every fork is terminal.
   */
  private advance(): void {
    if (this.advancing) return;
    this.advancing = true;
    try {
      do {
        if (this.forkStart !== undefined) this.scheduler.pump();
      } while (this.intake.takeOne());
    } finally {
      this.advancing = false;
    }
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.forkStart === undefined || this.endedAt !== undefined || this.intake.open || this.tally.settled < this.intake.taken) return;
    void this.finishRun();
  }

  /**
   * Starts the queued task at `index` on the pool, the `order`-th dispatched: its job names the
   * first response of its window (or the parent's stored one) for its first call's cache
   * diagnostics, its transcript, and its span for a fork in another process.
   */
  private dispatch(index: number, order: number): void {
    const s = this.settings;
    const start = this.forkStart as ForkStart;
    const task = this.intake.unqueue(index) as ForkTask;
    const window = seedWindow(task, s.history);
    this.accounting.dispatched(task, {
      first: order === 0,
      explicit: this.caches.holds(window),
      // An entry the first fork writes (DashScope's marked one) is not the parent's.
      parentWarm: s.parentWarm && this.caches.plan.readable.fromParent,
    });
    const trace = this.trace.fork(task);
    const previousResponseId = s.storedResponse ?? this.listeners.firstResponses.get(window);
    const transcript = this.messages.transcriptTarget(task.id);
    // Only a fork in another process needs its span in writing (its job carries it there).
    const traceContext = s.remoteForks ? trace.carrier() : undefined;
    const job = {
      ...start.job,
      ...(previousResponseId !== undefined ? { previousResponseId } : {}),
      ...(transcript !== undefined ? { transcript } : {}),
      ...(traceContext !== undefined ? { traceContext } : {}),
    };
    const running = () => this.intake.isRunning(index);
    const tools: ToolCallRecord[] = [];
    const { channel, result } = startFork(
      { ...start, job },
      task,
      forkHooksOf(this.listeners, { index, order, task, window, trace, running, tools }),
    );
    const inbox = this.intake.started(index, { channel, since: performance.now(), trace, tools });
    for (const message of inbox ?? []) channel.send(message);
    this.log.push(startedEvent(task));
    if (this.spending.spent) channel.stop(this.spending.stopReason);
    void result
      .then((r) => this.settle(index, r))
      .finally(() => {
        this.scheduler.finished(order);
        this.advance();
      });
  }

  /**
   * Queued forks end cancelled, and so do the tasks not taken yet when the source's length is known
   * (an array, a task file): the rest is taken, each task ending cancelled as it comes (with its
   * task_started and notification), so every task has its result. A stream that may still be
   * growing is read no further.
   */
  private cancelQueuedAndRest(reason: { why: string; kind: CancelKind } | undefined): void {
    const cancelled = (task: ForkTask): ForkResult =>
      reason ? emptyCancelled(task.id, reason.why, reason.kind) : cancelledBeforeStart(task);
    for (const index of this.intake.stopTaking(cancelled)) this.cancelQueued(index, cancelled(this.intake.taskAt(index)));
    // The rest of a source of known length: at once from an array, as it is read from a file.
    this.advance();
  }

  private cancelIndex(index: number): void {
    const live = this.intake.live.get(index);
    if (live?.state === 'queued') {
      this.cancelQueued(index, cancelledBeforeStart(live.task));
    } else if (live?.state === 'running' && live.graceTimer === undefined) {
      live.channel.cancel();
      // A worker that does not answer in time is recorded as cancelled; its late result is dropped.
      live.graceTimer = setTimeout(
        () => this.settle(index, emptyCancelled(live.task.id, 'cancelled; the worker did not confirm in time')),
        this.settings.cancelGraceMs,
      );
      live.graceTimer.unref();
    }
  }

  /** A fork that never started still gets its one task_started and one task_notification. */
  private cancelQueued(index: number, result: ForkResult): void {
    const task = this.intake.unqueue(index);
    if (task === undefined) return;
    this.log.push(startedEvent(task));
    // It is one of the run's forks in the trace too: a span that ends as it began.
    this.trace.fork(task).end(result);
    this.settle(index, result);
    this.advance();
  }

  /** The one place a fork becomes terminal: exactly once, whoever gets here first. */
  private settle(index: number, result: ForkResult): void {
    const live = this.intake.live.get(index);
    if (!live) return;
    if (live.state === 'running') {
      this.intake.ending();
      clearTimeout(live.graceTimer);
      live.trace.end(result);
      const forkUsd = this.spending.settled(index, result);
      // Time in flight as this thread saw it: from dispatch to the end, whoever ended the fork.
      result = {
        ...result,
        durationMs: Math.round(performance.now() - live.since),
        ...(forkUsd !== undefined ? { costUsd: forkUsd } : {}),
      };
    }
    // Nothing of the task stays behind unless results are retained (or transcripts kept, to revive it).
    this.intake.forget(index);
    this.messages.forkEnded(live.task, result.status);
    // A fork that picked up from its transcript (revived, or resumed with calls read back): its
    // figures are this run's calls', its first call no fork's first.
    const continued = this.settings.transcripts?.continueFrom === 'message' || result.calls[0]?.restored === true;
    const settled = this.accounting.settle(live.task, continued ? thisRunsPart(result) : result, continued);
    if (!continued) result = settled.result;
    const figures = settled.figures;
    this.tally.add(index, live.task, result, figures, settled.miss, this.caches.plan.pricing);
    this.metrics.settled({ status: result.status, retries: result.retries, maxCachedTokens: figures.theoreticalCachedTokens });
    const t = this.tally.totals;
    // As the report computes it, before its corrections (finishRun records the report's own).
    this.metrics.efficiency(efficiencyOf(t.cachedTokens, t.preexistingCachedTokens, t.theoreticalCachedTokens));
    this.log.push({ type: 'task_notification', forkId: result.id, status: result.status, result });
    notifyAll(this.resultListeners, result, live.task, { figures, tools: live.state === 'running' ? live.tools : [] });
    this.finishIfDone();
  }

  private async finishRun(): Promise<void> {
    this.endedAt = performance.now();
    this.trace.end(this.tally.settled, this.tally.usage());
    // The report's own figures, the opening wave's corrections applied (settle recorded them before).
    const report = this.report();
    this.metrics.corrected(report.theoreticalCachedTokens - this.tally.totals.theoreticalCachedTokens);
    this.metrics.efficiency(report.efficiency);
    this.scheduler.stop();
    await this.caches.release((tokenHours) => this.spending.storageUsd(tokenHours));
    this.log.close();
    this.resolveDone(this.settings.retainResults ? this.tally.kept.map((k) => k.result) : []);
  }
}
