import { inSteps, type FirstCallRole } from './cache-figures.js';
import type { CachePlan } from '../model/plan.js';
import type { CacheMiss, CacheMissReason, CallRecord } from '../result/fork-result.js';

/*
 * Why a fork's first call was served less of the shared prefix than its siblings share. The
 * prefix every fork of a seed window sends byte for byte is what the fan-out is for; a first call
 * that did not get all of it from cache has one reason, found from what the run knows: the order
 * of dispatch, the provider's rules, what the request carried, how long the prefix sat unused, and
 * the provider's own diagnostic where it gives one (Anthropic's cache_miss_reason, OpenAI's
 * prompt_cache_diagnostics on Responses: the reason either names, in the provider's words).
 */

/** What the run knew about a fork's first call when it settled. */
export interface MissFacts {
  /** The first call, annotated with the shares others send (cache-accounting.ts). */
  first: CallRecord;
  role: FirstCallRole;
  /** The most the run's own requests let the first call be served (cache-figures.ts callMaxima). */
  maximum: number;
  /** Dispatched before any response it could read from had begun: in the opening wave, or with its window's first fork. */
  early: boolean;
  /** Its seed window is not the parent's whole history (trimmed turns, a fresh general-purpose context). */
  trimmedWindow: boolean;
  /** The provider caches only where a request marks it, and this run marks nothing. */
  unmarked: boolean;
  /** How long nothing had sent its prefix when it was dispatched, ms (undefined: nothing had). */
  idleMs: number | undefined;
  rules: Pick<CachePlan['rules'], 'minCacheTokens' | 'cacheBlockTokens' | 'entryTtlMs'>;
}

/** The part of a first call's shared tokens a shortfall may reach before it counts as a miss. */
const ESTIMATE_TOLERANCE = 0.05;

/** The miss of a fork's first call, or undefined when it was served (nearly) all it shares, or its cached tokens are unknown. */
export function cacheMissOf(facts: MissFacts): CacheMiss | undefined {
  const { first, rules } = facts;
  const served = first.cachedTokens;
  if (served === null) return undefined;
  const shared = first.explicitTokens ?? inSteps(first.sharedTokens ?? 0, rules.cacheBlockTokens);
  const tokens = Math.min(shared, first.promptTokens) - served;
  // What it shares is estimated from characters (cache-accounting.ts): a shortfall within the estimate's error is no miss.
  if (tokens <= Math.max(0, shared * ESTIMATE_TOLERANCE)) return undefined;
  const miss = (reason: CacheMissReason, detail: string): CacheMiss => ({ reason, tokens, detail });
  const n = (x: number): string => x.toLocaleString('en-US');

  if (facts.unmarked)
    return miss('no-breakpoint', 'the provider caches only at a marked breakpoint and the request carried none (cache off)');
  // What the run's own requests allowed: the maximum was below what the fork shares.
  if (served >= facts.maximum) {
    if (shared < rules.minCacheTokens)
      return miss('below-minimum', `it shares ${n(shared)} tokens, under the provider's minimum of ${n(rules.minCacheTokens)}`);
    if (facts.role === 'leader' && facts.trimmedWindow) {
      return miss(
        'trimmed-window',
        `the first fork of its seed window: ${n(facts.maximum)} tokens (system, tools and the history every window keeps) had been sent before it`,
      );
    }
    if (facts.role === 'cold' || facts.early) return miss('cold-start', 'sent before any request with its prefix had been answered');
    if (facts.role === 'second') {
      return miss(
        'cold-start',
        `the second request on prefix units: only the first fork's units existed (${n(facts.maximum)} tokens of whole intervals); its own request made the unit its siblings read`,
      );
    }
    if (facts.role !== 'sibling')
      return miss('cold-start', `the first request of its kind: ${n(facts.maximum)} tokens of it had been sent before it`);
  }
  // The run had sent what it shares, and the cache did not serve it.
  if (facts.early)
    return miss('cold-start', 'sent before any request with its prefix had been answered: it may have reached the provider first');
  const ttl = rules.entryTtlMs;
  if (ttl !== undefined && facts.idleMs !== undefined && facts.idleMs > ttl) {
    return miss('ttl', `its prefix went unused for ${seconds(facts.idleMs)}, longer than the provider keeps an entry (${seconds(ttl)})`);
  }
  const said = first.cacheMiss;
  if (said !== undefined)
    return miss(
      'provider',
      `the provider says ${said.reason}${said.missedTokens !== undefined ? ` (${n(said.missedTokens)} tokens)` : ''}`,
    );
  return miss(
    'unexplained',
    `served ${n(served)} of ${n(Math.min(shared, first.promptTokens))} shared tokens: evicted, another cache shard, or not built yet`,
  );
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`;
}
