import { LruList, type LruLinks } from '../core/lru-list.js';
import type { UnitEnd } from './unit-ends.js';

/**
 * DeepSeek's cache prefix units as stored: each one a whole prefix, hit only whole ("A subsequent
 * request can only hit the cache if it fully matches a cache prefix unit", api-docs.deepseek.com/
 * guides/kv_cache). A unit is usable once built, expires after a TTL refreshed when it serves, and
 * the least recently used go first beyond a bound on their number.
 */

export interface PrefixUnitsConfig {
  ttlMs: number;
  /** Time from creation until a unit can be hit, ms ("Cache construction takes seconds"). */
  buildDelayMs: number;
  maxUnits: number;
}

export interface PrefixUnits {
  /** Tokens of the longest live, built unit among `ends` (0 when none); that unit's TTL and LRU place are refreshed. */
  serve(ends: readonly UnitEnd[]): number;
  /** Creates these units (a live one keeps its build time and gets a fresh TTL). */
  create(ends: readonly UnitEnd[]): void;
  /** A live unit ends there, built or not (does not touch it). */
  holds(end: UnitEnd): boolean;
  entries(): number;
  evictions(): number;
}

interface Unit extends LruLinks<Unit> {
  readonly key: number | string;
  readonly tokens: number;
  expires: number;
  usableAt: number;
}

export function createPrefixUnits(config: PrefixUnitsConfig, now: () => number = Date.now): PrefixUnits {
  const units = new Map<number | string, Unit>();
  const order = new LruList<Unit>();
  let evicted = 0;

  function remove(unit: Unit): void {
    order.remove(unit);
    units.delete(unit.key);
  }

  /** The unit at `key` if it has not expired (an expired one is dropped). */
  function live(key: number | string, at: number): Unit | undefined {
    const unit = units.get(key);
    if (unit !== undefined && unit.expires <= at) {
      remove(unit);
      return undefined;
    }
    return unit;
  }

  return {
    serve(ends) {
      const at = now();
      let best: Unit | undefined;
      for (const end of ends) {
        const unit = live(end.key, at);
        if (unit !== undefined && unit.usableAt <= at && (best === undefined || unit.tokens > best.tokens)) best = unit;
      }
      if (best === undefined) return 0;
      best.expires = at + config.ttlMs;
      order.touch(best);
      return best.tokens;
    },
    create(ends) {
      if (config.maxUnits <= 0) return;
      const at = now();
      for (const end of ends) {
        const unit = live(end.key, at);
        if (unit !== undefined) {
          unit.expires = at + config.ttlMs;
          order.touch(unit);
          continue;
        }
        const created: Unit = {
          key: end.key,
          tokens: end.tokens,
          expires: at + config.ttlMs,
          usableAt: at + config.buildDelayMs,
          older: undefined,
          newer: undefined,
        };
        units.set(end.key, created);
        order.push(created);
      }
      while (units.size > config.maxUnits && order.oldest) {
        remove(order.oldest);
        evicted++;
      }
    },
    holds: (end) => live(end.key, now()) !== undefined,
    entries: () => units.size,
    evictions: () => evicted,
  };
}
