import { Piscina } from 'piscina';
import { AGENT_TOOL_NAME } from '../fork/index.js';
import { breakpointTtl, parentBreakpoints } from '../dialect/breakpoints.js';
import type { AnthropicSessionLike } from '../dialect/anthropic-messages.js';
import { ANTHROPIC_PRESET, resolveAnthropicEndpoint, resolveChatEndpoint } from '../model/presets.js';
import { createProvider } from '../model/providers.js';
import type { ModelProvider, ProviderConfig } from '../model/types.js';
import { freezePrefix, type FrozenPrefix } from '../prefix/index.js';
import { parseSession } from '../session/parse.js';
import { sessionFormat, type ParentSession, type SessionFormat } from '../session/schema.js';
import { createToolHost, declaredToolNames, type ToolHost } from '../tools/host.js';
import { createCallGate, type CallGate } from './call-gate.js';
import { cacheRules, checkFanOutOptions, resolveOptions, type FanOutOptions, type ForkEngineOptions, type ResolvedOptions } from './options.js';
import { runParentAgent, type ParentEvent, type ParentOutcome } from './parent-agent.js';
import { FanOutRun, type ForkPool, type RunSettings } from './run.js';
import { taskSource, type TaskInput } from './task-source.js';
import { workerEntry } from '../threads/worker-entry.js';

export { DEFAULT_MAX_TURNS, ENGINE_DEFAULTS, type FanOutOptions, type ForkEngineOptions, type ProviderOption } from './options.js';

const CANCEL_GRACE_MS = 5_000;

/** The fork executor: a Piscina pool of fork workers, a tool host on this thread, one model provider. */
export class ForkEngine {
  private closed = false;
  private readonly runs = new Set<FanOutRun>();
  /** This thread's model clients (explicit caches, the parent loop), one per session format. */
  private readonly mainProviders = new Map<SessionFormat, ModelProvider>();
  /** Tools already warned about as undeclared: one warning per tool per engine. */
  private readonly warnedUndeclared = new Set<string>();

  private constructor(
    private readonly pool: ForkPool,
    private readonly gate: CallGate,
    private readonly host: ToolHost,
    private readonly options: ResolvedOptions,
    private readonly provider: ProviderConfig,
    private readonly stopServer: (() => Promise<void>) | undefined,
  ) {}

  static async create(given: ForkEngineOptions = {}): Promise<ForkEngine> {
    // Every option checked once, here: nothing fails later, per fork, for a value given now.
    const options = resolveOptions(given);
    const { threads, concurrency } = options;
    // Checked before anything starts: a tool that cannot run is the caller's error, named now.
    const host = createToolHost(options.tools);
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
    return new ForkEngine(pool, gate, host, options, provider, stop);
  }

  /**
   * An engine whose forks run elsewhere: `pool` takes each fork job (src/queue puts it on a BullMQ
   * queue for `forkpool worker` processes) and settles with its result. Scheduling, warm-up,
   * budgets, events and the report are this engine's; it calls no model and starts no server, so
   * `options.provider` only names what the workers use (for the report's cache rules) and no key
   * is read. Explicit caches, which need a model call here, are not available.
   */
  static async createRemote(given: ForkEngineOptions, pool: ForkPool): Promise<ForkEngine> {
    const options = resolveOptions(given);
    if (options.cache === 'explicit') throw new TypeError('ForkEngine.createRemote: options.cache "explicit" needs a model call on this process; use "implicit" or "off"');
    const host = createToolHost(options.tools);
    const gate = createCallGate({ maxInFlight: options.concurrency });
    // Never called (no explicit cache, no parent loop): a client for the report's format only.
    const placeholder: ProviderConfig = { kind: 'local', baseUrl: 'http://127.0.0.1:9' };
    return new ForkEngine(pool, gate, host, options, placeholder, undefined);
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
  fanOut(prefix: FrozenPrefix, tasks: TaskInput, options: FanOutOptions = {}): FanOutRun {
    if (this.closed) throw new Error('ForkEngine.fanOut: the engine is closed');
    checkFanOutOptions(options);
    const source = taskSource(tasks);
    const o = this.options;
    const format = sessionFormat(prefix.session);
    const declaredTools = declaredToolNames(prefix.session.tools);
    this.warnUndeclared(declaredTools);
    const settings: RunSettings = {
      provider: this.provider,
      mainProvider: this.providerFor(format),
      promptCacheKey: format === 'openai-chat' ? (options.promptCacheKey ?? prefix.id) : undefined,
      concurrency: o.concurrency,
      warmup: o.warmup,
      parentWarm: options.parentWarm === true,
      staggerCapMs: o.staggerCapMs,
      cache: o.cache,
      ...cacheRules(o, format, prefix.session.model),
      cacheMarkers: o.cache === 'explicit' && format === 'openai-chat' && this.provider.kind === 'dashscope',
      ...(format === 'anthropic-messages' ? anthropicSettings(prefix.session as AnthropicSessionLike, o) : {}),
      history: o.history,
      maxTurns: o.maxTurns,
      timeoutMs: o.timeoutMs,
      gate: options.callGate ?? this.gate,
      forkRetryBudget: o.retry?.forkBudget,
      cancelGraceMs: CANCEL_GRACE_MS,
      declaredTools,
      spawnTools: new Set([AGENT_TOOL_NAME, ...o.spawnTools]),
      maxTokens: o.maxTokens,
      maxTokensPerFork: o.maxTokensPerFork,
      retainResults: options.retainResults !== false,
      eventReplayLimit: o.eventReplayLimit,
      ...(options.onResponseStart ? { onResponseStart: options.onResponseStart } : {}),
    };
    const run = new FanOutRun(this.pool, this.host, settings, prefix, source);
    if (options.onResult) run.onResult(options.onResult);
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
    const parsed = parseSession(session);
    this.warnUndeclared(declaredToolNames(parsed.tools));
    const anthropic = sessionFormat(parsed) === 'anthropic-messages' ? anthropicSettings(parsed as AnthropicSessionLike, this.options) : undefined;
    return runParentAgent({
      ...(anthropic?.breakpoints ? { breakpoints: { parent: anthropic.breakpoints.parent, ttl: anthropic.breakpoints.ttl } } : {}),
      engine: this,
      provider: this.providerFor(sessionFormat(parsed)),
      tools: this.host,
      session: parsed,
      prompt,
      ...options,
    });
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
    for (const run of this.runs) run.cancelAll();
    await Promise.all([...this.runs].map((r) => r.settled()));
    await this.pool.close();
    await this.stopServer?.();
  }
}

/**
 * Anthropic caches only at cache_control breakpoints: forkpool places them (unless the cache is
 * off), leaving the parent's own where they are, and prices the run's cache reads and writes.
 */
function anthropicSettings(session: AnthropicSessionLike, o: ResolvedOptions): Pick<RunSettings, 'breakpoints' | 'pricing'> {
  const parent = parentBreakpoints(session);
  return {
    pricing: ANTHROPIC_PRESET.costMultipliers,
    ...(o.cache !== 'off' ? { breakpoints: { parent: parent.count, ttl: breakpointTtl(o.cacheTtl, parent), askedTtl: o.cacheTtl } } : {}),
  };
}

async function resolveProvider(options: ResolvedOptions): Promise<{ provider: ProviderConfig; stop?: () => Promise<void> }> {
  const common = {
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };
  // Checked by resolveOptions: never a silent simulator (a caller with a key would get made-up answers).
  const p = options.provider;
  if (p.kind === 'gemini') {
    const apiKey = p.apiKey ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
    if (!apiKey) throw new Error('ForkEngine: the gemini provider needs an API key (apiKey, GEMINI_API_KEY or GOOGLE_API_KEY)');
    const baseUrl = p.baseUrl ?? process.env.GOOGLE_GEMINI_BASE_URL;
    return { provider: { kind: 'gemini', apiKey, ...(baseUrl ? { baseUrl } : {}), ...common } };
  }
  if (p.kind !== 'local') {
    // The key is read where the model is called (apiKeyEnv), so it never rides in the descriptor
    // unless the caller passed it in; a missing one is an error now, not a failure per fork.
    const config: ProviderConfig = {
      kind: p.kind,
      ...(p.apiKey !== undefined ? { apiKey: p.apiKey } : {}),
      ...(p.apiKeyEnv !== undefined ? { apiKeyEnv: p.apiKeyEnv } : {}),
      ...(p.baseUrl !== undefined ? { baseUrl: p.baseUrl } : {}),
      ...common,
    };
    if (p.kind === 'anthropic') resolveAnthropicEndpoint(config);
    else resolveChatEndpoint(config);
    return { provider: config };
  }
  if (p.url) return { provider: { kind: 'local', baseUrl: p.url, ...common } };
  // The built-in server runs in a thread of its own, never on the engine's main thread; its module is
  // loaded only here, so a library that is given a real provider never loads the simulator.
  const { startLocalServerThread } = await import('../local-server/thread.js');
  const server = await startLocalServerThread({});
  return { provider: { kind: 'local', baseUrl: server.url, ...common }, stop: () => server.close() };
}

