// Internal: cacheMissOf (src/engine/cache-miss.ts), the classification behind RunReport.cacheMisses and each fork's cacheMiss; the CLI's figures are in cli-cache-miss.test.ts.
import { describe, expect, it } from 'vitest';
import { cacheMissOf, type MissFacts } from '../src/engine/cache-miss.js';

const rules: MissFacts['rules'] = { minCacheTokens: 1024, cacheBlockTokens: 1, entryTtlMs: 300_000 };

/** A sibling's first call that shares 4,000 tokens and was served `cached`. */
function facts(cached: number | null, over: Partial<MissFacts> = {}): MissFacts {
  return {
    first: { promptTokens: 4200, cachedTokens: cached, outputTokens: 20, sharedTokens: 4000, baseTokens: 3000, parentTokens: 2900 },
    role: 'sibling',
    maximum: 4000,
    early: false,
    trimmedWindow: false,
    unmarked: false,
    idleMs: 1000,
    rules,
    ...over,
  };
}

describe('why a fork’s first call missed', () => {
  it('is no miss when it was served all it shares, or when its cached tokens are unknown', () => {
    expect(cacheMissOf(facts(4000))).toBeUndefined();
    expect(cacheMissOf(facts(4100))).toBeUndefined();
    expect(cacheMissOf(facts(null))).toBeUndefined();
  });

  it('leaves out a shortfall within the estimate’s error (5 % of what it shares), and counts one past it', () => {
    expect(cacheMissOf(facts(3800))).toBeUndefined();
    expect(cacheMissOf(facts(3799))).toMatchObject({ reason: 'unexplained', tokens: 201 });
  });

  it('counts what it shares in the provider’s steps, and the tokens not served', () => {
    const miss = cacheMissOf(facts(3000, { rules: { ...rules, cacheBlockTokens: 128 } }));
    // 4000 rounds down to 3968 in steps of 128.
    expect(miss?.tokens).toBe(968);
    expect(cacheMissOf(facts(3968, { rules: { ...rules, cacheBlockTokens: 128 } }))).toBeUndefined();
    expect(cacheMissOf(facts(0, { rules: { ...rules, cacheBlockTokens: 128 } }))?.tokens).toBe(3968);
  });

  it('is a cold start for the run’s first request and for the forks of the opening wave', () => {
    expect(cacheMissOf(facts(0, { role: 'cold', maximum: 0 }))?.reason).toBe('cold-start');
    // An ordinary member of the wave: its maximum is what it shares, but it went before any response had begun.
    const wave = cacheMissOf(facts(0, { early: true }));
    expect(wave).toMatchObject({ reason: 'cold-start', tokens: 4000 });
  });

  it('is a cold start for the second fork on prefix units (DeepSeek), which only the first fork’s whole intervals could serve', () => {
    const second = cacheMissOf(facts(0, { role: 'second', maximum: 0 }));
    expect(second).toMatchObject({ reason: 'cold-start', tokens: 4000 });
    expect(second?.detail).toContain('prefix units');
  });

  it('is below the minimum when what it shares is shorter than the provider caches', () => {
    const miss = cacheMissOf(facts(0, { maximum: 0, rules: { ...rules, minCacheTokens: 4096 } }));
    expect(miss?.reason).toBe('below-minimum');
    expect(miss?.detail).toContain('4,096');
  });

  it('is a trimmed window for the first fork of a window other than the whole history, and a cold start for the whole history’s', () => {
    const leader = facts(3000, { role: 'leader', maximum: 3000, trimmedWindow: true });
    expect(cacheMissOf(leader)).toMatchObject({ reason: 'trimmed-window', tokens: 1000 });
    expect(cacheMissOf({ ...leader, trimmedWindow: false })?.reason).toBe('cold-start');
  });

  it('is a missing breakpoint when the provider caches only at marks and the run placed none, whatever the maximum', () => {
    expect(cacheMissOf(facts(0, { unmarked: true }))?.reason).toBe('no-breakpoint');
    expect(cacheMissOf(facts(0, { unmarked: true, role: 'cold', maximum: 0 }))?.reason).toBe('no-breakpoint');
  });

  it('is the TTL when its prefix went unused longer than the provider keeps an entry, and only where the TTL is documented', () => {
    const idle = facts(0, { idleMs: 301_000 });
    expect(cacheMissOf(idle)?.reason).toBe('ttl');
    expect(cacheMissOf(idle)?.detail).toContain('5.0 min');
    expect(cacheMissOf({ ...idle, idleMs: 299_000 })?.reason).toBe('unexplained');
    expect(cacheMissOf({ ...idle, rules: { minCacheTokens: 1024, cacheBlockTokens: 1 } })?.reason).toBe('unexplained');
  });

  it('is the provider’s own reason where it gives one, else unexplained', () => {
    const said = facts(1000);
    said.first = { ...said.first, cacheMiss: { reason: 'messages_changed', missedTokens: 3000 } };
    expect(cacheMissOf(said)).toMatchObject({ reason: 'provider', tokens: 3000 });
    expect(cacheMissOf(said)?.detail).toBe('the provider says messages_changed (3,000 tokens)');
    expect(cacheMissOf(facts(1000))).toMatchObject({ reason: 'unexplained', tokens: 3000 });
  });

  it('on an explicit cache, is what the cache holds and was not served', () => {
    const explicit = facts(0, { first: { promptTokens: 5000, cachedTokens: 0, outputTokens: 1, explicitTokens: 4800 }, maximum: 4800 });
    expect(cacheMissOf(explicit)).toMatchObject({ reason: 'unexplained', tokens: 4800 });
  });
});
