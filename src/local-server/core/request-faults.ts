import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ApiFailure } from './errors.js';
import type { FaultKind } from './faults.js';
import type { ModelPlan } from './model.js';
import type { ServerState } from '../state.js';

/** The failures of one model request, for every dialect: the script's FAIL, then the seeded draw. */

/** What a dialect's error body says for each injected failure. */
export type FaultMessages = Readonly<Record<'429' | '500' | '503', string>>;

/** The first N attempts of this exact request (scope + raw body) fail, N from the script's FAIL. */
function checkScriptedFailure(state: ServerState, fail: NonNullable<ModelPlan['fail']>, scope: string, rawBody: string): void {
  if (fail.times <= 0) return;
  const key = createHash('sha1').update(scope).update('\0').update(rawBody).digest('hex');
  const attempts = (state.failAttempts.get(key) ?? 0) + 1;
  state.failAttempts.set(key, attempts);
  if (attempts > fail.times) return;
  const retryAfter = fail.status === 429 ? state.faults.retryAfterSeconds : undefined;
  throw new ApiFailure(fail.status, `Scripted failure ${attempts} of ${fail.times} for this request.`, retryAfter);
}

/**
 * Throws the failure to send (scripted, or a drawn 429/500/503); for a drawn `drop` destroys the
 * connection. Returns the drawn fault ('drop': nothing more to send; 'slow', 'malformed' shape the
 * response), or undefined.
 */
export function applyFaults(
  state: ServerState,
  fail: ModelPlan['fail'],
  request: { scope: string; rawBody: string; res: ServerResponse },
  messages: FaultMessages,
): FaultKind | undefined {
  if (fail) checkScriptedFailure(state, fail, request.scope, request.rawBody);
  const fault = state.faults.draw();
  if (fault === undefined) return undefined;
  state.metrics.fault(fault);
  if (fault === '429') throw new ApiFailure(429, messages['429'], state.faults.retryAfterSeconds);
  if (fault === '500' || fault === '503') throw new ApiFailure(Number(fault), messages[fault]);
  if (fault === 'drop') request.res.socket?.destroy();
  return fault;
}
