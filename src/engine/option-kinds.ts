/** The kinds of value the options are made of, each with the message a wrong value gets. */
import type { Context } from '@opentelemetry/api';
import { z } from 'zod';
import type { EngineCallGate } from './call-gate.js';

/** Node clamps a longer timer to 1 ms: a bound past this would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A count: a safe integer from `min`, at most `max`. */
export function count(min: 0 | 1, max?: number) {
  const n = z.int().min(min);
  return max === undefined ? n : n.max(max);
}

export const positiveNumber = () => z.number({ error: positiveNumberMessage }).gt(0, { error: positiveNumberMessage });

function positiveNumberMessage(issue: { input?: unknown }): string {
  return `must be a positive number, got ${JSON.stringify(issue.input)}`;
}

export const nonEmptyString = (what: string) => z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}` });

export const fn = <F>() => z.custom<F>((value) => typeof value === 'function', { error: 'must be a function' });

export const abortSignal = () => z.custom<AbortSignal>((value) => value instanceof AbortSignal, { error: 'must be an AbortSignal' });

export const callGate = () =>
  z.custom<EngineCallGate>(
    (value) => {
      const gate = value as Partial<EngineCallGate> | null;
      return gate !== null && typeof gate === 'object' && typeof gate.acquire === 'function' && typeof gate.release === 'function';
    },
    { error: 'must have acquire(tokens, signal) and release(status, wantsRetry)' },
  );

export const traceParent = () =>
  z.custom<Context>(
    (value) => value !== null && typeof value === 'object' && typeof (value as { getValue?: unknown }).getValue === 'function',
    {
      error: 'must be an OpenTelemetry Context',
    },
  );
