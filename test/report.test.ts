// Internal: callMaxima, forkFigures and CacheRules (src/engine/cache-figures.ts) and createOpeningWave (src/engine/opening-wave.ts), the run report's accounting: RunReport is their public face; ForkResult comes through forkpool.
import { describe, expect, it } from 'vitest';
import { callMaxima, forkFigures, type CacheRules } from '../src/engine/cache-figures.js';
import { createOpeningWave } from '../src/engine/opening-wave.js';
import type { ForkResult } from '../src/index.js';

function fork(id: string, calls: ForkResult['calls']): ForkResult {
  const cached = calls.some((c) => c.cachedTokens === null) ? null : calls.reduce((sum, c) => sum + (c.cachedTokens ?? 0), 0);
  return {
    id,
    status: 'completed',
    text: '',
    turns: calls.length,
    toolCalls: 0,
    usage: { promptTokens: calls.reduce((sum, c) => sum + c.promptTokens, 0), cachedTokens: cached, outputTokens: 0 },
    durationMs: 0,
    retries: 0,
    calls,
    worker: { threadId: 1, decodedPrefix: false },
  };
}

const rules: CacheRules = { minCacheTokens: 1024, cacheBlockTokens: 1 };

describe('the theoretical cache maximum', () => {
  it('is nothing for the cold first call, what the parent sent for a parent-warm one, then the previous call’s prompt and output', () => {
    const calls = [
      { promptTokens: 5000, cachedTokens: 0, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800, parentTokens: 4000 },
      { promptTokens: 5200, cachedTokens: 4992, outputTokens: 10 },
    ];
    expect(callMaxima(calls, 'cold', rules)).toEqual([0, 5040]);
    expect(callMaxima(calls, 'parent', rules)).toEqual([4000, 5040]);
  });

  it('is the shared prefix for a sibling, and only the base for the first fork of another window', () => {
    const first = [{ promptTokens: 5000, cachedTokens: 0, outputTokens: 40, sharedTokens: 4800, baseTokens: 2000 }];
    expect(callMaxima(first, 'sibling', rules)).toEqual([4800]);
    expect(callMaxima(first, 'leader', rules)).toEqual([2000]);
  });

  it("rounds down to the provider's cache step and counts nothing under its minimum", () => {
    const first = [{ promptTokens: 3000, cachedTokens: 0, outputTokens: 10, sharedTokens: 2900, baseTokens: 2900 }];
    expect(callMaxima(first, 'sibling', { ...rules, cacheBlockTokens: 128 })).toEqual([2816]);
    expect(callMaxima(first, 'sibling', { ...rules, minCacheTokens: 2901 })).toEqual([0]);
  });

  it('on prefix units (DeepSeek), is whole intervals for the second fork, the shared prefix in steps for later siblings, and exact for later calls', () => {
    const units: CacheRules = { minCacheTokens: 64, cacheBlockTokens: 64, prefixUnits: { intervalTokens: 4096 } };
    const calls = [
      { promptTokens: 9000, cachedTokens: 0, outputTokens: 37, sharedTokens: 8900, baseTokens: 8900, parentTokens: 8801 },
      { promptTokens: 9300, cachedTokens: 9037, outputTokens: 5 },
    ];
    // 8900 in whole 4,096-token intervals; a unit ends where the first call's reply ended (9037, not rounded to 64).
    expect(callMaxima(calls, 'second', units)).toEqual([8192, 9037]);
    expect(callMaxima(calls, 'sibling', units)).toEqual([8896, 9037]);
    // The parent's request made a unit where it ended.
    expect(callMaxima(calls, 'parent', units)).toEqual([8801, 9037]);
    // Without units the second fork is a sibling like any other.
    expect(callMaxima(calls, 'second', rules)).toEqual([8900, 9037]);
  });

  it('never exceeds the call’s prompt, and is nothing below the provider’s minimum', () => {
    const calls = [
      { promptTokens: 900, cachedTokens: 0, outputTokens: 5, sharedTokens: 800, baseTokens: 800 },
      { promptTokens: 1500, cachedTokens: 0, outputTokens: 5 },
      { promptTokens: 1400, cachedTokens: 0, outputTokens: 5 },
    ];
    // 800 < 1024: nothing; 905 < 1024: nothing; min(1505, 1400) = 1400.
    expect(callMaxima(calls, 'sibling', rules)).toEqual([0, 0, 1400]);
  });

  it('on an explicit cache is the cached content on every call, never more than the prompt', () => {
    const calls = [
      { promptTokens: 5000, cachedTokens: 4800, outputTokens: 40, explicitTokens: 4800 },
      { promptTokens: 5300, cachedTokens: 4800, outputTokens: 10, explicitTokens: 4800 },
      { promptTokens: 4000, cachedTokens: 4000, outputTokens: 10, explicitTokens: 4800 },
    ];
    expect(callMaxima(calls, 'cold', rules)).toEqual([4800, 4800, 4000]);
  });

  it('does not grow with what was served: a first call served beyond it found that much in the cache before the run', () => {
    const served = fork('early', [
      { promptTokens: 5000, cachedTokens: 4800, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800, parentTokens: 4000 },
      { promptTokens: 5200, cachedTokens: 5100, outputTokens: 10 },
    ]);
    const figures = forkFigures(served, 'parent', rules, undefined);
    expect(figures.theoreticalCachedTokens).toBe(4000 + 5040);
    expect(figures.preexistingCachedTokens).toBe(800 + 60);
    expect(figures.efficiency).toBe(1);
  });

  it('counts nothing as held before when the run was served less than its maximum; unknown stays unknown', () => {
    const short = fork('f', [{ promptTokens: 5000, cachedTokens: 1000, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800 }]);
    expect(forkFigures(short, 'sibling', rules, undefined)).toMatchObject({
      theoreticalCachedTokens: 4800,
      preexistingCachedTokens: 0,
      efficiency: 1000 / 4800,
    });
    const unknown = fork('u', [{ promptTokens: 5000, cachedTokens: null, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800 }]);
    expect(forkFigures(unknown, 'sibling', rules, undefined)).toMatchObject({
      cachedTokens: null,
      preexistingCachedTokens: null,
      efficiency: null,
    });
  });
});

describe('the opening wave', () => {
  const figures = (id: string, theoretical: number) => ({
    id,
    status: 'completed' as const,
    promptTokens: 5000,
    cachedTokens: 4800,
    theoreticalCachedTokens: theoretical,
    preexistingCachedTokens: 0,
    efficiency: 1,
  });

  it('moves the opening maximum to the fork of the wave served least, when that is not the first dispatched', () => {
    const wave = createOpeningWave();
    wave.join('a');
    wave.join('b');
    expect([wave.role('a'), wave.role('b'), wave.role('c')]).toEqual(['opening', 'ordinary', undefined]);
    wave.settled('a', { firstServed: 4800, asOpening: figures('a', 0), asOrdinary: figures('a', 4800) });
    wave.settled('b', { firstServed: 0, asOpening: figures('b', 0), asOrdinary: figures('b', 4800) });
    expect(wave.corrections()).toEqual([
      { before: figures('b', 4800), after: figures('b', 0) },
      { before: figures('a', 0), after: figures('a', 4800) },
    ]);
  });

  it('keeps it with the first dispatched among equals, and moves nothing when cached tokens are unknown', () => {
    const wave = createOpeningWave();
    wave.join('a');
    wave.join('b');
    wave.settled('a', { firstServed: 4800, asOpening: figures('a', 0), asOrdinary: figures('a', 4800) });
    wave.settled('b', { firstServed: 4800, asOpening: figures('b', 0), asOrdinary: figures('b', 4800) });
    expect(wave.corrections()).toEqual([]);
    const unknown = createOpeningWave();
    unknown.join('a');
    unknown.join('b');
    unknown.settled('a', { firstServed: null, asOpening: figures('a', 0), asOrdinary: figures('a', 4800) });
    unknown.settled('b', { firstServed: null, asOpening: figures('b', 0), asOrdinary: figures('b', 4800) });
    expect(unknown.corrections()).toEqual([]);
  });
});
