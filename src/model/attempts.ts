import { backoffDelay, sleep } from './retry.js';
import type { GenerateOptions, ModelOutcome, RetryPolicy } from './types.js';

/** What one attempt came to; the loop adds the attempt count. */
export type AttemptOutcome = Omit<Extract<ModelOutcome, { ok: true }>, 'attempts'> | Omit<Extract<ModelOutcome, { ok: false }>, 'attempts'>;

/**
 * One model call as a series of attempts, the same for every provider: each attempt is admitted
 * by the gate (when there is one) and reported back to it; a retryable failure is sent again after
 * a backoff (the server's retry-after wins when it is longer) until the policy's attempts or the
 * gate's retry budget run out ("(retry budget exhausted)" is then added to the message); an abort
 * ends the call at once, while waiting at the gate, during an attempt or during a backoff.
 */
export async function runAttempts(
  policy: RetryPolicy,
  options: GenerateOptions,
  attempt: () => Promise<AttemptOutcome>,
): Promise<ModelOutcome> {
  const aborted = (n: number): ModelOutcome => ({
    ok: false,
    error: { kind: 'aborted', message: 'the call was aborted', retryable: false },
    attempts: n,
  });
  for (let n = 1; ; n++) {
    if (options.gate && !(await options.gate.acquire(options.tokenEstimate ?? 0))) return aborted(n - 1);
    const outcome = await attempt();
    const wantsRetry = !outcome.ok && outcome.error.retryable && n < policy.maxAttempts && !options.signal.aborted;
    const status = outcome.ok ? 'ok' : outcome.error.status === 429 ? 'rate_limited' : 'failed';
    const mayRetry = options.gate ? await options.gate.release(status, wantsRetry) : wantsRetry;
    if (outcome.ok) return { ...outcome, attempts: n };
    const { error } = outcome;
    if (!mayRetry) {
      const exhausted = wantsRetry ? ' (retry budget exhausted)' : '';
      return { ok: false, error: { ...error, message: `${error.message}${exhausted}` }, attempts: n };
    }
    if (!(await sleep(backoffDelay(policy, n, error), options.signal))) return aborted(n);
  }
}
