import { seedRequest } from '../shapes/seed-request.js';
import { seedTask } from '../fork/index.js';
import type { ExplicitCacheClient } from '../model/module.js';
import type { CachedContentRef } from '../model/plan.js';
import { estimateTokens } from '../prefix/index.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { ParentSession } from '../shapes/registry.js';
import { seedWindow } from '../fork/seed-window.js';

export interface ExplicitCaches {
  /** At least one cache exists; forks of other groups run on implicit caching. */
  active: boolean;
  note: string | undefined;
  /** The caches made, by seed window: what the plan's requests name. */
  caches: Readonly<Record<string, CachedContentRef>>;
  /** Deletes every cache made for the run (also after failure and cancel); says how long they were stored. */
  release(): Promise<CacheStorage>;
}

/** What a run's explicit caches were stored for: Gemini bills each one's tokens for every hour it is kept. */
export interface CacheStorage {
  caches: number;
  /** Tokens the caches held. */
  tokens: number;
  /** Each cache's tokens × the hours from its creation to its deletion (never more than its TTL), summed. */
  tokenHours: number;
  /** The TTL each was made with: what storing them would have cost had they not been deleted. */
  ttlSeconds: number;
}

const DEFAULT_FORK_BUDGET_MS = 30 * 60_000;
const MIN_TTL_S = 300;
const MAX_TTL_S = 24 * 3600;

/**
 * One explicit cache per distinct seed window (history × forkTurns), holding what every fork of
 * that window sends alike: its instructions, tools and shared seed contents. Forks then send only
 * their own suffix.
 */
export async function prepareExplicitCaches(
  session: Readonly<ParentSession>,
  tasks: readonly ForkTask[],
  settings: {
    client: ExplicitCacheClient;
    history: HistoryMode;
    spawnTools: ReadonlySet<string>;
    minCacheTokens: number;
    timeoutMs: number | undefined;
    concurrency: number;
    /** How many forks the run has; undefined for a stream, whose length is unknown. */
    forks: number | undefined;
  },
): Promise<ExplicitCaches> {
  const keyOf = (task: ForkTask): string => seedWindow(task, settings.history);
  const groups = new Map<string, ForkTask>();
  for (const task of tasks) if (!groups.has(keyOf(task))) groups.set(keyOf(task), task);

  // A stream of unknown length gets the longest TTL; every cache is deleted when the run ends anyway.
  const waves = settings.forks === undefined ? Number.POSITIVE_INFINITY : Math.ceil(settings.forks / Math.max(1, settings.concurrency));
  const ttlSeconds = Math.min(MAX_TTL_S, Math.max(MIN_TTL_S, ((settings.timeoutMs ?? DEFAULT_FORK_BUDGET_MS) * waves) / 1000));
  const made: Record<string, CachedContentRef> = {};
  const madeAt = new Map<string, number>();
  const problems: string[] = [];

  await Promise.all(
    [...groups].map(async ([key, task]) => {
      const seed = seedTask(session, task, task.directive, { history: settings.history, spawnTools: [...settings.spawnTools] });
      const held = settings.client.held(seedRequest(seed, seed.contents.slice(0, seed.sharedContents)));
      const estimate = estimateTokens(JSON.stringify(held));
      if (estimate < settings.minCacheTokens) {
        problems.push(`the shared prefix (~${estimate} tokens) is under the minimum cacheable size of ${settings.minCacheTokens}`);
        return;
      }
      const outcome = await settings.client.createCache(held, ttlSeconds, AbortSignal.timeout(60_000));
      if (!outcome.ok) {
        problems.push(`creating the cache failed: ${outcome.error.message}`);
        return;
      }
      made[key] = { name: outcome.cache.name, tokens: outcome.cache.tokens, sharedContents: seed.sharedContents };
      madeAt.set(key, Date.now());
    }),
  );

  const count = Object.keys(made).length;
  const why = [...new Set(problems)].join('; ');
  const note =
    problems.length === 0
      ? undefined
      : count === 0
        ? `explicit cache fell back to implicit: ${why}`
        : `explicit cache for ${count} of ${groups.size} seed windows; the others run on implicit caching: ${why}`;
  return {
    active: count > 0,
    note,
    caches: made,
    async release() {
      const stored = Object.entries(made);
      for (const key of Object.keys(made)) delete made[key];
      await Promise.all(stored.map(([, cache]) => settings.client.deleteCache(cache.name)));
      const now = Date.now();
      let tokenHours = 0;
      for (const [key, cache] of stored)
        tokenHours += (cache.tokens * Math.min(ttlSeconds, (now - (madeAt.get(key) ?? now)) / 1000)) / 3600;
      madeAt.clear();
      return { caches: stored.length, tokens: stored.reduce((sum, [, cache]) => sum + cache.tokens, 0), tokenHours, ttlSeconds };
    },
  };
}
