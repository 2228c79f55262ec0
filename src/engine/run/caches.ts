import type { ExplicitCacheClient } from '../../model/module.js';
import type { CachePlan } from '../../model/plan.js';
import type { ForkTask, HistoryMode } from '../../session/schema.js';
import type { ParentSession } from '../../shapes/registry.js';
import { prepareExplicitCaches, type ExplicitCaches } from '../explicit-cache.js';
import type { RunCacheStorage } from '../report.js';

export interface RunCacheSettings {
  /** Everything provider-specific about the run's cache, resolved once by the provider's module. */
  plan: CachePlan;
  /** This thread's client for the explicit caches the plan asks for (providers that have them). */
  explicitCaches: ExplicitCacheClient | undefined;
  history: HistoryMode;
  spawnTools: ReadonlySet<string>;
  timeoutMs?: number | undefined;
  concurrency: number;
}

/**
 * A run's cache: its plan, with the explicit caches once they are made (before the first fork
 * goes), what the report says of them, and what storing them cost once they are deleted.
 */
export class RunCaches {
  private current: CachePlan;
  private made: ExplicitCaches | undefined;
  private noted: string | undefined;
  private stored: RunCacheStorage | undefined;

  constructor(private readonly settings: RunCacheSettings) {
    this.current = settings.plan;
  }

  /** The plan forks are started with: the settings', naming the explicit caches once they are made. */
  get plan(): CachePlan {
    return this.current;
  }

  /** At least one explicit cache serves the run. */
  get active(): boolean {
    return this.made?.active === true;
  }

  /** What the report says of the run's cache (a fallback and why), once the run has started. */
  get note(): string | undefined {
    return this.noted;
  }

  /** What storing the explicit caches cost, once they are deleted. */
  get storage(): RunCacheStorage | undefined {
    return this.stored;
  }

  /** An explicit cache holds this seed window's shared part. */
  holds(window: string): boolean {
    return this.made?.caches[window] !== undefined;
  }

  /**
   * Makes the explicit caches the plan asks for, one per seed window of `tasks` (from a stream,
   * the windows of the tasks read so far; a fork of another window runs on implicit caching).
   * `forks`: how many the run has, when known. Never throws: a cache that cannot be made leaves
   * the forks on implicit caching, and the note says why.
   */
  async prepare(session: Readonly<ParentSession>, tasks: readonly ForkTask[], forks: number | undefined): Promise<void> {
    const plan = this.current;
    this.noted = plan.note;
    if (!plan.explicit) return;
    const client = this.settings.explicitCaches;
    if (client === undefined) {
      this.noted = `explicit cache fell back to implicit: provider '${plan.provider}' makes no explicit caches here`;
      return;
    }
    try {
      const { history, spawnTools, timeoutMs, concurrency } = this.settings;
      this.made = await prepareExplicitCaches(session, tasks, {
        client,
        history,
        spawnTools,
        timeoutMs,
        concurrency,
        minCacheTokens: plan.rules.minCacheTokens,
        forks,
      });
      this.noted = this.made.note;
      this.current = { ...plan, request: { mechanism: 'cached-content', caches: { ...this.made.caches } } };
    } catch (err) {
      // Forks still run, on implicit caching; whatever broke the cache will fail them by name.
      this.noted = `explicit cache fell back to implicit: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * Deletes the caches made (the run is over) and records how long they were stored; `usdOf`
   * prices that, when it can. Undefined when none was made: nothing to wait for.
   */
  release(usdOf: (tokenHours: number) => number | undefined): Promise<void> | undefined {
    return this.made?.release().then((storage) => {
      if (storage.caches === 0) return;
      const usd = usdOf(storage.tokenHours);
      this.stored = { ...storage, ...(usd !== undefined ? { usd } : {}) };
    });
  }
}
