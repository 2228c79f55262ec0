// Internal: the simulator's implicit prefix cache (src/local-server/core/prefix-cache.ts) keeps its
// entries in a linked list instead of a Map's insertion order; it must answer, admit, expire and
// evict exactly as the Map version did (kept below as the reference), step for step.
import { describe, expect, it } from 'vitest';
import { createPrefixCache, type PrefixCache, type PrefixCacheConfig } from '../src/local-server/core/prefix-cache.js';

function referenceCache(config: PrefixCacheConfig, now: () => number): PrefixCache {
  const blocks = new Map<number, number>();
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

/** xorshift32: the same sequence every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('local server: the prefix cache’s linked-list LRU behaves as the Map-ordered one', () => {
  const configs: PrefixCacheConfig[] = [
    { blockTokens: 4, minTokens: 8, capacityTokens: 120, ttlMs: 50, buildDelayMs: 0 },
    { blockTokens: 4, minTokens: 8, capacityTokens: 80, ttlMs: 40, buildDelayMs: 7 },
    { blockTokens: 8, minTokens: 0, capacityTokens: 0, ttlMs: 100, buildDelayMs: 3 },
    { blockTokens: 2, minTokens: 4, capacityTokens: 1_000, ttlMs: 1_000, buildDelayMs: 0 },
  ];
  for (const [c, config] of configs.entries()) {
    it(`config ${c}: every lookup, entry count and eviction count agree over random prompts`, () => {
      let clock = 0;
      const now = () => clock;
      const subject = createPrefixCache(config, now);
      const reference = referenceCache(config, now);
      const next = random(1234 + c);
      // Prompts share heads (chains of a few families), so runs, refreshes and evictions all happen.
      const families = Array.from({ length: 5 }, (_, f) => Array.from({ length: 40 }, (_, i) => f * 1_000 + i + 0.5 * (f % 2)));
      for (let step = 0; step < 3_000; step++) {
        clock += Math.floor(next() * 6);
        const family = families[Math.floor(next() * families.length)] as number[];
        const keys = family.slice(0, 1 + Math.floor(next() * family.length));
        if (next() < 0.1) keys.push(1e9 + step);
        const tokens = keys.length * config.blockTokens + Math.floor(next() * config.blockTokens);
        if (next() < 0.5) expect(subject.lookup(keys, tokens)).toBe(reference.lookup(keys, tokens));
        else {
          subject.admit(keys, tokens);
          reference.admit(keys, tokens);
        }
        if (next() < 0.002) {
          subject.clear();
          reference.clear();
        }
        expect(subject.entries()).toBe(reference.entries());
        expect(subject.evictions()).toBe(reference.evictions());
      }
    });
  }
});
