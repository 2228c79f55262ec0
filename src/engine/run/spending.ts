import { billedTokens, type TokenUsage } from '../../model/types.js';
import { costOf, costOfCalls, storageCostOf, type ModelPrice } from '../../model/prices.js';
import type { ForkResult } from '../../result/fork-result.js';
import { spentUsage } from '../../result/results.js';
import type { ResolvedOptions } from '../options.js';
import type { RunBudget, RunCacheStorage, RunCost } from '../report.js';

/** The model's price for a run: calls are costed as they return. */
export interface RunPrice {
  model: string;
  price: ModelPrice;
}

/** A run's budgets, under the option schema's names, and its model's price when one is known. */
export type SpendingLimits = Pick<ResolvedOptions, 'maxTokens' | 'maxTokensPerFork' | 'maxCost'> & { price: RunPrice | undefined };

/** Which budget ended the run: its tokens, or its cost cap. */
export type StopReason = 'budget' | 'cost';

/**
 * A run's budget and cost: tokens and dollars counted as each call returns (from its fork's turn
 * events), the rest of a fork's spending when its result comes, and the moment the run's token
 * budget or cost cap is spent, which `onSpent` is told once.
 */
export class RunSpending {
  private spentTokens = 0;
  private spentUsd = 0;
  /** Calls costed as uncached because the provider did not report cached tokens. */
  private uncachedPricedCalls = 0;
  /** Tokens counted so far per running fork (from its turn events, which may trail its result). */
  private readonly countedTokens = new Map<number, number>();
  /** Cost the turn events reported so far, per fork in flight (the result settles the rest). */
  private readonly countedUsd = new Map<number, number>();
  private stopped: StopReason | undefined;

  constructor(
    private readonly limits: SpendingLimits,
    /** The run's budget is spent: `why` says which and how far (ending "before it started", for the forks it cancels). */
    private readonly onSpent: (reason: StopReason, why: string) => void,
  ) {}

  /** The run's token budget or cost cap is spent: no more model calls start. */
  get spent(): boolean {
    return this.stopped !== undefined;
  }

  /** Which budget was spent ('budget' before either is). */
  get stopReason(): StopReason {
    return this.stopped ?? 'budget';
  }

  /** A running fork's model call returned: its tokens and its cost count now. */
  called(fork: number, usage: TokenUsage): void {
    const tokens = billedTokens(usage);
    this.countedTokens.set(fork, (this.countedTokens.get(fork) ?? 0) + tokens);
    const usd = this.costOfCall(usage);
    this.countedUsd.set(fork, (this.countedUsd.get(fork) ?? 0) + usd);
    this.spend(tokens, usd);
  }

  /**
   * A running fork's result: what its turn events did not count counts now (the result and the
   * events travel apart; a resumed fork's calls from its transcript were an earlier run's to pay).
   * Its cost, with a price: each call at its own prompt's tier (a fork's summed prompt can pass a
   * tier that none of its calls reached).
   */
  settled(fork: number, result: ForkResult): number | undefined {
    const uncounted = billedTokens(spentUsage(result)) - (this.countedTokens.get(fork) ?? 0);
    this.countedTokens.delete(fork);
    const price = this.limits.price;
    const forkUsd =
      price === undefined
        ? undefined
        : costOfCalls(
            result.calls.filter((c) => c.restored !== true),
            price.price,
          );
    const uncountedUsd = forkUsd === undefined ? 0 : forkUsd - (this.countedUsd.get(fork) ?? 0);
    this.countedUsd.delete(fork);
    if (uncounted > 0 || uncountedUsd > 1e-12) this.spend(Math.max(0, uncounted), Math.max(0, uncountedUsd));
    return forkUsd;
  }

  /**
   * Counts tokens and dollars. Once the run's token budget or cost cap is spent, the run is told:
   * it cancels its queued forks, takes no more tasks, and its running forks end before their next
   * model call (calls in flight finish: they are paid for).
   */
  private spend(tokens: number, usd: number): void {
    this.spentTokens += tokens;
    this.spentUsd += usd;
    if (this.stopped !== undefined) return;
    const { maxTokens: limit, maxCost: cap } = this.limits;
    const tokensOut = limit !== undefined && this.spentTokens >= limit;
    if (!tokensOut && (cap === undefined || this.spentUsd < cap)) return;
    this.stopped = tokensOut ? 'budget' : 'cost';
    const why = tokensOut
      ? `the run's token budget was spent (${this.spentTokens} of ${limit} tokens) before it started`
      : `the run's cost cap was reached ($${this.spentUsd.toFixed(4)} of $${cap}) before it started`;
    this.onSpent(this.stopped, why);
  }

  /** One call's cost in dollars at the run's price (0 without one); a call without cached tokens is priced uncached and counted. */
  private costOfCall(usage: TokenUsage): number {
    const price = this.limits.price;
    if (price === undefined) return 0;
    const cost = costOf(usage, price.price);
    if (cost.cachedUnknown) this.uncachedPricedCalls++;
    return cost.usd;
  }

  /** What storing the run's explicit caches cost, at the price's storage rate (undefined without one). */
  storageUsd(tokenHours: number): number | undefined {
    const price = this.limits.price;
    return price === undefined ? undefined : storageCostOf(tokenHours, price.price);
  }

  /** The report's cost: every call that returned, and the explicit caches' storage; undefined without a price. */
  cost(storage: RunCacheStorage | undefined): RunCost | undefined {
    const price = this.limits.price;
    if (price === undefined) return undefined;
    return {
      usd: this.spentUsd + (storage?.usd ?? 0),
      ...(storage?.usd !== undefined ? { storageUsd: storage.usd } : {}),
      model: price.model,
      ...(price.price.source !== undefined ? { source: price.price.source } : {}),
      ...(price.price.read !== undefined ? { read: price.price.read } : {}),
      uncachedPricedCalls: this.uncachedPricedCalls,
    };
  }

  /** The report's budget, when the run has one or a fork's own budget stopped it; `stoppedForks`: forks a budget ended. */
  budget(stoppedForks: number): RunBudget | undefined {
    const { maxTokens, maxTokensPerFork, maxCost } = this.limits;
    if (maxTokens === undefined && maxTokensPerFork === undefined && maxCost === undefined && stoppedForks === 0) return undefined;
    return {
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(maxTokensPerFork !== undefined ? { maxTokensPerFork } : {}),
      ...(maxCost !== undefined ? { maxCost, spentUsd: this.spentUsd, overshootUsd: Math.max(0, this.spentUsd - maxCost) } : {}),
      spentTokens: this.spentTokens,
      spent: this.spent,
      stoppedForks,
    };
  }
}
