import type { ModelError, RetryPolicy } from './types.js';

/** Exponential backoff with full jitter; a server's Retry-After wins when it is longer. */
export function backoffDelay(policy: RetryPolicy, attempt: number, error: ModelError, random = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.min(policy.maxDelayMs, Math.max(jittered, error.retryAfterMs ?? 0));
}

/** Resolves after ms, or early (false) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
