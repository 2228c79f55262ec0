import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ResourceLimits } from 'node:worker_threads';
import { AGENT_TOOL_NAME } from '../fork/index.js';
import { startLocalServerThread } from '../local-server/index.js';
import { createGenaiProvider } from '../model/genai.js';
import { DEFAULT_RETRY, type ProviderConfig, type RetryPolicy } from '../model/types.js';
import { freezePrefix, type FrozenPrefix } from '../prefix/index.js';
import { InputError } from '../session/errors.js';
import { firstIssue, plainWords } from '../session/issues.js';
import { parseSession } from '../session/load.js';
import { ForkTaskSchema, type ForkTask, type HistoryMode, type ParentSession } from '../session/schema.js';
import type { Tool } from '../tools/define.js';
import { createToolHost, declaredToolNames, type ToolHost } from '../tools/host.js';
import { createCallGate, type CallGate, type RateLimits } from './call-gate.js';
import { runParentAgent, type ParentEvent, type ParentOutcome } from './parent-agent.js';
import { FanOutRun, type RunSettings } from './run.js';
import { workerEntry } from './worker-entry.js';

export type ProviderOption =
  | { kind: 'local'; url?: string }
  | { kind: 'gemini'; apiKey?: string; baseUrl?: string };

export interface ForkEngineOptions {
  provider?: ProviderOption;
  /** Worker threads; default: the number of cores. */
  threads?: number;
  /** Forks in flight across the pool; default 64. */
  concurrency?: number;
  tools?: readonly Tool[];
  warmup?: 'auto' | 'none';
  cache?: 'implicit' | 'explicit' | 'off';
  maxTurns?: number;
  /** Per-fork bound, ms. */
  timeoutMs?: number;
  /** Which history forks start from when their task does not say: 'inherit' (default) or 'completed-turns'. */
  history?: HistoryMode;
  /** Warm-up releases the other forks after this long even without a first response; default 5000. */
  staggerCapMs?: number;
  /** The provider's minimum cacheable prefix, in tokens; default 1024. */
  minCacheTokens?: number;
  /** Per-attempt bound on one model HTTP call, ms. */
  callTimeoutMs?: number;
  /** Backoff and attempts per model call, and retries per fork (`forkBudget`). */
  retry?: Partial<RetryPolicy>;
  /** Retries the whole engine may spend, across forks. */
  globalRetryBudget?: number;
  /** Requests and tokens per minute across every fork of the engine. */
  rateLimit?: RateLimits;
  /** Worker thread limits (a worker over them dies and only its forks fail). */
  resourceLimits?: ResourceLimits;
  /** Extra tool names that would start an agent: refused in forks like `agent`. */
  spawnTools?: readonly string[];
  /**
   * Tokens (prompt + output, as the provider reports them) one fan-out may spend. Once spent,
   * queued forks end cancelled (kind "budget") and running forks end before their next model call.
   */
  maxTokens?: number;
  /** Tokens one fork may spend (a task's own `maxTokens` wins); past them it fails with kind "budget". */
  maxTokensPerFork?: number;
  /** Recent events a run keeps for `events({ replay: true })`; default 1000. */
  eventReplayLimit?: number;
}

export interface FanOutOptions {
  /** The parent has just sent this prefix (always so inside runParentAgent). */
  parentWarm?: boolean;
  /**
   * false: each result goes to `onResult` listeners and is then dropped, so memory stays flat
   * however many forks run; `results()` is unavailable and the report has totals, no per-fork rows.
   * Default true.
   */
  retainResults?: boolean;
}

export const DEFAULT_MAX_TURNS = 200;
/** Every worker starts at once with its own V8 heap; forks wait on the network, so concurrency scales instead. */
export const MAX_THREADS = 256;
const DEFAULT_CONCURRENCY = 64;
const CANCEL_GRACE_MS = 5_000;
const DEFAULT_EVENT_REPLAY = 1_000;

/** The fork executor: a Piscina pool of fork workers, a tool host on this thread, one model provider. */
export class ForkEngine {
  private closed = false;
  private readonly runs = new Set<FanOutRun>();

  private constructor(
    private readonly pool: Piscina,
    private readonly gate: CallGate,
    private readonly host: ToolHost,
    private readonly options: ForkEngineOptions,
    private readonly provider: ProviderConfig,
    private readonly stopServer: (() => Promise<void>) | undefined,
  ) {}

  static async create(options: ForkEngineOptions = {}): Promise<ForkEngine> {
    if ('seed' in options) throw new TypeError('ForkEngine: options.seed is now called options.history ("inherit" or "completed-turns")');
    const threads = positive('threads', options.threads) ?? availableParallelism();
    if (threads > MAX_THREADS) throw new RangeError(`ForkEngine: threads must be at most ${MAX_THREADS}, got ${threads}`);
    const concurrency = positive('concurrency', options.concurrency) ?? DEFAULT_CONCURRENCY;
    positive('maxTokens', options.maxTokens);
    positive('maxTokensPerFork', options.maxTokensPerFork);
    if (options.eventReplayLimit !== undefined && !(Number.isInteger(options.eventReplayLimit) && options.eventReplayLimit >= 0)) {
      throw new RangeError(`ForkEngine: eventReplayLimit must be a non-negative integer, got ${options.eventReplayLimit}`);
    }
    // Checked before anything starts: a tool that cannot run is the caller's error, named now.
    const host = createToolHost(options.tools ?? []);
    const { provider, stop } = await resolveProvider(options);
    const entry = workerEntry('fork-worker');
    const pool = new Piscina({
      filename: entry.filename,
      execArgv: entry.execArgv,
      minThreads: threads,
      maxThreads: threads,
      // Fork loops wait on the network: many per worker, and idle workers must keep their event loop.
      concurrentTasksPerWorker: Math.max(1, Math.ceil(concurrency / threads)),
      atomics: 'disabled',
      idleTimeout: 30_000,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    });
    const gate = createCallGate({
      maxInFlight: concurrency,
      ...options.rateLimit,
      ...(options.globalRetryBudget !== undefined ? { retryBudget: options.globalRetryBudget } : {}),
    });
    return new ForkEngine(pool, gate, host, { ...options, concurrency }, provider, stop);
  }

  /** Validates the session (any JSON value) and freezes it: its own JSON bytes in a SharedArrayBuffer, written once. */
  freeze(session: unknown): FrozenPrefix {
    return freezePrefix(session);
  }

  /**
   * Runs one fork per task from the prefix. `parentWarm: true` says the parent has just sent this
   * prefix itself (its response has begun), so its cache entry is usable: no fork waits for a
   * warm-up, and the report lets the first fork hit too.
   */
  fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[], options: FanOutOptions = {}): FanOutRun {
    if (this.closed) throw new Error('ForkEngine.fanOut: the engine is closed');
    const checked = checkTasks(tasks);
    const o = this.options;
    const settings: RunSettings = {
      provider: this.provider,
      mainProvider: createGenaiProvider(this.provider),
      concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
      warmup: o.warmup ?? 'auto',
      parentWarm: options.parentWarm === true,
      staggerCapMs: o.staggerCapMs ?? 5_000,
      cache: o.cache ?? 'implicit',
      minCacheTokens: o.minCacheTokens ?? 1024,
      history: o.history ?? 'inherit',
      maxTurns: o.maxTurns ?? DEFAULT_MAX_TURNS,
      timeoutMs: o.timeoutMs,
      gate: this.gate,
      forkRetryBudget: o.retry?.forkBudget,
      cancelGraceMs: CANCEL_GRACE_MS,
      declaredTools: declaredToolNames(prefix.session.tools),
      spawnTools: new Set([AGENT_TOOL_NAME, ...(o.spawnTools ?? [])]),
      maxTokens: o.maxTokens,
      maxTokensPerFork: o.maxTokensPerFork,
      retainResults: options.retainResults !== false,
      eventReplayLimit: o.eventReplayLimit ?? DEFAULT_EVENT_REPLAY,
    };
    const run = new FanOutRun(this.pool, this.host, settings, prefix, checked);
    this.runs.add(run);
    void run.settled().then(() => this.runs.delete(run));
    return run;
  }

  /**
   * A headless parent agent loop on this engine: the parent model gets the session plus the
   * `agent` tool, and every fork it asks for runs in the background on this pool.
   */
  runParentAgent(
    session: ParentSession,
    prompt: string,
    options: { maxTurns?: number; signal?: AbortSignal; onEvent?: (event: ParentEvent) => void } = {},
  ): Promise<ParentOutcome> {
    if (this.closed) throw new Error('ForkEngine.runParentAgent: the engine is closed');
    return runParentAgent({
      engine: this,
      provider: createGenaiProvider(this.provider),
      tools: this.host,
      session: parseSession(session),
      prompt,
      ...options,
    });
  }

  /** Cancels what still runs, waits for it to settle, stops the pool and the local server. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const run of this.runs) run.cancelAll();
    await Promise.all([...this.runs].map((r) => r.settled()));
    await this.pool.close();
    await this.stopServer?.();
  }
}

async function resolveProvider(options: ForkEngineOptions): Promise<{ provider: ProviderConfig; stop?: () => Promise<void> }> {
  const common = {
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
    ...(options.retry ? { retry: { ...DEFAULT_RETRY, ...options.retry } } : {}),
  };
  const p = options.provider ?? { kind: 'local' };
  if (p.kind === 'gemini') {
    const apiKey = p.apiKey ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
    if (!apiKey) throw new Error('ForkEngine: the gemini provider needs an API key (apiKey, GEMINI_API_KEY or GOOGLE_API_KEY)');
    const baseUrl = p.baseUrl ?? process.env.GOOGLE_GEMINI_BASE_URL;
    return { provider: { kind: 'gemini', apiKey, ...(baseUrl ? { baseUrl } : {}), ...common } };
  }
  if (p.url) return { provider: { kind: 'local', baseUrl: p.url, ...common } };
  // The built-in server runs in a thread of its own, never on the engine's main thread.
  const server = await startLocalServerThread({});
  return { provider: { kind: 'local', baseUrl: server.url, ...common }, stop: () => server.close() };
}


/**
 * Validates every task (an InputError naming `tasks[i]`, the field and the rule) and returns the
 * caller's own array: a copy per task would cost memory per fork for the whole run.
 */
function checkTasks(tasks: readonly ForkTask[]): readonly ForkTask[] {
  const ids = new Set<string>();
  tasks.forEach((task, i) => {
    const result = ForkTaskSchema.safeParse(task, { error: plainWords });
    if (!result.success) {
      const { path, rule } = firstIssue(result.error);
      throw new InputError({ path: path ? `tasks[${i}].${path}` : `tasks[${i}]`, rule });
    }
    if (ids.has(task.id)) throw new InputError({ path: `tasks[${i}].id`, rule: `${JSON.stringify(task.id)} is used by an earlier task; task ids must be unique` });
    ids.add(task.id);
  });
  return tasks;
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`ForkEngine: ${name} must be a positive integer, got ${value}`);
  return value;
}
