import type { ExplicitCacheClient } from '../../model/module.js';
import type { CachePlan } from '../../model/plan.js';
import type { ProviderConfig } from '../../model/types.js';
import type { EngineCallGate } from '../call-gate.js';
import type { JobOptions } from '../fork-job.js';
import type { CheckedFanOutOptions, ResolvedOptions } from '../options.js';
import type { RunWindow } from '../window-check.js';
import type { MessagingSettings } from './send-outcome.js';
import type { RunPrice } from './spending.js';

/** The engine options a run reads, under the option schema's names (docs/options.md). */
type RunOptions = JobOptions &
  Pick<ResolvedOptions, 'concurrency' | 'warmup' | 'staggerCapMs' | 'cache' | 'maxTokens' | 'maxCost' | 'eventReplayLimit' | 'telemetry'>;

/** The fan-out's own options a run reads, under their names. */
type RunFanOutOptions = Pick<
  CheckedFanOutOptions,
  'parentWarm' | 'retainResults' | 'onResponseStart' | 'traceParent' | 'parentAgentId' | 'signal'
>;

/**
 * A run's settings: the engine's and the fan-out's options under the option schema's names, and
 * what the engine resolved from them once. `Run`: the run a revival continues in.
 */
export interface RunSettingsOf<Run> extends RunOptions, RunFanOutOptions, MessagingSettings<Run> {
  /** Where this process reaches the model. */
  provider: ProviderConfig;
  /** Everything provider-specific about the run's cache (model/plan.ts), resolved once by the provider's module. */
  plan: CachePlan;
  /** This thread's client for the explicit caches the plan asks for (providers that have them). */
  explicitCaches: ExplicitCacheClient | undefined;
  /** The gate for model calls: the fan-out's callGate, else the engine's (shared by every run of the engine). */
  callGate: EngineCallGate;
  /** How long a cancelled fork's worker gets to answer before it is recorded as cancelled anyway. */
  cancelGraceMs: number;
  /** The tools the session declares. */
  declaredTools: ReadonlySet<string>;
  /** The model's price, when one is known: calls are costed as they return. */
  price: RunPrice | undefined;
  /** The model's context window, when one is known: a task whose first request would not fit is refused (window-check.ts). */
  contextWindow: RunWindow | undefined;
  /** The routing key its requests carry (a revival's keep it); undefined: none. */
  cacheKey: string | undefined;
  /**
   * The parent's stored response (FanOutOptions.storedResponse), where the session's shape names
   * stored responses: what every fork's first call is compared with by OpenAI's cache diagnostics,
   * instead of its window's first response.
   */
  storedResponse?: string;
}
