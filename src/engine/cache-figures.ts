import type { TokenUsage } from '../model/types.js';
import type { CallRecord, ForkResult } from '../result/fork-result.js';
import type { CachePricing, ForkCacheFigures } from './report.js';
import { answerCut } from '../result/results.js';

/*
 * One fork's cache figures from its calls: the most the provider's rules let it serve of each call
 * (from the request and what the run itself had sent before it, never from what was served), what
 * it served beyond that (the cache held it before the run began), and the efficiency of the rest.
 */

/** The provider's rules the maximum follows. */
export interface CacheRules {
  /** The minimum cacheable prompt; a shorter reusable run can hit nothing. */
  minCacheTokens: number;
  /** The provider caches in steps of this many tokens (1: any length). */
  cacheBlockTokens: number;
  /** DeepSeek's cache prefix units: whole units, cut every `intervalTokens`, where a request or its reply ended, and where two requests share a prefix. */
  prefixUnits?: { intervalTokens: number } | undefined;
}

/**
 * What a fork's first call could reuse of what this run had sent before it. `cold`: nothing (the
 * first request of a run on a cold cache). `parent`: what the parent itself sent (the first request
 * of a parent-warm run). `leader`: what forks of other seed windows send too (the first fork of its
 * window). `sibling`: what its siblings of the same window send (any other fork). `second`: the
 * run's second fork on a cache of prefix units, which holds only the first fork's units: its
 * request's end (its own directive) and the whole intervals of what the two share.
 */
export type FirstCallRole = 'cold' | 'parent' | 'leader' | 'second' | 'sibling';

/**
 * The most each call could be served. On an explicit cache: the cached content (the call names it
 * and nothing more is cached with it). Otherwise the first call reuses what its role allows and each
 * later call everything the previous call sent and received; never more than the call's own prompt,
 * in whole steps, and nothing under the minimum.
 */
export function callMaxima(calls: readonly CallRecord[], role: FirstCallRole, rules: CacheRules): number[] {
  return calls.map((call, i) => {
    if (call.explicitTokens !== undefined) return Math.min(call.explicitTokens, call.promptTokens);
    const previous = calls[i - 1];
    const reusable = previous === undefined ? firstCallReusable(call, role, rules) : previous.promptTokens + previous.outputTokens;
    // A unit ends exactly where a request or its reply ended: a later call's and the parent's are not rounded to the step.
    const block = rules.prefixUnits !== undefined && (previous !== undefined || role === 'parent') ? 1 : rules.cacheBlockTokens;
    const servable = inSteps(Math.min(reusable, call.promptTokens), block);
    return servable < rules.minCacheTokens ? 0 : servable;
  });
}

/** Tokens rounded down to whole steps of a cache that serves in steps. */
export function inSteps(tokens: number, step: number): number {
  return Math.floor(tokens / step) * step;
}

function firstCallReusable(call: CallRecord, role: FirstCallRole, rules: CacheRules): number {
  switch (role) {
    case 'second': {
      const shared = call.sharedTokens ?? 0;
      const interval = rules.prefixUnits?.intervalTokens;
      return interval === undefined ? shared : inSteps(shared, interval);
    }
    case 'cold':
      return 0;
    case 'parent':
      return call.parentTokens ?? 0;
    case 'leader':
      return call.baseTokens ?? 0;
    case 'sibling':
      return call.sharedTokens ?? 0;
  }
}

/**
 * A fork's figures for one role of its first call. A call served more than its maximum found that
 * much in the cache before the run began (an earlier run, the parent beyond what the run assumed):
 * it is counted apart, and the efficiency is what the run itself earned against its maximum.
 */
export function forkFigures(
  result: ForkResult,
  role: FirstCallRole,
  rules: CacheRules,
  pricing: CachePricing | undefined,
): ForkCacheFigures {
  const maxima = callMaxima(result.calls, role, rules);
  const theoretical = maxima.reduce((sum, n) => sum + n, 0);
  const cached = result.usage.cachedTokens;
  const preexisting = cached === null ? null : heldBefore(result.calls, maxima);
  const cut = answerCut(result);
  return {
    id: result.id,
    status: result.status,
    promptTokens: result.usage.promptTokens,
    cachedTokens: cached,
    theoreticalCachedTokens: theoretical,
    preexistingCachedTokens: preexisting,
    efficiency: efficiencyOf(cached, preexisting, theoretical),
    ...(pricing ? { relativeInputCost: ratio(inputUnits(result.usage, pricing), result.usage.promptTokens) } : {}),
    ...(result.sent !== undefined ? { sent: result.sent } : {}),
    ...(result.usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: result.usage.cacheWriteTokens } : {}),
    ...(cut !== undefined ? { cut } : {}),
  };
}

/** Tokens served beyond each call's maximum, summed; null when a call's cached tokens are unknown. */
function heldBefore(calls: readonly CallRecord[], maxima: readonly number[]): number | null {
  let total = 0;
  for (const [i, call] of calls.entries()) {
    if (call.cachedTokens === null) return null;
    total += Math.max(0, call.cachedTokens - (maxima[i] ?? 0));
  }
  return total;
}

/**
 * A call's input in units of one uncached input token: tokens neither read nor written at 1×, reads
 * and writes at their prices. Unknown cached tokens count as none read.
 */
export function inputUnits(usage: TokenUsage, pricing: CachePricing): number {
  const read = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const written1h = usage.cacheWrite1hTokens ?? 0;
  const plain = Math.max(0, usage.promptTokens - read - written);
  return plain + read * pricing.read + (written - written1h) * pricing.write5m + written1h * pricing.write1h;
}

/** What was earned against the maximum: (cached − what the cache held before) / theoretical; null when unknown or nothing was cacheable. */
export function efficiencyOf(cached: number | null, preexisting: number | null, theoretical: number): number | null {
  return cached === null || preexisting === null ? null : ratio(cached - preexisting, theoretical);
}

export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}
