import { LruList, type LruLinks } from './lru-list.js';

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

interface Block extends LruLinks<Block> {
  readonly key: number;
  expires: number;
  /** Time it becomes usable, while it is still being built (only when buildDelayMs > 0). */
  usableAt: number | undefined;
}

export function createPrefixCache(config: PrefixCacheConfig, now: () => number = Date.now): PrefixCache {
  /** key → entry; the entries in LRU order (core/lru-list.ts: a request touches every block of its prompt). */
  const blocks = new Map<number, Block>();
  const order = new LruList<Block>();
  let evicted = 0;
  const maxBlocks = Math.max(0, Math.floor(config.capacityTokens / config.blockTokens));

  function remove(block: Block): void {
    order.remove(block);
    blocks.delete(block.key);
  }

  function insert(key: number, expires: number): Block {
    const block: Block = { key, expires, usableAt: undefined, older: undefined, newer: undefined };
    blocks.set(key, block);
    order.push(block);
    return block;
  }

  function leadingRun(keys: readonly number[], at: number): number {
    let run = 0;
    for (const key of keys) {
      const block = blocks.get(key);
      if (block === undefined) break;
      if (block.expires <= at) {
        remove(block);
        break;
      }
      if (block.usableAt !== undefined) {
        if (block.usableAt > at) break;
        block.usableAt = undefined;
      }
      run++;
    }
    return run;
  }

  /** Makes keys[0..n) the most recent in reverse order, so a chain's tail is evicted before its head. */
  function touch(keys: readonly number[], n: number, expires: number): void {
    for (let i = n - 1; i >= 0; i--) {
      const key = keys[i] as number;
      const block = blocks.get(key);
      if (block === undefined) {
        insert(key, expires);
        continue;
      }
      block.expires = expires;
      order.touch(block);
    }
    while (blocks.size > maxBlocks && order.oldest) {
      remove(order.oldest);
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
        // New or expired blocks are built anew; the touch below puts every key in its place.
        for (const key of keys) {
          const block = blocks.get(key) ?? insert(key, at);
          if (block.expires <= at) block.usableAt = at + config.buildDelayMs;
        }
      }
      touch(keys, keys.length, at + config.ttlMs);
    },
    entries: () => blocks.size,
    evictions: () => evicted,
    clear: () => {
      blocks.clear();
      order.clear();
    },
  };
}
