import type { Piscina } from 'piscina';
import type { ProviderConfig, ModelProvider } from '../model/types.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { ForkTask } from '../session/schema.js';
import type { ToolHost } from '../tools/host.js';
import type { CallGate } from './call-gate.js';
import { openForkChannel, type ForkChannel } from './channel.js';
import { createEventLog, type ForkEvent } from './events.js';
import { prepareExplicitCaches, type ExplicitCaches } from './explicit-cache.js';
import { seedWindow, type ForkJob, type ForkResult } from './protocol.js';
import { emptyCancelled, emptyFailure } from './results.js';
import { ratio, theoreticalCached, type RunReport } from './report.js';

export interface RunSettings {
  provider: ProviderConfig;
  /** Main-thread client, for explicit cache create/delete only. */
  mainProvider: ModelProvider;
  concurrency: number;
  warmup: 'auto' | 'none';
  /** The parent has just sent this prefix (its response has begun): no fork waits, the first can hit. */
  parentWarm: boolean;
  staggerCapMs: number;
  cache: 'implicit' | 'explicit' | 'off';
  minCacheTokens: number;
  seed: 'inherit' | 'completed-turns';
  maxTurns: number;
  timeoutMs: number | undefined;
  /** The engine's gate for model calls (shared by every run of the engine). */
  gate: CallGate;
  /** Retries one fork may spend. */
  forkRetryBudget: number | undefined;
  /** How long a cancelled fork's worker gets to answer before it is recorded as cancelled anyway. */
  cancelGraceMs: number;
  declaredTools: ReadonlySet<string>;
  spawnTools: ReadonlySet<string>;
}

type Slot =
  | { state: 'queued' }
  | { state: 'running'; channel: ForkChannel; since: number; graceTimer?: NodeJS.Timeout }
  | { state: 'done'; result: ForkResult };

/** One fan-out: forks of one prefix, scheduled over the engine's pool. */
export class FanOutRun {
  readonly prefix: FrozenPrefix;
  private readonly tasks: readonly ForkTask[];
  private readonly slots: Slot[];
  private readonly queue: number[];
  private readonly log = createEventLog<ForkEvent>();
  private readonly startedAt = performance.now();
  private endedAt: number | undefined;
  private inFlight = 0;
  private dispatched = 0;
  private gateOpen: boolean;
  private coldForkId: string | undefined;
  private parentWarmForkId: string | undefined;
  private readonly windowLeaders = new Map<string, string>();
  private caches: ExplicitCaches | undefined;
  private cacheNote: string | undefined;
  private readonly done: Promise<ForkResult[]>;
  private resolveDone!: (results: ForkResult[]) => void;
  private readonly resultListeners: ((result: ForkResult) => void)[] = [];
  /** The run's own background work (cache setup and cleanup), for the engine's close(). */
  private readonly background: Promise<void>;

  constructor(
    private readonly pool: Piscina,
    private readonly host: ToolHost,
    private readonly settings: RunSettings,
    prefix: FrozenPrefix,
    tasks: readonly ForkTask[],
  ) {
    this.prefix = prefix;
    this.tasks = tasks;
    this.slots = tasks.map(() => ({ state: 'queued' }));
    this.queue = tasks.map((_, i) => i);
    this.gateOpen = settings.parentWarm || settings.warmup === 'none' || settings.cache === 'off';
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.background = this.start();
  }

  /** Every event from the start; ends when every fork is terminal. */
  events(): AsyncIterableIterator<ForkEvent> {
    return this.log.read();
  }

  /** Calls back once per fork, the moment its result exists (for writing results as they come). */
  onResult(listener: (result: ForkResult) => void): void {
    this.resultListeners.push(listener);
    for (const slot of this.slots) if (slot.state === 'done') listener(slot.result);
  }

  /** Every fork's result, in task order, once all are terminal. */
  results(): Promise<ForkResult[]> {
    return this.done;
  }

  /** Resolves when the run is over and its explicit caches are deleted. */
  async settled(): Promise<void> {
    await this.done;
    await this.background;
  }

  cancel(id: string): void {
    const index = this.tasks.findIndex((t) => t.id === id);
    if (index >= 0) this.cancelIndex(index);
  }

  cancelAll(): void {
    for (const index of [...this.queue]) this.cancelIndex(index);
    this.slots.forEach((_, i) => this.cancelIndex(i));
  }

  report(): RunReport {
    const results = this.slots.flatMap((s) => (s.state === 'done' ? [s.result] : []));
    const inputs = {
      coldForkId: this.coldForkId,
      parentWarmForkId: this.parentWarmForkId,
      windowLeaders: new Set(this.windowLeaders.values()),
      minCacheTokens: this.settings.minCacheTokens,
    };
    const perFork = results.map((r) => {
      const theoretical = theoreticalCached(r, inputs);
      return {
        id: r.id,
        status: r.status,
        promptTokens: r.usage.promptTokens,
        cachedTokens: r.usage.cachedTokens,
        theoreticalCachedTokens: theoretical,
        efficiency: ratio(r.usage.cachedTokens, theoretical),
      };
    });
    const sum = (pick: (r: ForkResult) => number): number => results.reduce((a, r) => a + pick(r), 0);
    const promptTokens = sum((r) => r.usage.promptTokens);
    const cachedTokens = sum((r) => r.usage.cachedTokens);
    const theoretical = perFork.reduce((a, f) => a + f.theoreticalCachedTokens, 0);
    const wallMs = (this.endedAt ?? performance.now()) - this.startedAt;
    const count = (state: Slot['state']): number => this.slots.filter((s) => s.state === state).length;
    const byStatus = (status: ForkResult['status']): number => results.filter((r) => r.status === status).length;
    const notes: string[] = [];
    if (this.caches?.active) {
      notes.push('explicit cache: every call is served from the cachedContent and nothing more, so that is each call’s maximum; a fork’s own earlier turns are not cached alongside it.');
    }
    if (this.tasks.some((t) => t.forkTurns !== undefined && t.forkTurns !== 'all')) {
      notes.push('forkTurns trimmed the history: forks no longer share the parent conversation’s cache, only system instruction and tools (siblings with the same window still share theirs).');
    }
    return {
      forks: {
        total: this.tasks.length,
        completed: byStatus('completed'),
        failed: byStatus('failed'),
        cancelled: byStatus('cancelled'),
        running: count('running'),
        queued: count('queued'),
      },
      wallMs: Math.round(wallMs),
      forksPerSecond: wallMs > 0 ? results.length / (wallMs / 1000) : 0,
      modelCalls: sum((r) => r.calls.length),
      toolCalls: sum((r) => r.toolCalls),
      retries: sum((r) => r.retries),
      promptTokens,
      cachedTokens,
      outputTokens: sum((r) => r.usage.outputTokens),
      hitRate: promptTokens > 0 ? cachedTokens / promptTokens : 0,
      theoreticalCachedTokens: theoretical,
      efficiency: ratio(cachedTokens, theoretical),
      warmup: this.settings.parentWarm ? 'parent' : this.settings.warmup,
      cache: {
        requested: this.settings.cache,
        effective: this.caches?.active ? 'explicit' : this.settings.cache === 'off' ? 'off' : 'implicit',
        ...(this.cacheNote ? { note: this.cacheNote } : {}),
      },
      prefix: { id: this.prefix.id, bytes: this.prefix.byteLength, tokens: this.prefix.tokenEstimate },
      notes,
      perFork,
      failures: results.flatMap((r) => (r.status === 'completed' ? [] : [{ id: r.id, kind: r.error.kind, message: r.error.message }])),
    };
  }

  private async start(): Promise<void> {
    if (this.tasks.length === 0) return this.finishRun();
    if (this.settings.cache === 'explicit') {
      try {
        this.caches = await prepareExplicitCaches(this.prefix.session, this.tasks, this.settings);
        this.cacheNote = this.caches.note;
      } catch (err) {
        // Forks still run, on implicit caching; whatever broke the cache will fail them by name.
        this.cacheNote = `explicit cache fell back to implicit: ${err instanceof Error ? err.message : String(err)}`;
      }
      // Cancelled while the cache was being made: the run is over, so the cache goes at once.
      if (this.endedAt !== undefined) await this.caches?.release();
    }
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.settings.concurrency && (this.gateOpen || this.dispatched === 0)) {
      this.dispatch(this.queue.shift() as number);
    }
  }

  /** Warm-up: siblings wait for the first fork's prefill, so they find its prefix cached. */
  private openGate(): void {
    if (this.gateOpen) return;
    this.gateOpen = true;
    this.pump();
  }

  private dispatch(index: number): void {
    const task = this.tasks[index] as ForkTask;
    if (this.dispatched === 0) {
      const explicit = this.settings.cache === 'explicit' && this.caches?.active === true;
      if (!explicit && this.settings.parentWarm) this.parentWarmForkId = task.id;
      else if (!explicit) this.coldForkId = task.id;
      if (!this.gateOpen) setTimeout(() => this.openGate(), this.settings.staggerCapMs).unref();
    }
    const first = this.dispatched === 0;
    const window = seedWindow(task, this.settings.seed);
    // With an explicit cache, every window's shared part was cached before any fork ran.
    if (!this.windowLeaders.has(window) && !this.caches?.forTask(task)) this.windowLeaders.set(window, task.id);
    this.dispatched++;
    this.inFlight++;
    const channel = openForkChannel({
      host: this.host,
      gate: this.settings.gate,
      policy: {
        forkId: task.id,
        declaredTools: this.settings.declaredTools,
        spawnTools: this.settings.spawnTools,
        ...(task.subagentType !== undefined ? { subagentType: task.subagentType } : {}),
        ...(task.tools !== undefined ? { allowedTools: task.tools } : {}),
      },
      onEvent: (event) => {
        if (event.type === 'response_start') {
          if (first) this.openGate();
          return;
        }
        this.log.push({ type: 'turn', forkId: task.id, turn: event.turn, usage: event.usage, functionCalls: event.functionCalls });
      },
      onToolCall: (call, outcome) => {
        this.log.push({
          type: 'tool_call',
          forkId: task.id,
          tool: call.name,
          status: outcome.status,
          ...(outcome.status !== 'ok' ? { reason: outcome.reason } : {}),
        });
      },
    });
    this.slots[index] = { state: 'running', channel, since: performance.now() };
    this.log.push({ type: 'task_started', forkId: task.id, description: describe(task) });
    const job: ForkJob = {
      task,
      prefix: { id: this.prefix.id, buffer: this.prefix.buffer, byteLength: this.prefix.byteLength },
      prefixTokens: this.prefix.tokenEstimate,
      retryBudget: this.settings.forkRetryBudget,
      toolTimeoutMs: this.host.longestTimeoutMs,
      provider: this.settings.provider,
      seed: this.settings.seed,
      spawnTools: [...this.settings.spawnTools],
      maxTurns: this.settings.maxTurns,
      timeoutMs: this.settings.timeoutMs,
      cache: this.caches?.forTask(task),
      port: channel.workerPort,
    };
    this.pool
      .run(job, { transferList: [channel.workerPort] as never })
      .then(
        (result: ForkResult) => this.settle(index, result),
        (err: unknown) => this.settle(index, crashResult(task, err)),
      )
      .finally(() => {
        channel.close();
        this.inFlight--;
        if (first) this.openGate();
        this.pump();
      });
  }

  private cancelIndex(index: number): void {
    const slot = this.slots[index] as Slot;
    const task = this.tasks[index] as ForkTask;
    if (slot.state === 'queued') {
      this.queue.splice(this.queue.indexOf(index), 1);
      this.log.push({ type: 'task_started', forkId: task.id, description: describe(task) });
      this.settle(index, emptyCancelled(task.id, 'cancelled before it started'));
      this.pump();
    } else if (slot.state === 'running' && slot.graceTimer === undefined) {
      slot.channel.cancel();
      // A worker that does not answer in time is recorded as cancelled; its late result is dropped.
      slot.graceTimer = setTimeout(
        () => this.settle(index, emptyCancelled(task.id, 'cancelled; the worker did not confirm in time')),
        this.settings.cancelGraceMs,
      );
      slot.graceTimer.unref();
    }
  }

  /** The one place a fork becomes terminal: exactly once, whoever gets here first. */
  private settle(index: number, result: ForkResult): void {
    const slot = this.slots[index] as Slot;
    if (slot.state === 'done') return;
    if (slot.state === 'running') {
      clearTimeout(slot.graceTimer);
      // Time in flight as this thread saw it: from dispatch to the end, whoever ended the fork.
      result = { ...result, durationMs: Math.round(performance.now() - slot.since) };
    }
    this.slots[index] = { state: 'done', result };
    this.log.push({ type: 'task_notification', forkId: result.id, status: result.status, result });
    for (const listener of this.resultListeners) listener(result);
    if (this.slots.every((s) => s.state === 'done')) void this.finishRun();
  }

  private async finishRun(): Promise<void> {
    this.endedAt = performance.now();
    await this.caches?.release();
    this.log.close();
    this.resolveDone(this.slots.map((s) => (s as Extract<Slot, { state: 'done' }>).result));
  }
}

function describe(task: ForkTask): string {
  const line = task.directive.split('\n', 1)[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

function crashResult(task: ForkTask, err: unknown): ForkResult {
  const message = err instanceof Error ? err.message : String(err);
  return emptyFailure(task.id, 'worker_crash', `the worker running this fork died: ${message}`);
}
