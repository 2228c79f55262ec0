import type { ExplicitCacheClient } from '../model/module.js';
import { needsWarmup, type CachePlan } from '../model/plan.js';
import type { ProviderConfig, RetryPolicy } from '../model/types.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { ToolHost } from '../tools/host.js';
import type { EngineCallGate } from './call-gate.js';
import type { ForkChannel } from './host-end.js';
import { forkJobOf, startFork, type ForkPool, type ForkStart } from './fork-start.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { createEventLog, type EventsOptions, type ForkEvent } from './events.js';
import { prepareExplicitCaches, type ExplicitCaches } from './explicit-cache.js';
import { seedWindow } from '../fork/seed-window.js';
import type { CancelKind, ForkResult } from '../result/fork-result.js';
import type { TranscriptTarget } from '../transcript/target.js';
import { transcriptPath } from '../transcript/writer.js';
import { traceFanOut, type FanOutTrace, type ForkTrace } from '../telemetry/fan-out-trace.js';
import { fanOutMetrics, modelCallMetrics, secondsBetween, type FanOutMetrics, type ModelCallMetrics } from '../telemetry/metrics.js';
import type { TranscriptUsage } from '../transcript/format.js';
import { answerCut, emptyCancelled, spentUsage } from '../result/results.js';
import { warnDeprecated } from '../input/deprecation.js';
import { addCached, addKnown, billedTokens, type TokenUsage } from '../model/types.js';
import { costOf, costOfCalls, storageCostOf, type ModelPrice } from '../model/prices.js';
import { windowRefusal, type RunWindow } from './window-check.js';
import { createCacheAccounting, type CacheAccounting } from './cache-accounting.js';
import { efficiencyOf, inputUnits, ratio } from './cache-figures.js';
import type { Taken, TaskSource } from './task-source.js';
import { tallyCut, type CutAnswers, type ForkCacheFigures, type RunCacheStorage, type RunReport } from './report.js';
import type { CacheMiss } from '../result/fork-result.js';
import type { Context } from '@opentelemetry/api';

export interface RunSettings {
  provider: ProviderConfig;
  /** Everything provider-specific about the run's cache (model/plan.ts), resolved once by the provider's module. */
  plan: CachePlan;
  /** This thread's client for the explicit caches the plan asks for (providers that have them). */
  explicitCaches: ExplicitCacheClient | undefined;
  concurrency: number;
  warmup: 'auto' | 'none';
  /** The parent has just sent this prefix (its response has begun): no fork waits, the first can hit. */
  parentWarm: boolean;
  staggerCapMs: number;
  /** The cache mode the caller asked for (the plan says what the provider does with it). */
  cache: 'implicit' | 'explicit' | 'off';
  history: HistoryMode;
  maxTurns: number;
  timeoutMs: number | undefined;
  /** The gate for model calls: the engine's (shared by every run of the engine), or the fan-out's own. */
  gate: EngineCallGate;
  /** The engine's retry policy (options.retry); its forkBudget bounds each fork's retries. */
  retry: RetryPolicy | undefined;
  /** How long a cancelled fork's worker gets to answer before it is recorded as cancelled anyway. */
  cancelGraceMs: number;
  declaredTools: ReadonlySet<string>;
  spawnTools: ReadonlySet<string>;
  /** Tokens (prompt + output) the whole run may spend; then queued forks are cancelled and running ones stop. */
  maxTokens: number | undefined;
  /** Tokens one fork may spend (a task's own maxTokens wins). */
  maxTokensPerFork: number | undefined;
  /** The model's price, when one is known: calls are costed as they return. */
  price: { model: string; price: ModelPrice } | undefined;
  /** US dollars the whole run may spend (needs `price`); then it stops as with maxTokens. */
  maxCost: number | undefined;
  /** The model's context window, when one is known: a task whose first request would not fit is refused (window-check.ts). */
  contextWindow: RunWindow | undefined;
  /** false: results go to onResult listeners and are not kept (results() is unavailable, report() has no per-fork rows). */
  retainResults: boolean;
  /** How many recent events the run keeps for `events({ replay: true })`. */
  eventReplayLimit: number;
  /** Told when a fork's model response has begun (every turn). */
  onResponseStart?: (taskId: string, turn: number) => void;
  /** Where each fork's transcript goes, and whether forks continue from theirs (src/transcript). */
  transcripts?: RunTranscripts;
  /** The pool hands forks to other processes (a distributed run): they write the transcripts, and messages do not reach them. */
  remoteForks: boolean;
  /** Starts a run that revives one ended fork of this run from its transcript, with the parent's message (the engine's; undefined once it is closed). */
  revive?: (task: ForkTask, message: string) => FanOutRun | undefined;
  /** The routing key its requests carry (a revival's keep it); undefined: none. */
  cacheKey: string | undefined;
  /**
   * The parent's stored response (FanOutOptions.storedResponse, a Responses session): what every
   * fork's first call is compared with by OpenAI's cache diagnostics, instead of its window's first response.
   */
  comparedWith?: string;
  /** OpenTelemetry: where the fan-out's span goes, and the agent that started it (FanOutOptions). */
  traceParent?: Context;
  /** OpenTelemetry: prompts, completions and tool calls' content on the spans (TelemetryOptions). */
  captureContent: boolean;
  parentAgentId?: string;
}

/**
 * A run's transcripts: a folder, one file per task. `continueFrom` 'crash': a fork with a
 * transcript continues from its last completed turn; 'message': a revival run's one fork acts on
 * the parent's message after the answer it ended on.
 */
type RunTranscripts =
  | { dir: string; continueFrom?: 'crash' }
  | { dir: string; continueFrom: 'message'; message: string };

/** What became of a message sent to a fork (FanOutRun.send). */
export type SendOutcome =
  /** It was live: a running fork reads it at its next turn boundary, a queued one when it starts. */
  | { status: 'delivered' }
  /** It had completed: `run` revives it from its transcript, the message its next turn (its result comes there). */
  | { status: 'revived'; run: FanOutRun }
  /** It ended failed or cancelled: a message does not revive it. */
  | { status: 'ended'; forkStatus: 'failed' | 'cancelled' }
  /** It is running but will not read it: it is ending or being stopped, or it runs in another process. */
  | { status: 'not-delivered'; reason: string }
  /** No fork of that id is live; and without transcripts, the run does not keep the ones that ended. */
  | { status: 'unknown' };

const FIVE_MINUTES_MS = 5 * 60_000;

/** A task taken and not yet terminal: the only tasks a run holds (at most the read-ahead plus the forks in flight). */
type Live =
  /** `inbox`: the parent's messages for it, delivered when it starts. */
  | { state: 'queued'; task: ForkTask; inbox?: string[] }
  | { state: 'running'; task: ForkTask; channel: ForkChannel; since: number; trace: ForkTrace; graceTimer?: NodeJS.Timeout };

/** A settled fork, kept only with retainResults. */
interface Kept {
  task: ForkTask;
  result: ForkResult;
  figures: ForkCacheFigures;
}

/** Listens for each fork's result, with the task it ran (the run keeps neither once it is told). */
export type ResultListener = (result: ForkResult, task: ForkTask) => void;

/** Running sums of every settled fork: the report without keeping the results. */
type Totals = Record<ForkResult['status'], number> &
  Pick<
    RunReport,
    | 'modelCalls'
    | 'toolCalls'
    | 'retries'
    | 'promptTokens'
    | 'cachedTokens'
    | 'outputTokens'
    | 'theoreticalCachedTokens'
    | 'preexistingCachedTokens'
    | 'cacheMisses'
    | 'failures'
  > & {
    /** Forks the budgets ended: queued ones cancelled, running ones stopped, forks over their own budget. */
    budgetStopped: number;
    /** Input in units of one uncached input token (with pricing only). */
    inputUnits: number;
    /** Tokens the forks' calls wrote into the provider's cache; undefined until a provider reports writes. */
    cacheWriteTokens: number | undefined;
    /** Of the output, tokens spent thinking; undefined until a provider says. */
    reasoningTokens: number | undefined;
    /** Input billed beyond the prompt; undefined until a provider reports it. */
    toolUsePromptTokens: number | undefined;
    cutAnswers: CutAnswers[];
  };

/** What send() answers for a fork a distributed run's worker runs. */
const NOT_IN_THIS_PROCESS: SendOutcome = { status: 'not-delivered', reason: 'it runs in another process (a distributed run), which messages do not reach' };

/** Failures listed in a report whose results are not retained (the rest are counted). */
const MAX_LISTED_FAILURES = 100;

/**
 * One fan-out: forks of one prefix, scheduled over the engine's pool. Tasks are taken from their
 * source as they are needed, at most `concurrency` ahead of dispatch: a stream of any length is
 * never read whole, and a task is held only from its taking to its end.
 */
export class FanOutRun {
  readonly prefix: FrozenPrefix;
  private readonly source: TaskSource;
  /** Tasks taken and not yet dispatched, at most: a whole wave, ready when the slots free up. */
  private readonly readAhead: number;
  /** Tasks taken and not yet terminal, by index. */
  private readonly live = new Map<number, Live>();
  /** The queued ones, in order. */
  private waiting: number[] = [];
  private taken = 0;
  /** 'open': more may come; 'ended': the source is exhausted; 'stopped': no more are taken (cancel, budget, a bad task). */
  private taking: 'open' | 'ended' | 'stopped' = 'open';
  /**
   * Set when the run stops early over a source of known length: each task taken from then on ends
   * cancelled at once, with this result, so that every task of the source has one.
   */
  private draining: ((task: ForkTask) => ForkResult) | undefined;
  /** An async source's next task is on its way. */
  private pulling = false;
  private advancing = false;
  private started = false;
  private wakeStart: (() => void) | undefined;
  private stoppedBy: Error | undefined;
  /** Messages sent to a task of the run before it was taken: its inbox once it is. */
  private readonly sentAhead = new Map<string, string[]>();
  /** Ids cancelled before their task was taken: the task ends cancelled as it arrives. */
  private readonly cancelledAhead = new Set<string>();
  /** With transcripts: the forks that ended, for send() to revive a completed one (and, once revived, the run that goes on with it). */
  private readonly ended = new Map<string, { task: ForkTask; status: ForkResult['status']; revival?: FanOutRun }>();
  /** A task trimmed the history (forkTurns): the report says what that costs. */
  private trimmedTurns = false;
  /** Settled forks by index, with retainResults only. */
  private readonly kept: Kept[] = [];
  private readonly log: ReturnType<typeof createEventLog<ForkEvent>>;
  private readonly startedAt = performance.now();
  private endedAt: number | undefined;
  /** Forks dispatched and not yet settled: what the report calls running. */
  private running = 0;
  private settledCount = 0;
  private readonly accounting: CacheAccounting;
  /** Which fork goes next, and when (concurrency, warm-up). */
  private readonly scheduler: Scheduler;
  private caches: ExplicitCaches | undefined;
  /** What storing the explicit caches cost, once they are deleted. */
  private cacheStorage: RunCacheStorage | undefined;
  private cacheNote: string | undefined;
  /** The settings' plan, with the explicit caches once they are made. */
  private plan: CachePlan;
  private spentTokens = 0;
  private spentUsd = 0;
  /** Calls costed as uncached because the provider did not report cached tokens. */
  private uncachedPricedCalls = 0;
  /**
   * Each seed window's first response id: its later forks' first calls are diagnosed against it.
   * Known when the response begins where the provider names it then (Anthropic), else when it completes (OpenAI).
   */
  private readonly firstResponses = new Map<string, string>();
  /** Cost the turn events reported so far, per fork in flight (the result settles the rest). */
  private readonly countedUsd = new Map<number, number>();
  /** Tokens counted so far per running fork (from its turn events, which may trail its result). */
  private readonly countedTokens = new Map<number, number>();
  private budgetSpent = false;
  /** Which budget ended the run: its tokens, or its cost cap. */
  private stopReason: 'budget' | 'cost' = 'budget';
  private readonly totals: Totals = {
    completed: 0,
    failed: 0,
    cancelled: 0,
    modelCalls: 0,
    toolCalls: 0,
    retries: 0,
    promptTokens: 0,
    cachedTokens: 0,
    outputTokens: 0,
    theoreticalCachedTokens: 0,
    preexistingCachedTokens: 0,
    cacheWriteTokens: undefined,
    reasoningTokens: undefined,
    toolUsePromptTokens: undefined,
    cutAnswers: [],
    budgetStopped: 0,
    inputUnits: 0,
    cacheMisses: [],
    failures: [],
  };
  private readonly done: Promise<ForkResult[]>;
  private resolveDone!: (results: ForkResult[]) => void;
  private readonly resultListeners: ResultListener[] = [];
  /** The run's own background work (cache setup and cleanup), for the engine's close(). */
  private readonly background: Promise<void>;
  /** Its spans (src/telemetry): nothing when the application registered no tracer provider. */
  private readonly trace: FanOutTrace;
  /** Its metrics (src/telemetry): the API's no-op instruments when the application registered no meter provider. */
  private readonly metrics: FanOutMetrics;
  private readonly callMetrics: ModelCallMetrics;

  /** @internal engine.fanOut makes a run. */
  constructor(
    private readonly pool: ForkPool,
    private readonly host: ToolHost,
    private readonly settings: RunSettings,
    prefix: FrozenPrefix,
    source: TaskSource,
  ) {
    this.prefix = prefix;
    this.source = source;
    this.readAhead = Math.max(1, settings.concurrency);
    this.trimmedTurns = source.all?.some(trimsHistory) ?? false;
    this.plan = settings.plan;
    this.accounting = createCacheAccounting(prefix, { history: settings.history, spawnTools: [...settings.spawnTools], plan: settings.plan });
    this.log = createEventLog<ForkEvent>(settings.eventReplayLimit);
    this.trace = traceFanOut({
      prefixId: prefix.id,
      provider: settings.plan.provider,
      shape: settings.plan.shape,
      model: prefix.session.model,
      ...(settings.traceParent !== undefined ? { parent: settings.traceParent } : {}),
      ...(settings.parentAgentId !== undefined ? { parentAgentId: settings.parentAgentId } : {}),
      captureContent: settings.captureContent,
    });
    const callInfo = { provider: settings.plan.provider, shape: settings.plan.shape, model: prefix.session.model };
    this.callMetrics = modelCallMetrics(callInfo);
    this.metrics = fanOutMetrics(callInfo);
    // Nothing is dispatched before start(): an explicit cache may still be in the making.
    this.scheduler = createScheduler({
      concurrency: settings.concurrency,
      warmup: needsWarmup(settings.plan, settings),
      staggerCapMs: settings.staggerCapMs,
      ...(settings.plan.readable.leads !== undefined ? { leads: settings.plan.readable.leads } : {}),
      // Nothing to wait for when nothing is cached (cache off) or when no fork waits (warm-up none).
      cacheBuildMs: settings.cache === 'off' || settings.warmup === 'none' ? 0 : settings.plan.readable.buildMs,
      next: () => this.waiting[0],
      isQueued: (index) => this.live.get(index)?.state === 'queued',
      dispatch: (index, order) => this.dispatch(index, order),
    });
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    // Started on the next microtask: whoever subscribes right after fanOut() sees every event.
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
   * results are retained.
   */
  onResult(listener: ResultListener): void {
    this.resultListeners.push(listener);
    // forEach skips the holes of forks still running.
    this.kept.forEach((k) => {
      listener(k.result, k.task);
    });
  }

  /**
   * Every fork's result, in task order, once all are terminal. Unavailable with `retainResults:
   * false`. Rejects with `tasksError` when the run stopped taking tasks at a bad one (the results of
   * the forks before it went to onResult and are in report()).
   */
  results(): Promise<ForkResult[]> {
    if (!this.settings.retainResults) {
      throw new Error('FanOutRun.results: this run does not retain results (retainResults: false); take each from onResult, and await settled()');
    }
    return this.done.then((results) => {
      if (this.stoppedBy) throw this.stoppedBy;
      return results;
    });
  }

  /**
   * Why the run stopped taking tasks before their end, once it has: a task that failed its check
   * (an InputError naming `tasks[i]`, or `file:line` for streamTasks), or what the iterator threw.
   * The tasks before it still run; none after it is read.
   */
  get tasksError(): Error | undefined {
    return this.stoppedBy;
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
    if (this.taking !== 'open' || this.liveIndexOf(id) !== undefined || this.ended.has(id)) return false;
    // An array's task that was taken already has ended: only one not taken yet can come.
    const all = this.source.all;
    if (all !== undefined && all.findIndex((t) => t.id === id) < this.taken) return false;
    this.cancelledAhead.add(id);
    return true;
  }

  /** @deprecated Use cancel(id). */
  stop(id: string): boolean {
    warnDeprecated('run.stop');
    return this.stopLive(id);
  }

  /** Stops one fork that has not ended (queued or running). false: no such fork is live (never taken, or already ended). */
  private stopLive(id: string): boolean {
    const revival = this.ended.get(id)?.revival;
    if (revival !== undefined) return revival.stopLive(id);
    const index = this.liveIndexOf(id);
    const live = index === undefined ? undefined : this.live.get(index);
    // Already being cancelled: not stopped a second time.
    if (index === undefined || (live?.state === 'running' && live.graceTimer !== undefined)) return false;
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
    const index = this.liveIndexOf(id);
    const live = index === undefined ? undefined : this.live.get(index);
    if (live?.state === 'running') {
      if (this.settings.remoteForks) return NOT_IN_THIS_PROCESS;
      if (live.graceTimer !== undefined) return { status: 'not-delivered', reason: 'it is being stopped' };
      if (!live.channel.send(message)) return { status: 'not-delivered', reason: 'it is ending (it has answered, or is on its last allowed turn)' };
    } else if (live?.state === 'queued') {
      if (this.settings.remoteForks) return NOT_IN_THIS_PROCESS;
      live.inbox = [...(live.inbox ?? []), message];
    } else if (this.taking === 'open' && this.draining === undefined && (this.source.all?.findIndex((t) => t.id === id) ?? -1) >= this.taken) {
      if (this.settings.remoteForks) return NOT_IN_THIS_PROCESS;
      // One of the run's tasks not taken yet (an array's are taken in order): it gets the message when it is.
      this.sentAhead.set(id, [...(this.sentAhead.get(id) ?? []), message]);
    } else {
      const ended = this.ended.get(id);
      if (ended === undefined || this.settings.revive === undefined) return { status: 'unknown' };
      if (this.settings.remoteForks) return { status: 'not-delivered', reason: 'it ran in another process (a distributed run), which messages do not reach' };
      // Revived already: its revival has it now (two revivals of one transcript would interleave in it).
      if (ended.revival !== undefined) return ended.revival.send(id, message);
      if (ended.status !== 'completed') return { status: 'ended', forkStatus: ended.status };
      const revival = this.settings.revive(ended.task, message);
      if (revival === undefined) return { status: 'not-delivered', reason: 'the engine is closed' };
      ended.revival = revival;
      return { status: 'revived', run: revival };
    }
    return { status: 'delivered' };
  }

  /** Where a fork's transcript is written, in a run with transcripts. */
  transcriptOf(id: string): string | undefined {
    const t = this.settings.transcripts;
    return t === undefined ? undefined : transcriptPath(t.dir, id);
  }

  private liveIndexOf(id: string): number | undefined {
    for (const [index, live] of this.live) if (live.task.id === id) return index;
    return undefined;
  }

  /**
   * Cancels every fork. The tasks not taken yet end cancelled too when the source's length is known
   * (an array, a task file); from a stream that may still be growing, no more are taken.
   */
  cancelAll(): void {
    this.cancelQueuedAndRest(undefined);
    for (const index of [...this.live.keys()]) this.cancelIndex(index);
  }

  report(): RunReport {
    const t = this.totals;
    const settled = t.completed + t.failed + t.cancelled;
    // The opening wave's first request, once known, moves the opening maximum to another fork (opening-wave.ts).
    const corrections = this.accounting.corrections();
    const corrected = new Map(corrections.map((c) => [c.after.id, c.after]));
    let theoretical = t.theoreticalCachedTokens;
    let preexisting = t.preexistingCachedTokens;
    for (const { before, after } of corrections) {
      theoretical += after.theoreticalCachedTokens - before.theoreticalCachedTokens;
      if (preexisting !== null && before.preexistingCachedTokens !== null && after.preexistingCachedTokens !== null) {
        preexisting += after.preexistingCachedTokens - before.preexistingCachedTokens;
      }
    }
    const wallMs = (this.endedAt ?? performance.now()) - this.startedAt;
    const total = this.knownTotal();
    const notes: string[] = [];
    // A stream stopped early (a cancel, a spent budget, a bad task) leaves its unread tasks unrun, and in no result: say so.
    if (this.taking === 'stopped' && this.stoppedBy === undefined) {
      notes.push(
        `the run stopped taking tasks after ${this.taken} (cancelled, or its budget spent): the rest of the stream was not read; its tasks did not run and have no result (a journal's --resume runs them)`,
      );
    }
    if (this.caches?.active) {
      notes.push('explicit cache: every call is served from the cachedContent and nothing more, so that is each call’s maximum; a fork’s own earlier turns are not cached alongside it.');
    }
    if (this.trimmedTurns) {
      notes.push('forkTurns trimmed the history: forks no longer share the parent conversation’s cache, only system instruction and tools (siblings with the same window still share theirs).');
    }
    if (!this.settings.retainResults) notes.push('results were not retained (retainResults: false): no per-fork rows; totals cover every fork.');
    if (this.stoppedBy) notes.push(`tasks stopped at a bad one (the forks before it ran): ${this.stoppedBy.message}`);
    const request = this.plan.request;
    // Anthropic bills 1-hour writes 2× input and 5-minute ones 1.25×: the longer TTL pays only for a run (or a reuse) past 5 minutes.
    if (request.mechanism === 'breakpoints' && request.ttl === '1h' && this.endedAt !== undefined && wallMs < FIVE_MINUTES_MS) {
      notes.push(
        `1-hour cache breakpoints: their writes cost 2× input where 5-minute ones cost 1.25×, and this run ended in ${Math.round(wallMs / 1000)} s, within 5 minutes: cacheTtl '5m' (--cache-ttl 5m) would have served it for less, unless the prefix is reused later`,
      );
    }
    return {
      forks: {
        total: total ?? this.taken,
        totalKnown: total !== undefined,
        taken: this.taken,
        completed: t.completed,
        failed: t.failed,
        cancelled: t.cancelled,
        running: this.running,
        queued: this.waiting.length + (total !== undefined ? total - this.taken : 0),
      },
      wallMs: Math.round(wallMs),
      forksPerSecond: wallMs > 0 ? settled / (wallMs / 1000) : 0,
      modelCalls: t.modelCalls,
      toolCalls: t.toolCalls,
      retries: t.retries,
      promptTokens: t.promptTokens,
      cachedTokens: t.cachedTokens,
      outputTokens: t.outputTokens,
      ...(t.reasoningTokens !== undefined ? { reasoningTokens: t.reasoningTokens } : {}),
      ...(t.toolUsePromptTokens !== undefined ? { toolUsePromptTokens: t.toolUsePromptTokens } : {}),
      ...(t.cacheWriteTokens !== undefined ? { cacheWriteTokens: t.cacheWriteTokens } : {}),
      cutAnswers: t.cutAnswers.map((c) => ({ ...c, raw: [...c.raw] })),
      hitRate: t.cachedTokens === null ? null : t.promptTokens > 0 ? t.cachedTokens / t.promptTokens : 0,
      theoreticalCachedTokens: theoretical,
      preexistingCachedTokens: preexisting,
      efficiency: efficiencyOf(t.cachedTokens, preexisting, theoretical),
      warmup: this.settings.parentWarm ? 'parent' : this.settings.warmup,
      cache: {
        requested: this.settings.cache,
        effective: this.caches?.active ? 'explicit' : this.plan.effective,
        ...(this.cacheNote ? { note: this.cacheNote } : {}),
        ...(this.cacheStorage !== undefined ? { storage: { ...this.cacheStorage } } : {}),
      },
      ...(this.plan.pricing
        ? {
            inputCost: {
              uncachedUnits: t.promptTokens,
              units: Math.round(t.inputUnits),
              relative: ratio(t.inputUnits, t.promptTokens),
              pricing: this.plan.pricing,
            },
          }
        : {}),
      ...(this.settings.price !== undefined
        ? {
            cost: {
              usd: this.spentUsd + (this.cacheStorage?.usd ?? 0),
              ...(this.cacheStorage?.usd !== undefined ? { storageUsd: this.cacheStorage.usd } : {}),
              model: this.settings.price.model,
              ...(this.settings.price.price.source !== undefined ? { source: this.settings.price.price.source } : {}),
              ...(this.settings.price.price.read !== undefined ? { read: this.settings.price.price.read } : {}),
              uncachedPricedCalls: this.uncachedPricedCalls,
            },
          }
        : {}),
      ...(this.settings.maxTokens !== undefined || this.settings.maxTokensPerFork !== undefined || this.settings.maxCost !== undefined || t.budgetStopped > 0
        ? {
            budget: {
              ...(this.settings.maxTokens !== undefined ? { maxTokens: this.settings.maxTokens } : {}),
              ...(this.settings.maxTokensPerFork !== undefined ? { maxTokensPerFork: this.settings.maxTokensPerFork } : {}),
              ...(this.settings.maxCost !== undefined
                ? { maxCost: this.settings.maxCost, spentUsd: this.spentUsd, overshootUsd: Math.max(0, this.spentUsd - this.settings.maxCost) }
                : {}),
              spentTokens: this.spentTokens,
              spent: this.budgetSpent,
              stoppedForks: t.budgetStopped,
            },
          }
        : {}),
      prefix: { id: this.prefix.id, bytes: this.prefix.byteLength, tokens: this.prefix.tokenEstimate },
      notes,
      cacheMisses: t.cacheMisses.map((m) => ({ ...m })),
      // flatMap skips the holes of forks still running.
      perFork: this.kept.flatMap((k) => [corrected.get(k.figures.id) ?? k.figures]),
      failures: t.failures,
    };
  }

  /**
   * The run's tasks, when their number is known: the source ended, or it told its length before (an
   * array, a task file checked whole) and no bad task stopped the taking. Never a guess.
   */
  private knownTotal(): number | undefined {
    if (this.taking === 'ended') return this.taken;
    return this.stoppedBy === undefined ? this.source.total : undefined;
  }

  private async start(): Promise<void> {
    // Takes what it can now: up to the read-ahead from an array or an iterable; an async iterable's first pull starts.
    this.advance();
    if (this.waiting.length === 0 && this.taking === 'open') await new Promise<void>((resolve) => (this.wakeStart = resolve));
    if (this.waiting.length > 0) await this.prepareCache();
    this.started = true;
    // The lead: a fork of the default window, whose first response warms the most.
    this.scheduler.start(leadOf(this.waiting, (i) => this.taskAt(i), this.settings.history));
    this.advance();
  }

  private async prepareCache(): Promise<void> {
    this.cacheNote = this.plan.note;
    if (!this.plan.explicit) return;
    const client = this.settings.explicitCaches;
    if (client === undefined) {
      this.cacheNote = `explicit cache fell back to implicit: provider '${this.plan.provider}' makes no explicit caches here`;
      return;
    }
    // From a stream, the windows of the tasks read so far get a cache; a fork of another window runs on implicit caching.
    const tasks = this.source.all ?? this.waiting.map((i) => this.taskAt(i));
    try {
      this.caches = await prepareExplicitCaches(this.prefix.session, tasks, {
        ...this.settings,
        client,
        minCacheTokens: this.plan.rules.minCacheTokens,
        forks: this.source.all?.length,
      });
      this.cacheNote = this.caches.note;
      this.plan = { ...this.plan, request: { mechanism: 'cached-content', caches: { ...this.caches.caches } } };
    } catch (err) {
      // Forks still run, on implicit caching; whatever broke the cache will fail them by name.
      this.cacheNote = `explicit cache fell back to implicit: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * Takes tasks up to the read-ahead and dispatches what may go, until neither moves; then ends the
   * run when nothing more can come and every fork is terminal.
   */
  private advance(): void {
    if (this.advancing) return;
    this.advancing = true;
    try {
      for (;;) {
        if (this.started) this.scheduler.pump();
        if (this.taking !== 'open' || this.pulling || this.waiting.length >= this.readAhead) break;
        const taken = this.source.take();
        if (taken instanceof Promise) {
          this.pulling = true;
          void taken.then((next) => {
            this.pulling = false;
            this.accept(next);
            this.advance();
          });
          break;
        }
        this.accept(taken);
      }
    } finally {
      this.advancing = false;
    }
    this.finishIfDone();
  }

  private accept(taken: Taken): void {
    if (this.taking !== 'open') return; // arrived after the run stopped taking: not one of its tasks
    if (taken.kind === 'end') this.taking = 'ended';
    else if (taken.kind === 'error') {
      this.taking = 'stopped';
      this.stoppedBy = taken.error;
      this.source.stop();
    } else {
      const index = this.taken++;
      const { task } = taken;
      if (this.draining !== undefined) {
        this.live.set(index, { state: 'queued', task });
        this.cancelQueued(index, this.draining(task));
        return;
      }
      if (trimsHistory(task)) this.trimmedTurns = true;
      const inbox = this.sentAhead.get(task.id);
      this.sentAhead.delete(task.id);
      this.live.set(index, inbox === undefined ? { state: 'queued', task } : { state: 'queued', task, inbox });
      this.waiting.push(index);
      const window = this.settings.contextWindow;
      const refused = window === undefined ? undefined : windowRefusal(task, this.prefix, window, this.settings);
      if (refused !== undefined) this.cancelQueued(index, refused);
      else if (this.cancelledAhead.delete(task.id)) this.cancelQueued(index, emptyCancelled(task.id, 'cancelled before it started'));
    }
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeStart;
    this.wakeStart = undefined;
    wake?.();
  }

  private finishIfDone(): void {
    if (!this.started || this.endedAt !== undefined || this.taking === 'open' || this.settledCount < this.taken) return;
    void this.finishRun();
  }

  private taskAt(index: number): ForkTask {
    return (this.live.get(index) as Live).task;
  }

  private dispatch(index: number, order: number): void {
    const task = this.taskAt(index);
    const first = order === 0;
    const window = seedWindow(task, this.settings.history);
    this.waiting.splice(this.waiting.indexOf(index), 1);
    this.accounting.dispatched(task, {
      first,
      explicit: this.caches?.caches[window] !== undefined,
      // An entry the first fork writes (DashScope's marked one) is not the parent's.
      parentWarm: this.settings.parentWarm && this.plan.readable.fromParent,
    });
    this.running++;
    const forkTrace = this.trace.fork(task);
    const start = this.forkStart(this.settings.comparedWith ?? this.firstResponses.get(window));
    const transcript = this.transcriptTarget(task.id);
    // Only a fork in another process needs its span in writing (its job carries it there).
    const traceContext = this.settings.remoteForks ? forkTrace.carrier() : undefined;
    const job = { ...start.job, ...(transcript !== undefined ? { transcript } : {}), ...(traceContext !== undefined ? { traceContext } : {}) };
    const { channel, result } = startFork({ ...start, job }, task, {
      admit: () => !this.budgetSpent,
      onEvent: (event) => {
        if (event.type === 'response_start') {
          this.settings.onResponseStart?.(task.id, event.turn);
          if (event.turn === 1 && event.responseId !== undefined && !this.firstResponses.has(window)) this.firstResponses.set(window, event.responseId);
          this.accounting.responded(task);
          if (this.plan.readable.after === 'response-start') this.scheduler.responded(order);
          return;
        }
        if (event.type === 'call_failed') {
          if (this.live.get(index)?.state !== 'running') return;
          forkTrace.failedCall(event);
          // A call cancelled with its fork is not an operation that ended: no duration.
          if (event.errorType !== 'aborted') this.callMetrics.failed(event.errorType, secondsBetween(event.startedAt, event.endedAt));
          return;
        }
        if (event.type === 'transcript') {
          if (event.entry.type === 'message' && this.live.get(index)?.state === 'running') {
            const { turn, role, message, usage } = event.entry;
            this.log.push({ type: 'message', forkId: task.id, turn, role, message, ...(usage !== undefined ? { usage: tokenUsageOf(usage) } : {}) });
          }
          return;
        }
        // An entry written once the response has ended: the first 'turn' releases the warm-up.
        if (this.plan.readable.after === 'response-end' && event.turn === 1) this.scheduler.responded(order);
        if (event.turn === 1 && event.responseId !== undefined && !this.firstResponses.has(window)) this.firstResponses.set(window, event.responseId);
        this.accounting.called(task);
        if (this.live.get(index)?.state !== 'running') return; // a late report of a fork already settled (its result was counted)
        forkTrace.modelCall(event);
        this.callMetrics.answered(event.usage, event.responseModel, secondsBetween(event.startedAt, event.endedAt));
        this.log.push({ type: 'turn', forkId: task.id, turn: event.turn, usage: event.usage, functionCalls: event.functionCalls, ...(event.finish !== undefined ? { finish: event.finish } : {}) });
        const tokens = billedTokens(event.usage);
        this.countedTokens.set(index, (this.countedTokens.get(index) ?? 0) + tokens);
        const usd = this.costOfCall(event.usage);
        this.countedUsd.set(index, (this.countedUsd.get(index) ?? 0) + usd);
        this.spend(tokens, usd);
      },
      onAttempt: (status, wantsRetry) => {
        if (this.live.get(index)?.state === 'running') forkTrace.attempt(status, wantsRetry);
      },
      onToolCall: (call, outcome, startedAt) => {
        if (this.live.get(index)?.state !== 'running') return; // a tool aborted after its fork ended
        forkTrace.tool(call, outcome, startedAt);
        this.log.push({
          type: 'tool_call',
          forkId: task.id,
          tool: call.name,
          status: outcome.status,
          ...(outcome.status !== 'ok' ? { error: outcome.error } : {}),
        });
      },
    });
    const queued = this.live.get(index);
    const inbox = queued?.state === 'queued' ? queued.inbox : undefined;
    this.live.set(index, { state: 'running', task, channel, since: performance.now(), trace: forkTrace });
    for (const message of inbox ?? []) channel.send(message);
    this.log.push(startedEvent(task));
    if (this.budgetSpent) channel.stop(this.stopReason);
    void result
      .then((r) => this.settle(index, r))
      .finally(() => {
        this.scheduler.finished(order);
        this.advance();
      });
  }

  /**
   * What a fork of this run is started with (the plan as it is now: with its explicit caches once
   * made), naming the first response of its window for its first call's cache diagnostics.
   */
  private forkStart(previousResponseId: string | undefined): ForkStart {
    const s = this.settings;
    const job = forkJobOf(this.prefix, s, this.plan, this.host.longestTimeoutMs);
    return {
      pool: this.pool,
      host: this.host,
      gate: s.gate,
      declaredTools: s.declaredTools,
      spawnTools: s.spawnTools,
      writesTranscripts: !s.remoteForks,
      job: previousResponseId === undefined ? job : { ...job, previousResponseId },
    };
  }

  /** A fork's transcript as its job names it: where, and whether it continues. */
  private transcriptTarget(taskId: string): TranscriptTarget | undefined {
    const t = this.settings.transcripts;
    if (t === undefined) return undefined;
    const path = transcriptPath(t.dir, taskId);
    if (t.continueFrom === 'message') return { path, continueFrom: 'message', message: t.message };
    return t.continueFrom === 'crash' ? { path, continueFrom: 'crash' } : { path };
  }

  /**
   * Counts tokens and dollars as calls return. Once the run's token budget or cost cap is spent,
   * queued forks are cancelled, no more tasks are taken, and running forks end before their next
   * model call (calls in flight finish: they are paid for).
   */
  private spend(tokens: number, usd: number): void {
    this.spentTokens += tokens;
    this.spentUsd += usd;
    if (this.budgetSpent) return;
    const limit = this.settings.maxTokens;
    const cap = this.settings.maxCost;
    const tokensOut = limit !== undefined && this.spentTokens >= limit;
    if (!tokensOut && (cap === undefined || this.spentUsd < cap)) return;
    this.budgetSpent = true;
    this.stopReason = tokensOut ? 'budget' : 'cost';
    const why = tokensOut
      ? `the run's token budget was spent (${this.spentTokens} of ${limit} tokens) before it started`
      : `the run's cost cap was reached ($${this.spentUsd.toFixed(4)} of $${cap}) before it started`;
    this.cancelQueuedAndRest({ why, kind: 'budget' });
    for (const live of this.live.values()) if (live.state === 'running') live.channel.stop(this.stopReason);
  }

  /** One call's cost in dollars at the run's price (0 without one); a call without cached tokens is priced uncached and counted. */
  private costOfCall(usage: TokenUsage): number {
    const price = this.settings.price;
    if (price === undefined) return 0;
    const cost = costOf(usage, price.price);
    if (cost.cachedUnknown) this.uncachedPricedCalls++;
    return cost.usd;
  }

  /**
   * Queued forks end cancelled, and so do the tasks not taken yet when the source's length is known
   * (an array, a task file): the rest is taken, each task ending cancelled as it comes (with its
   * task_started and notification), so every task has its result. A stream that may still be
   * growing is read no further.
   */
  private cancelQueuedAndRest(reason: { why: string; kind: CancelKind } | undefined): void {
    const cancelled = (task: ForkTask): ForkResult =>
      reason ? emptyCancelled(task.id, reason.why, reason.kind) : emptyCancelled(task.id, 'cancelled before it started');
    const queued = this.waiting;
    this.waiting = [];
    if (this.taking === 'open' && this.draining === undefined && this.source.total !== undefined) {
      this.draining = cancelled;
    } else if (this.taking === 'open' && this.draining === undefined) {
      this.taking = 'stopped';
      this.source.stop();
    }
    for (const index of queued) this.cancelQueued(index, cancelled(this.taskAt(index)));
    this.wake();
    // The rest of a source of known length: at once from an array, as it is read from a file.
    this.advance();
  }

  private cancelIndex(index: number): void {
    const live = this.live.get(index);
    if (live?.state === 'queued') {
      this.cancelQueued(index, emptyCancelled(live.task.id, 'cancelled before it started'));
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
    const live = this.live.get(index);
    if (live?.state !== 'queued') return;
    const at = this.waiting.indexOf(index);
    if (at >= 0) this.waiting.splice(at, 1);
    this.log.push(startedEvent(live.task));
    // It is one of the run's forks in the trace too: a span that ends as it began.
    this.trace.fork(live.task).end(result);
    this.settle(index, result);
    this.advance();
  }

  /** The one place a fork becomes terminal: exactly once, whoever gets here first. */
  private settle(index: number, result: ForkResult): void {
    const live = this.live.get(index);
    if (!live) return;
    if (live.state === 'running') {
      this.running--;
      clearTimeout(live.graceTimer);
      live.trace.end(result);
      // The result and the fork's turn events travel on different channels: count what the events have not.
      // A resumed fork's calls from its transcript were an earlier run's to pay.
      const spent = spentUsage(result);
      const uncounted = billedTokens(spent) - (this.countedTokens.get(index) ?? 0);
      this.countedTokens.delete(index);
      const price = this.settings.price;
      // Each call at its own prompt's tier: a fork's summed prompt can pass a tier that none of its calls reached.
      const forkUsd = price === undefined ? undefined : costOfCalls(result.calls.filter((c) => c.restored !== true), price.price);
      const uncountedUsd = forkUsd === undefined ? 0 : forkUsd - (this.countedUsd.get(index) ?? 0);
      this.countedUsd.delete(index);
      if (uncounted > 0 || uncountedUsd > 1e-12) this.spend(Math.max(0, uncounted), Math.max(0, uncountedUsd));
      // Time in flight as this thread saw it: from dispatch to the end, whoever ended the fork.
      result = { ...result, durationMs: Math.round(performance.now() - live.since), ...(forkUsd !== undefined ? { costUsd: forkUsd } : {}) };
    }
    // Nothing of the task stays behind unless results are retained (or transcripts kept, to revive it).
    this.live.delete(index);
    if (this.settings.transcripts !== undefined) this.ended.set(live.task.id, { task: live.task, status: result.status });
    // A fork that picked up from its transcript (revived, or resumed with calls read back): its
    // figures are this run's calls', its first call no fork's first.
    const continued = this.settings.transcripts?.continueFrom === 'message' || result.calls[0]?.restored === true;
    const settled = this.accounting.settle(live.task, continued ? thisRunsPart(result) : result, continued);
    if (!continued) result = settled.result;
    const figures = settled.figures;
    if (this.settings.retainResults) this.kept[index] = { task: live.task, result, figures };
    this.count(result, figures, settled.miss);
    this.metrics.settled({ status: result.status, retries: result.retries, maxCachedTokens: figures.theoreticalCachedTokens });
    const t = this.totals;
    // As the report computes it, before its corrections (finishRun records the report's own).
    this.metrics.efficiency(efficiencyOf(t.cachedTokens, t.preexistingCachedTokens, t.theoreticalCachedTokens));
    this.settledCount++;
    this.log.push({ type: 'task_notification', forkId: result.id, status: result.status, result });
    for (const listener of this.resultListeners) {
      try {
        listener(result, live.task);
      } catch (err) {
        // A listener's bug is the caller's, reported as theirs: it must not stall the run.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
    this.finishIfDone();
  }

  private count(result: ForkResult, figures: ForkCacheFigures, miss: CacheMiss | undefined): void {
    const t = this.totals;
    if (miss) {
      const sum = t.cacheMisses.find((m) => m.reason === miss.reason) ?? { reason: miss.reason, forks: 0, tokens: 0 };
      if (sum.forks === 0) t.cacheMisses.push(sum);
      sum.forks++;
      sum.tokens += miss.tokens;
    }
    const spent = spentUsage(result);
    t[result.status]++;
    t.modelCalls += result.calls.filter((c) => c.restored !== true).length;
    t.toolCalls += result.toolCalls;
    t.retries += result.retries;
    t.promptTokens += spent.promptTokens;
    t.cachedTokens = addCached(t.cachedTokens, spent.cachedTokens);
    t.outputTokens += spent.outputTokens;
    t.cacheWriteTokens = addKnown(t.cacheWriteTokens, spent.cacheWriteTokens);
    t.reasoningTokens = addKnown(t.reasoningTokens, spent.reasoningTokens);
    t.toolUsePromptTokens = addKnown(t.toolUsePromptTokens, spent.toolUsePromptTokens);
    const cut = answerCut(result);
    if (cut) tallyCut(t.cutAnswers, cut.reason, [cut.raw]);
    t.theoreticalCachedTokens += figures.theoreticalCachedTokens;
    t.preexistingCachedTokens = addCached(t.preexistingCachedTokens, figures.preexistingCachedTokens);
    if (this.plan.pricing) t.inputUnits += inputUnits(spent, this.plan.pricing);
    if (result.status !== 'completed') {
      if (result.error.kind === 'budget') t.budgetStopped++;
      if (this.settings.retainResults || t.failures.length < MAX_LISTED_FAILURES) {
        t.failures.push({ id: result.id, status: result.status, kind: result.error.kind, message: result.error.message });
      }
    }
  }

  private async finishRun(): Promise<void> {
    this.endedAt = performance.now();
    const t = this.totals;
    this.trace.end(this.settledCount, {
      promptTokens: t.promptTokens,
      cachedTokens: t.cachedTokens,
      outputTokens: t.outputTokens,
      ...(t.reasoningTokens !== undefined ? { reasoningTokens: t.reasoningTokens } : {}),
      ...(t.toolUsePromptTokens !== undefined ? { toolUsePromptTokens: t.toolUsePromptTokens } : {}),
      ...(t.cacheWriteTokens !== undefined ? { cacheWriteTokens: t.cacheWriteTokens } : {}),
    });
    // The report's own figures, the opening wave's corrections applied (settle recorded them before).
    const report = this.report();
    this.metrics.corrected(report.theoreticalCachedTokens - t.theoreticalCachedTokens);
    this.metrics.efficiency(report.efficiency);
    this.scheduler.stop();
    const storage = await this.caches?.release();
    if (storage !== undefined && storage.caches > 0) {
      const usd = this.settings.price === undefined ? undefined : storageCostOf(storage.tokenHours, this.settings.price.price);
      this.cacheStorage = { ...storage, ...(usd !== undefined ? { usd } : {}) };
    }
    this.log.close();
    this.resolveDone(this.settings.retainResults ? this.kept.map((k) => k.result) : []);
  }
}

/** The fork to send first: one of the default window (its response warms the most), else any fork. */
function leadOf(waiting: readonly number[], taskAt: (index: number) => ForkTask, history: HistoryMode): number | undefined {
  const main = waiting.find((i) => seedWindow(taskAt(i), history) === `${history}|all`);
  return main ?? waiting.find((i) => taskAt(i).subagentType !== 'general-purpose') ?? waiting[0];
}

/** A fork's result as far as this run made it: without the calls a resumed fork read back from its transcript. */
function thisRunsPart(result: ForkResult): ForkResult {
  return { ...result, usage: spentUsage(result), calls: result.calls.filter((c) => c.restored !== true) };
}

/** A transcript line's usage as the events give it. */
function tokenUsageOf(usage: TranscriptUsage): TokenUsage {
  const { responseId: _responseId, ...tokens } = usage;
  return tokens;
}

function trimsHistory(task: ForkTask): boolean {
  return task.forkTurns !== undefined && task.forkTurns !== 'all';
}

function startedEvent(task: ForkTask): ForkEvent {
  return { type: 'task_started', forkId: task.id, description: describe(task), ...(task.subagentType !== undefined ? { subagentType: task.subagentType } : {}) };
}

function describe(task: ForkTask): string {
  const line = task.directive.split('\n', 1)[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

