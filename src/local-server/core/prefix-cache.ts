/**
 * A serving engine's prefix cache over chained block keys: cached tokens = the longest run of
 * leading blocks present; LRU eviction by a capacity in tokens; entries expire after a TTL; a block
 * admitted may take a while to become usable (a cache written to disk in the background).
 */

export interface PrefixCacheConfig {
  blockTokens: number;
  minTokens: number;
  capacityTokens: number;
  ttlMs: number;
  /** Time from admission until a new block can be hit, ms (0: at once). */
  buildDelayMs: number;
}

export interface PrefixCache {
  readonly config: PrefixCacheConfig;
  /** Tokens served from cache for these keys (0 when the run is below the minimum). Touches hits. */
  lookup(keys: readonly number[], promptTokens: number): number;
  /** Admits every full block of a prompt whose prefill completed. */
  admit(keys: readonly number[], promptTokens: number): void;
  entries(): number;
  evictions(): number;
  clear(): void;
}

export function createPrefixCache(config: PrefixCacheConfig, now: () => number = Date.now): PrefixCache {
  /** key → expiry time; Map order is LRU order (oldest first). */
  const blocks = new Map<number, number>();
  /** key → time it becomes usable, for blocks still being built (only when buildDelayMs > 0). */
  const building = new Map<number, number>();
  let evicted = 0;
  const maxBlocks = Math.max(0, Math.floor(config.capacityTokens / config.blockTokens));

  function leadingRun(keys: readonly number[], at: number): number {
    let run = 0;
    for (const key of keys) {
      const expires = blocks.get(key);
      if (expires === undefined) break;
      if (expires <= at) {
        blocks.delete(key);
        building.delete(key);
        break;
      }
      const usableAt = building.get(key);
      if (usableAt !== undefined) {
        if (usableAt > at) break;
        building.delete(key);
      }
      run++;
    }
    return run;
  }

  /** Re-inserts keys[0..n) newest-last in reverse order, so a chain's tail is evicted before its head. */
  function touch(keys: readonly number[], n: number, expires: number): void {
    for (let i = n - 1; i >= 0; i--) {
      const key = keys[i] as number;
      blocks.delete(key);
      blocks.set(key, expires);
    }
    while (blocks.size > maxBlocks) {
      const oldest = blocks.keys().next();
      if (oldest.done) break;
      blocks.delete(oldest.value);
      building.delete(oldest.value);
      evicted++;
    }
  }

  return {
    config,
    lookup(keys, promptTokens) {
      if (promptTokens < config.minTokens) return 0;
      const at = now();
      const run = leadingRun(keys, at);
      const tokens = run * config.blockTokens;
      if (run > 0) touch(keys, run, at + config.ttlMs);
      return tokens >= config.minTokens ? tokens : 0;
    },
    admit(keys, promptTokens) {
      if (promptTokens < config.minTokens || maxBlocks === 0) return;
      const at = now();
      if (config.buildDelayMs > 0) {
        for (const key of keys) {
          const expires = blocks.get(key);
          if (expires === undefined || expires <= at) building.set(key, at + config.buildDelayMs);
        }
      }
      touch(keys, keys.length, at + config.ttlMs);
    },
    entries: () => blocks.size,
    evictions: () => evicted,
    clear: () => {
      blocks.clear();
      building.clear();
    },
  };
}
