import { createHash } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import { Piscina } from 'piscina';
import type { ConnectCommon, ExplicitCacheClient, ProviderModule } from '../model/module.js';
import { namesStoredResponses } from '../model/decorate.js';
import type { CachePlan, PlanInput } from '../model/plan.js';
import { createProvider, loadProvider, providerModule } from '../model/providers/index.js';
import type { ModelProvider, ProviderConfig } from '../model/types.js';
import { freezePrefix, type FrozenPrefix } from '../prefix/index.js';
import { parseSession } from '../session/parse.js';
import type { ForkTask } from '../session/schema.js';
import type { ParentSession, SessionFormat } from '../shapes/registry.js';
import { declaredToolNames } from '../shapes/tool-names.js';
import { createToolHost, type ToolHost } from '../tools/host.js';
import { observeCallGate } from '../telemetry/metrics.js';
import { createCallGate, type CallGate, type CallGateStats, type EngineCallGate } from './call-gate.js';
import { startFork, type ForkHooks, type ForkPool } from './fork-start.js';
import { forkJobOf, spawnToolsOf } from './fork-job.js';
import { emptyCancelled } from '../result/results.js';
import type { ForkResult } from '../result/fork-result.js';
import {
  checkFanOutOptions,
  checkRunForkOptions,
  fanOutCacheKey,
  planOf,
  resolveOptions,
  type FanOutOptions,
  type ForkEngineOptions,
  type ResolvedOptions,
  type RunForkOptions,
} from './options.js';
import type { ParentAgentOptions } from './parent-agent.js';
import type { ParentOutcome } from './parent-events.js';
import { FanOutRun, type RunSettings } from './run.js';
import { runPrice, runWindow } from './run-limits.js';
import { ForkpoolError } from '../input/forkpool-error.js';
import { checkTask, taskSource, type TaskInput } from './task-source.js';
import { workerEntry } from '../thread-start/worker-entry.js';
import { startThreadsAhead } from './start-ahead.js';
import { linkThreads } from './thread-channels.js';
import { recordToolSpan } from '../telemetry/fan-out-trace.js';

/** A single fork: its result (never rejects), and how to cancel it. */
export interface SingleFork {
  result: Promise<ForkResult>;
  cancel(): void;
}

export { ENGINE_DEFAULTS, type FanOutOptions, type ForkEngineOptions, type ProviderOption, type RunForkOptions } from './options.js';

const CANCEL_GRACE_MS = 5_000;

/** The fork executor: a Piscina pool of fork workers, a tool host on this thread, one model provider. */
export class ForkEngine {
  private closed = false;
  private readonly runs = new Set<FanOutRun>();
  /** This thread's model clients (the parent loop), one per session format. */
  private readonly mainProviders = new Map<SessionFormat, ModelProvider>();
  /** This thread's client for explicit caches, made when a run first asks for one. */
  private explicitCaches: ExplicitCacheClient | undefined;
  /** The single forks running (runFork), each with what cancels it. */
  private readonly forksCancelled = new Map<object, () => void>();
  /** Tools already warned about as undeclared: one warning per tool per engine. */
  private readonly warnedUndeclared = new Set<string>();
  /** The call gate's gauges, read when the application's meter provider collects (a remote engine's forks pass other processes' gates). */
  private readonly unobserveGate: () => void;

  private constructor(
    private readonly pool: ForkPool,
    private readonly gate: CallGate,
    private readonly host: ToolHost,
    private readonly options: ResolvedOptions,
    /** The module of the provider the forks use (its cache plan); `provider` is where this process reaches it. */
    private readonly module: ProviderModule,
    private readonly provider: ProviderConfig,
    private readonly stopServer: (() => Promise<void>) | undefined,
    /** Forks run in other processes (createRemote): their transcripts are the workers' to write. */
    private readonly remote = false,
  ) {
    this.unobserveGate = remote ? () => {} : observeCallGate(() => gate.stats());
  }

  static async create(given: ForkEngineOptions = {}): Promise<ForkEngine> {
    // A provider of one's own is registered first, so that its option keys can be checked.
    await loadProviderOf(given);
    // Every option checked once, here: nothing fails later, per fork, for a value given now.
    const options = resolveOptions(given);
    const { threads, concurrency } = options;
    // Checked before anything starts: a tool that cannot run is the caller's error, named now.
    const host = createToolHost(options.tools);
    const module = providerModule(options.provider.kind);
    const connected = await module.connect(options.provider, connectCommon(options));
    const { stop } = connected;
    // Workers and other processes import a provider of one's own from the URL its descriptor carries.
    const url = moduleUrlOf(options.provider);
    const provider = url !== undefined ? { ...connected.config, module: url } : connected.config;
    const pool = new Piscina({
      filename: workerEntry('fork-worker'),
      execArgv: [],
      minThreads: threads,
      maxThreads: threads,
      // Fork loops wait on the network: many per worker, and idle workers must keep their event loop.
      concurrentTasksPerWorker: Math.max(1, Math.ceil(concurrency / threads)),
      atomics: 'disabled',
      idleTimeout: 30_000,
      // Piscina's run and wait time histograms: a record per task that nothing reads.
      recordTiming: false,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    });
    linkThreads(pool);
    if (options.startThreads === 'ahead') await startThreadsAhead(pool, threads, provider, stop);
    const gate = createCallGate({
      maxInFlight: concurrency,
      ...options.rateLimit,
      ...(options.globalRetryBudget !== undefined ? { globalRetryBudget: options.globalRetryBudget } : {}),
    });
    return new ForkEngine(pool, gate, host, options, module, provider, stop);
  }

  /**
   * An engine whose forks run elsewhere: `pool` takes each fork job (src/queue puts it on a BullMQ
   * queue for `forkpool worker` processes) and settles with its result. Scheduling, warm-up,
   * budgets, events and the report are this engine's; it calls no model and starts no server, so
   * `options.provider` only names what the workers use (for the report's cache rules) and no key
   * is read. Explicit caches, which need a model call here, are not available.
   * @internal forkpool's own distributed runs (`forkpool run --queue`) make it.
   */
  static async createRemote(given: ForkEngineOptions, pool: ForkPool): Promise<ForkEngine> {
    await loadProviderOf(given);
    const options = resolveOptions(given);
    if (options.cache === 'explicit')
      throw new TypeError('ForkEngine.createRemote: options.cache "explicit" needs a model call on this process; use "implicit" or "off"');
    const host = createToolHost(options.tools);
    const gate = createCallGate({ maxInFlight: options.concurrency });
    // Never called (no explicit cache, no parent loop): the plan is the named provider's, the model is the workers'.
    const placeholder: ProviderConfig = { kind: 'local', baseUrl: 'http://127.0.0.1:9' };
    return new ForkEngine(pool, gate, host, options, providerModule(options.provider.kind), placeholder, undefined, true);
  }

  /** Validates the session (any JSON value) and freezes it: its own JSON bytes in a SharedArrayBuffer, written once. */
  freeze(session: unknown): FrozenPrefix {
    return freezePrefix(session);
  }

  /**
   * Runs one fork per task from the prefix. Tasks are an array (checked whole, now: a bad one is
   * an InputError thrown here, and nothing runs), or any iterable or async iterable (a generator,
   * `streamTasks()`): taken as forks are dispatched, at most `concurrency` ahead, each checked as it
   * is taken; a bad one stops the taking (see FanOutRun.tasksError). `parentWarm: true` says the
   * parent has just sent this prefix itself (its response has begun), so its cache entry is usable:
   * no fork waits for a warm-up, and the report lets the first fork hit too.
   */
  fanOut(prefix: FrozenPrefix, tasks: TaskInput, given: FanOutOptions = {}): FanOutRun {
    if (this.closed) throw new ForkpoolError('engine_closed', 'ForkEngine.fanOut: the engine is closed');
    const options = checkFanOutOptions(given);
    const source = taskSource(tasks);
    const o = this.options;
    const declaredTools = declaredToolNames(prefix.session.tools);
    this.warnUndeclared(declaredTools);
    const parentWarm = options.parentWarm;
    const cacheKey = fanOutCacheKey(options, prefix.session, prefix.id);
    const plan = this.plan(prefix.session, { cacheKey, role: 'forks', parentWarm, storedResponse: options.storedResponse });
    const settings: RunSettings = {
      // The engine's options and the fan-out's, under their own names (option-schema.ts).
      concurrency: o.concurrency,
      warmup: o.warmup,
      staggerCapMs: o.staggerCapMs,
      cache: o.cache,
      history: o.history,
      maxTurns: o.maxTurns,
      timeoutMs: o.timeoutMs,
      retry: o.retry,
      spawnTools: o.spawnTools,
      maxTokens: o.maxTokens,
      maxTokensPerFork: o.maxTokensPerFork,
      maxCost: o.maxCost,
      eventReplayLimit: o.eventReplayLimit,
      telemetry: o.telemetry,
      parentWarm,
      retainResults: options.retainResults,
      onResponseStart: options.onResponseStart,
      traceParent: options.traceParent,
      parentAgentId: options.parentAgentId,
      signal: options.signal,
      // What the engine resolves from them.
      provider: this.provider,
      plan,
      explicitCaches: plan.explicit ? this.explicitCacheClient() : undefined,
      callGate: options.callGate ?? this.gate,
      cancelGraceMs: CANCEL_GRACE_MS,
      declaredTools,
      price: runPrice(plan.provider, prefix.session.model, o.prices, o.maxCost),
      contextWindow: runWindow(plan.provider, prefix.session.model, o.prices),
      remoteForks: this.remote,
      cacheKey,
      ...(options.storedResponse !== undefined && namesStoredResponses(plan.shape) ? { storedResponse: options.storedResponse } : {}),
    };
    const transcripts = options.transcripts;
    if (transcripts !== undefined) {
      settings.transcripts = { dir: transcripts.dir, ...(transcripts.resume === true ? { continueFrom: 'crash' as const } : {}) };
      settings.revive = (task, message) => this.revive(prefix, task, message, settings);
    }
    const host = options.tools === undefined ? this.host : this.host.with(options.tools);
    const run = this.track(new FanOutRun(this.pool, host, settings, prefix, source));
    if (options.onResult) run.onResult(options.onResult);
    return run;
  }

  /**
   * A run of one fork that ended completed, continued from its transcript with the parent's
   * message as its next turn: its conversation so far is its prefix (its cache is warm for it), its
   * turns count afresh, and it can be revived again once it completes.
   */
  private revive(prefix: FrozenPrefix, task: ForkTask, message: string, settings: RunSettings): FanOutRun | undefined {
    if (this.closed) return undefined;
    const dir = (settings.transcripts as { dir: string }).dir;
    const revival: RunSettings = {
      ...settings,
      // Nothing to warm: its own earlier requests are what its first call shares.
      parentWarm: true,
      retainResults: true,
      transcripts: { dir, continueFrom: 'message', message },
      // A cache made for one fork costs more than it saves, and the requests it would name differ
      // from the ones the fork sent before: a revival reads the provider's implicit cache.
      ...(settings.plan.explicit
        ? {
            plan: planOf({ ...this.options, cache: 'implicit' }, prefix.session, {
              cacheKey: settings.cacheKey,
              role: 'forks',
              parentWarm: true,
            }),
            cache: 'implicit' as const,
            explicitCaches: undefined,
          }
        : {}),
    };
    revival.revive = (again, next) => this.revive(prefix, again, next, { ...revival, transcripts: { dir } });
    return this.track(new FanOutRun(this.pool, this.host, revival, prefix, taskSource([task])));
  }

  /** Keeps a run until it has settled, for close() to cancel. */
  private track(run: FanOutRun): FanOutRun {
    this.runs.add(run);
    void run.settled().then(() => this.runs.delete(run));
    return run;
  }

  /**
   * Runs one fork of the prefix without a fan-out: the path a fan-out's fork takes (its channel to
   * this thread's tools and call gate, its job on the pool), with none of a run's scheduling,
   * warm-up, budgets, accounting or report — for a caller that schedules forks itself (a queue
   * worker runs each job's fork so). The task is checked now (an InputError naming `task`).
   * `plan`: one resolved elsewhere (a distributed run's coordinator's), else this engine's provider's.
   * `cancel()` ends the fork cancelled with what it had (or, should its worker not confirm in time,
   * with nothing); the result never rejects.
   */
  runFork(prefix: FrozenPrefix, task: ForkTask, given: RunForkOptions = {}): SingleFork {
    if (this.closed) throw new ForkpoolError('engine_closed', 'ForkEngine.runFork: the engine is closed');
    const options = checkRunForkOptions(given);
    const checked = checkTask(task);
    const o = this.options;
    // A plan is its provider's: another provider's (a coordinator told another one than this engine's) is not followed.
    const plan =
      options.plan?.provider === this.module.kind
        ? options.plan
        : this.plan(prefix.session, { cacheKey: prefix.id, role: 'forks', parentWarm: false });
    const started = startFork(
      {
        pool: this.pool,
        host: this.host,
        gate: countingCalls(options.callGate ?? this.gate, options.onCallsInFlight),
        declaredTools: declaredToolNames(prefix.session.tools),
        spawnTools: spawnToolsOf(o),
        writesTranscripts: !this.remote,
        job: {
          // No model call of a single fork is traced here: its events go to the caller (a queue
          // worker's into Redis, where a call's content never goes), so they carry no content.
          ...forkJobOf(prefix, o, { provider: this.provider, plan, toolTimeoutMs: this.host.longestTimeoutMs, captureContent: false }),
          ...(options.transcript !== undefined ? { transcript: options.transcript } : {}),
        },
      },
      checked,
      {
        admit: () => true,
        onEvent: options.onEvent ?? (() => {}),
        onToolCall: toolSpansUnder(options.traceParent, o.telemetry.captureContent === true),
      },
    );
    let grace: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<ForkResult>((resolve) => {
      this.forksCancelled.set(started, () => {
        started.channel.cancel();
        // A worker that does not answer in time is recorded as cancelled; its late result is dropped.
        grace = setTimeout(() => resolve(emptyCancelled(task.id, 'cancelled; the worker did not confirm in time')), CANCEL_GRACE_MS);
      });
    });
    const result = Promise.race([started.result, gaveUp]).finally(() => {
      clearTimeout(grace);
      this.forksCancelled.delete(started);
    });
    return { result, cancel: () => this.forksCancelled.get(started)?.() };
  }

  /** The engine's call gate now: its bound, calls in flight and waiting, 429s and retries spent (a live page shows them). */
  callGateStats(): CallGateStats {
    return this.gate.stats();
  }

  /**
   * A headless parent agent loop on this engine: the parent model gets the session plus the
   * `agent` tool, and every fork it asks for runs in the background on this pool. `transcripts`: a
   * folder for each task's transcript (its output file; send_message revives a completed task from
   * it). `onFanOut`: each fan-out it starts, as it starts.
   */

  runParentAgent(
    session: ParentSession,
    prompt: string,
    options: Pick<ParentAgentOptions, 'maxTurns' | 'signal' | 'onEvent' | 'onFanOut' | 'transcripts'> = {},
  ): Promise<ParentOutcome> {
    if (this.closed) throw new ForkpoolError('engine_closed', 'ForkEngine.runParentAgent: the engine is closed');
    const parsed = parseSession(session);
    this.warnUndeclared(declaredToolNames(parsed.tools));
    // One routing key for the parent and every fork it starts: the id of the conversation it began from.
    const cacheKey = createHash('sha256').update(JSON.stringify(parsed)).digest('hex');
    const plan = this.plan(parsed, { cacheKey, role: 'parent', parentWarm: false });
    const provider = this.providerFor(plan.shape);
    // Loaded when a parent loop runs, not with the package: ForkEngine.create and fanOut never need it.
    return import('./parent-agent.js').then(({ runParentAgent }) =>
      runParentAgent({
        plan,
        cacheKey,
        engine: this,
        provider,
        tools: this.host,
        session: parsed,
        prompt,
        captureContent: this.options.telemetry.captureContent === true,
        ...options,
      }),
    );
  }

  /**
   * A tool given to the engine that the session does not declare can never be called: the model
   * sees only the session's declarations (forks must keep the parent's bytes, so none is added).
   * Said once per tool, as a process warning (code FORKPOOL_UNDECLARED_TOOL).
   */
  private warnUndeclared(declared: ReadonlySet<string>): void {
    const missing = this.options.tools.map((t) => t.name).filter((name) => !declared.has(name) && !this.warnedUndeclared.has(name));
    if (missing.length === 0) return;
    for (const name of missing) this.warnedUndeclared.add(name);
    const names = missing.map((name) => JSON.stringify(name)).join(', ');
    const one = missing.length === 1;
    process.emitWarning(
      `forkpool: the session does not declare the tool${one ? '' : 's'} ${names} given to the engine, so the model can never call ${one ? 'it' : 'them'}: add ${one ? 'its declaration' : 'their declarations'} to the session's tools (tool.declaration holds ${one ? 'it' : 'them'} in Gemini's shape)`,
      { code: 'FORKPOOL_UNDECLARED_TOOL' },
    );
  }

  /** The provider's cache plan for a session, with this engine's options. */
  private plan(session: Readonly<ParentSession>, run: Pick<PlanInput, 'cacheKey' | 'role' | 'parentWarm' | 'storedResponse'>): CachePlan {
    return planOf(this.options, session, run);
  }

  private explicitCacheClient(): ExplicitCacheClient | undefined {
    this.explicitCaches ??= this.module.explicitCaches?.(this.provider);
    return this.explicitCaches;
  }

  /** This thread's client for a session format; a provider that does not speak it is a TypeError naming both. */
  private providerFor(format: SessionFormat): ModelProvider {
    let provider = this.mainProviders.get(format);
    if (!provider) {
      provider = createProvider(this.provider, format);
      this.mainProviders.set(format, provider);
    }
    return provider;
  }

  /** Cancels what still runs, waits for it to settle, stops the pool and the local server. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unobserveGate();
    for (const run of this.runs) run.cancelAll();
    for (const cancel of [...this.forksCancelled.values()]) cancel();
    await Promise.all([...this.runs].map((r) => r.settled()));
    await this.pool.close();
    await this.stopServer?.();
  }
}

/** The gate, telling `report` the calls in flight through it as each is admitted and given back. */
function countingCalls(gate: EngineCallGate, report: ((calls: number) => void) | undefined): EngineCallGate {
  if (report === undefined) return gate;
  let inFlight = 0;
  return {
    async acquire(tokens, signal) {
      const admitted = await gate.acquire(tokens, signal);
      if (admitted) report(++inFlight);
      return admitted;
    },
    release(status, wantsRetry) {
      inFlight = Math.max(0, inFlight - 1);
      report(inFlight);
      return gate.release(status, wantsRetry);
    },
  };
}

/** Records each tool call's span under `parent`; without one, nothing (a fork with no trace to join). */
function toolSpansUnder(parent: Context | undefined, captureContent: boolean): ForkHooks['onToolCall'] {
  if (parent === undefined) return () => {};
  return (call, outcome, startedAt) => recordToolSpan(call, outcome, startedAt, parent, captureContent);
}

/** The URL of a provider module the option names (`{ kind, module }`: a provider of one's own). */
function moduleUrlOf(provider: unknown): string | undefined {
  const url = (provider as { module?: unknown } | undefined)?.module;
  return typeof url === 'string' ? url : undefined;
}

async function loadProviderOf(given: ForkEngineOptions): Promise<void> {
  const url = moduleUrlOf(given.provider);
  if (url === undefined) return;
  try {
    await loadProvider(url);
  } catch (err) {
    throw new TypeError(
      `ForkEngine: options.provider.module ${JSON.stringify(url)} could not be loaded: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** What every provider's descriptor carries of the engine's options. */
function connectCommon(options: ResolvedOptions): ConnectCommon {
  return {
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };
}
