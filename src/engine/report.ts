import type { ForkResult, ForkStatus } from './protocol.js';

export interface ForkCacheFigures {
  id: string;
  status: ForkStatus;
  promptTokens: number;
  cachedTokens: number;
  /** The most the provider could have served from cache for this fork's calls. */
  theoreticalCachedTokens: number;
  /** cached / theoretical; null when nothing was cacheable. */
  efficiency: number | null;
}

export interface CacheMode {
  requested: 'implicit' | 'explicit' | 'off';
  /** What ran: explicit falls back to implicit when the prefix is too small or creation fails. */
  effective: 'implicit' | 'explicit' | 'off';
  note?: string;
}

export interface RunReport {
  forks: { total: number; completed: number; failed: number; cancelled: number; running: number; queued: number };
  wallMs: number;
  forksPerSecond: number;
  modelCalls: number;
  toolCalls: number;
  retries: number;
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  /** cached / prompt tokens. */
  hitRate: number;
  theoreticalCachedTokens: number;
  efficiency: number | null;
  /** 'parent': the caller said the parent had just sent the prefix, so no fork waited. */
  warmup: 'auto' | 'none' | 'parent';
  cache: CacheMode;
  /** Present when a token budget was set: what was spent and how many forks the budgets ended. */
  budget?: RunBudget;
  prefix: { id: string; bytes: number; tokens: number };
  /** Set when forkTurns trimmed the history: only system instruction and tools match the parent's cache. */
  notes: string[];
  /** One row per fork that ended, in task order (empty when results are not retained). */
  perFork: ForkCacheFigures[];
  failures: { id: string; kind: string; message: string }[];
}

export interface RunBudget {
  maxTokens?: number;
  maxTokensPerFork?: number;
  /** Prompt + output tokens of every call that returned, as the provider counted them. */
  spentTokens: number;
  /** The run's budget ran out: queued forks were cancelled and running ones stopped. */
  spent: boolean;
  /** Forks a budget ended (kind "budget"): cancelled before they started, stopped at a model call, or over their own budget. */
  stoppedForks: number;
}

export interface TheoreticalInputs {
  /** The fork whose first call met a cold cache (the first one dispatched), if any. */
  coldForkId: string | undefined;
  /**
   * On a parent-warm run, the forks dispatched before the first fork's response began: nothing but
   * the parent had sent anything yet, so their first calls can reuse only what the parent sent.
   */
  parentWave?: ReadonlySet<string>;
  /**
   * The first fork dispatched of each seed window (history × forkTurns): nothing before it sent its
   * window, so its first call can reuse only what every fork sends (system instruction, tools).
   */
  windowLeaders: ReadonlySet<string>;
  /** The provider's minimum cacheable prompt; calls below it can hit nothing. */
  minCacheTokens: number;
}

/**
 * The theoretical maximum for one fork. On an explicit cache: the cached content, on every call.
 * Otherwise, its first call can reuse the prefix its siblings share
 * (nothing, for the very first call on a cold cache; what the parent sent, for the forks a
 * parent-warm run sent before any fork's response began; only the system instruction and tools for
 * the first fork of another seed window); each later call can reuse everything the previous call sent
 * and received. Never more than the call's own prompt.
 */
export function theoreticalCached(result: ForkResult, inputs: TheoreticalInputs): number {
  let total = 0;
  result.calls.forEach((call, i) => {
    if (call.explicitTokens !== undefined) {
      // A call that names a cachedContent is served from it and nothing more: that is its maximum.
      total += Math.min(call.explicitTokens, call.promptTokens);
      return;
    }
    const previous = result.calls[i - 1];
    let reusable =
      previous === undefined
        ? result.id === inputs.coldForkId
          ? 0
          : inputs.parentWave?.has(result.id) === true
            ? (call.parentTokens ?? 0)
            : inputs.windowLeaders.has(result.id)
            ? (call.baseTokens ?? 0)
            : (call.sharedTokens ?? 0)
        : previous.promptTokens + previous.outputTokens;
    reusable = Math.min(reusable, call.promptTokens);
    if (reusable < inputs.minCacheTokens) reusable = 0;
    total += reusable;
  });
  return total;
}

export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}
