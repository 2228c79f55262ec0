/**
 * The run-wide gate every model call passes, on the main thread (workers reach it by RPC):
 * requests and tokens per minute, a bound on calls in flight that halves when most calls sent
 * lately were answered 429 (a saturated provider; a 429 now and then is retried, not a reason to
 * slow everyone) and grows back as calls succeed, and a global retry budget. One gate per engine,
 * so a batch of 10,000 forks cannot stampede a provider.
 */
import type { AttemptStatus } from '../model/types.js';

export interface RateLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

export interface CallGateOptions extends RateLimits {
  /** Upper bound on model calls in flight; the adaptive bound never exceeds it. */
  maxInFlight: number;
  /** Retries the whole engine may spend; undefined = unbounded (each fork still has its own). */
  globalRetryBudget?: number;
  now?: () => number;
}

/**
 * What the engine's forks need from a gate: admission before each attempt (false: the wait was
 * aborted) and its outcome after (whether a retry fits the budget). The engine's own gate is one;
 * a fan-out may bring another (`FanOutOptions.callGate`: forkpool worker's gate shared through Redis).
 */
export interface EngineCallGate {
  acquire(tokens: number, signal?: AbortSignal): Promise<boolean>;
  release(status: AttemptStatus, wantsRetry: boolean): boolean | Promise<boolean>;
}

export interface CallGateStats {
  limit: number;
  inFlight: number;
  waiting: number;
  retriesSpent: number;
  rateLimited: number;
}

const WINDOW_MS = 60_000;
/** Successes in a row before the bound grows by one (additive increase). */
const GROW_AFTER = 8;
/**
 * The back-off compares the 429s of the last few seconds with the calls sent in them (not with
 * the answers: a 429 comes back at once while a success takes the whole call, so answers alone
 * would read saturation into the first seconds of any fan-out).
 */
const RECENT_MS = 10_000;
const RECENT_MIN_CALLS = 10;
/** The share of 429s among the calls sent that means the provider is saturated. */
const SATURATED_SHARE = 0.5;
/** At most one halving per this long: calls already in flight answer for the old bound. */
const DECREASE_COOLDOWN_MS = 1_000;

export function createCallGate(options: CallGateOptions) {
  const now = options.now ?? (() => performance.now());
  let limit = options.maxInFlight;
  let inFlight = 0;
  let successes = 0;
  let retriesSpent = 0;
  let rateLimited = 0;
  let lastDecrease = -Infinity;
  const sentAt: number[] = [];
  const limitedAt: number[] = [];
  const window: { at: number; tokens: number }[] = [];
  const waiters: { tokens: number; resolve: (admitted: boolean) => void; signal: AbortSignal | undefined }[] = [];
  let timer: NodeJS.Timeout | undefined;

  const prune = (t: number): void => {
    while (window.length > 0 && (window[0] as { at: number }).at <= t - WINDOW_MS) window.shift();
  };
  /** ms until a call of `tokens` may start, 0 when it may start now. */
  const waitFor = (tokens: number): number => {
    if (inFlight >= limit) return Infinity; // woken by release()
    const t = now();
    prune(t);
    const oldest = window[0]?.at ?? t;
    if (options.requestsPerMinute !== undefined && window.length >= options.requestsPerMinute) return oldest + WINDOW_MS - t;
    if (options.tokensPerMinute !== undefined && window.length > 0) {
      const used = window.reduce((a, w) => a + w.tokens, 0);
      // A call larger than the whole budget still runs, alone in its window.
      if (used + tokens > options.tokensPerMinute) return oldest + WINDOW_MS - t;
    }
    return 0;
  };
  const pump = (): void => {
    clearTimeout(timer);
    timer = undefined;
    while (waiters.length > 0) {
      const head = waiters[0] as (typeof waiters)[number];
      if (head.signal?.aborted) {
        waiters.shift();
        head.resolve(false);
        continue;
      }
      const wait = waitFor(head.tokens);
      if (wait === 0) {
        waiters.shift();
        admit(head.tokens);
        head.resolve(true);
        continue;
      }
      if (Number.isFinite(wait)) {
        timer = setTimeout(pump, Math.max(1, Math.ceil(wait)));
        timer.unref();
      }
      return;
    }
  };
  const admit = (tokens: number): void => {
    inFlight++;
    const t = now();
    window.push({ at: t, tokens });
    sentAt.push(t);
  };
  const recentCount = (times: number[], t: number): number => {
    while (times.length > 0 && (times[0] as number) <= t - RECENT_MS) times.shift();
    return times.length;
  };

  return {
    /** true when a call of about `tokens` may be sent; false when the signal aborted the wait. */
    acquire(tokens: number, signal?: AbortSignal): Promise<boolean> {
      if (signal?.aborted) return Promise.resolve(false);
      if (waiters.length === 0 && waitFor(tokens) === 0) {
        admit(tokens);
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        waiters.push({ tokens, resolve, signal });
        signal?.addEventListener('abort', pump, { once: true });
        pump();
      });
    },

    /** Ends an admitted call. Returns whether a retry of it fits the global budget. */
    release(status: AttemptStatus, wantsRetry: boolean): boolean {
      inFlight = Math.max(0, inFlight - 1);
      if (status === 'rate_limited') {
        rateLimited++;
        successes = 0;
        const t = now();
        limitedAt.push(t);
        const sent = recentCount(sentAt, t);
        const limited = recentCount(limitedAt, t);
        if (sent >= RECENT_MIN_CALLS && limited / sent >= SATURATED_SHARE && t - lastDecrease >= DECREASE_COOLDOWN_MS) {
          limit = Math.max(1, Math.floor(limit / 2));
          lastDecrease = t;
        }
      } else if (status === 'ok' && ++successes >= GROW_AFTER) {
        successes = 0;
        limit = Math.min(options.maxInFlight, limit + 1);
      }
      let allowed = false;
      if (wantsRetry && (options.globalRetryBudget === undefined || retriesSpent < options.globalRetryBudget)) {
        retriesSpent++;
        allowed = true;
      }
      pump();
      return allowed;
    },

    stats(): CallGateStats {
      return { limit, inFlight, waiting: waiters.length, retriesSpent, rateLimited };
    },
  };
}

export type CallGate = ReturnType<typeof createCallGate>;
