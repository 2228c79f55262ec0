/**
 * Latency model: fixed overhead + prefill time for uncached tokens + a much smaller cost for
 * cached tokens, then decode time per output token. Zero by default (tests).
 */

export interface LatencyModel {
  /** Fixed time per request before prefill, ms. */
  overheadMs: number;
  /** Prefill speed for uncached prompt tokens, tokens/s (Infinity: free). */
  prefillTokensPerSecond: number;
  /** Prefill speed for cached prompt tokens, tokens/s. */
  cachedTokensPerSecond: number;
  /** Decode speed for output tokens, tokens/s. */
  decodeTokensPerSecond: number;
}

export type LatencyPreset = 'zero' | 'fast' | 'realistic' | 'slow';

export const LATENCY_PRESETS: Readonly<Record<LatencyPreset, LatencyModel>> = {
  zero: { overheadMs: 0, prefillTokensPerSecond: Infinity, cachedTokensPerSecond: Infinity, decodeTokensPerSecond: Infinity },
  /** Scaled-down realistic shape, for quick benchmarks. */
  fast: { overheadMs: 5, prefillTokensPerSecond: 50_000, cachedTokensPerSecond: 500_000, decodeTokensPerSecond: 2_000 },
  /** A few thousand tokens/s prefill, ~100 tokens/s decode, cached tokens 10x cheaper. */
  realistic: { overheadMs: 150, prefillTokensPerSecond: 4_000, cachedTokensPerSecond: 40_000, decodeTokensPerSecond: 100 },
  slow: { overheadMs: 400, prefillTokensPerSecond: 1_500, cachedTokensPerSecond: 15_000, decodeTokensPerSecond: 40 },
};

export function isLatencyPreset(name: string): name is LatencyPreset {
  return Object.hasOwn(LATENCY_PRESETS, name);
}

export function resolveLatency(latency: LatencyPreset | LatencyModel | undefined): LatencyModel {
  if (latency === undefined) return LATENCY_PRESETS.zero;
  if (typeof latency === 'string') {
    if (!isLatencyPreset(latency)) {
      throw new Error(`unknown latency preset "${String(latency)}" (one of ${Object.keys(LATENCY_PRESETS).join(', ')})`);
    }
    return LATENCY_PRESETS[latency];
  }
  return latency;
}

const perToken = (tokens: number, rate: number): number => (tokens <= 0 || rate === Infinity ? 0 : (tokens / rate) * 1000);

export function prefillMs(model: LatencyModel, uncachedTokens: number, cachedTokens: number): number {
  return model.overheadMs + perToken(uncachedTokens, model.prefillTokensPerSecond) + perToken(cachedTokens, model.cachedTokensPerSecond);
}

export function decodeMs(model: LatencyModel, outputTokens: number): number {
  return perToken(outputTokens, model.decodeTokensPerSecond);
}

const MAX_TIMER_MS = 2_147_483_647;

/** Resolves after `ms`, or false early when `signal` aborts. Zero waits return at once. */
export function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    // setTimeout turns anything past 2^31-1 ms into 1 ms: a huge SLEEP waits the longest it can instead.
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
