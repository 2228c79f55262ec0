import { seedTask } from '../fork/index.js';
import { prefixFields } from '../model/request.js';
import { estimateTokens } from '../prefix/index.js';
import type { ModelProvider } from '../model/types.js';
import type { ForkTask, HistoryMode, ParentSession } from '../session/schema.js';
import { seedWindow, type ExplicitCacheRef } from './protocol.js';

export interface ExplicitCaches {
  /** At least one cache exists; forks of other groups run on implicit caching. */
  active: boolean;
  note: string | undefined;
  forTask(task: ForkTask): ExplicitCacheRef | undefined;
  /** Deletes every cache made for the run (also after failure and cancel). */
  release(): Promise<void>;
}

const DEFAULT_FORK_BUDGET_MS = 30 * 60_000;
const MIN_TTL_S = 300;
const MAX_TTL_S = 24 * 3600;

/**
 * One cachedContent per distinct seed window (history × forkTurns): system instruction, tools and
 * the seed contents every fork of that window shares. Forks then send only their own suffix.
 */
export async function prepareExplicitCaches(
  session: Readonly<ParentSession>,
  tasks: readonly ForkTask[],
  settings: {
    mainProvider: ModelProvider;
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
  const made = new Map<string, ExplicitCacheRef>();
  const problems: string[] = [];

  await Promise.all(
    [...groups].map(async ([key, task]) => {
      const seed = seedTask(session, task, task.directive, { history: settings.history, spawnTools: [...settings.spawnTools] });
      if (seed.format !== 'gemini') {
        problems.push('explicit caches (cachedContents) are Gemini\'s; this session is in Chat Completions\' shape');
        return;
      }
      // A cachedContent holds no sampling settings: each request that names it sends its own.
      const { generationConfig: _sentWithEachCall, ...fields } = prefixFields(seed);
      const shared = { format: 'gemini' as const, ...fields, contents: seed.contents.slice(0, seed.sharedContents) };
      const estimate = estimateTokens(JSON.stringify(shared));
      if (estimate < settings.minCacheTokens) {
        problems.push(`the shared prefix (~${estimate} tokens) is under the minimum cacheable size of ${settings.minCacheTokens}`);
        return;
      }
      const outcome = await settings.mainProvider.createCache(shared, ttlSeconds, AbortSignal.timeout(60_000));
      if (!outcome.ok) {
        problems.push(`creating the cache failed: ${outcome.error.message}`);
        return;
      }
      made.set(key, { name: outcome.cache.name, tokens: outcome.cache.tokens, sharedContents: seed.sharedContents });
    }),
  );

  const why = [...new Set(problems)].join('; ');
  const note =
    problems.length === 0
      ? undefined
      : made.size === 0
        ? `explicit cache fell back to implicit: ${why}`
        : `explicit cache for ${made.size} of ${groups.size} seed windows; the others run on implicit caching: ${why}`;
  return {
    active: made.size > 0,
    note,
    forTask: (task) => made.get(keyOf(task)),
    async release() {
      await Promise.all([...made.values()].map((c) => settings.mainProvider.deleteCache(c.name)));
      made.clear();
    },
  };
}
