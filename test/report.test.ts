import { describe, expect, it } from 'vitest';
import type { ForkResult } from '../src/engine/protocol.js';
import { theoreticalCached } from '../src/engine/cache-accounting.js';

function fork(id: string, calls: ForkResult['calls']): ForkResult {
  return {
    id,
    status: 'completed',
    text: '',
    turns: calls.length,
    toolCalls: 0,
    usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
    durationMs: 0,
    retries: 0,
    calls,
    worker: { threadId: 1, decodedPrefix: false },
  };
}

const inputs = { coldForkId: 'cold', windowLeaders: new Set(['leader']), minCacheTokens: 1024 };

describe('the theoretical cache maximum', () => {
  it('is never below what a first call was served: a parent-warm first-wave fork that found a sibling\'s prefill cached', () => {
    const first = { promptTokens: 5000, cachedTokens: 4800, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800, parentTokens: 4000 };
    const parentWave = { ...inputs, coldForkId: undefined, parentWave: new Set(['early']) };
    expect(theoreticalCached(fork('early', [first]), parentWave)).toBe(4800);
    // Served less than the estimate: the estimate stands.
    expect(theoreticalCached(fork('early', [{ ...first, cachedTokens: 1000 }]), parentWave)).toBe(4000);
  });

  it('rounds down to the provider\'s cache step and counts nothing under its minimum', () => {
    const first = { promptTokens: 3000, cachedTokens: 0, outputTokens: 10, sharedTokens: 2900, baseTokens: 2900 };
    expect(theoreticalCached(fork('sibling', [first]), { ...inputs, cacheBlockTokens: 128 })).toBe(2816);
    expect(theoreticalCached(fork('sibling', [first]), { ...inputs, minCacheTokens: 2901 })).toBe(0);
  });

  it('is nothing for the cold fork’s first call, then the previous call’s prompt and output', () => {
    const calls = [
      { promptTokens: 5000, cachedTokens: 0, outputTokens: 40, sharedTokens: 4800, baseTokens: 4800 },
      { promptTokens: 5200, cachedTokens: 4992, outputTokens: 10 },
    ];
    expect(theoreticalCached(fork('cold', calls), inputs)).toBe(5040);
  });

  it('is the shared prefix for a sibling, and only the base for the first fork of another window', () => {
    const first = { promptTokens: 5000, cachedTokens: 0, outputTokens: 40, sharedTokens: 4800, baseTokens: 2000 };
    expect(theoreticalCached(fork('sibling', [first]), inputs)).toBe(4800);
    expect(theoreticalCached(fork('leader', [first]), inputs)).toBe(2000);
  });

  it('never exceeds the call’s prompt, and is nothing below the provider’s minimum', () => {
    const calls = [
      { promptTokens: 900, cachedTokens: 0, outputTokens: 5, sharedTokens: 800, baseTokens: 800 },
      { promptTokens: 1500, cachedTokens: 0, outputTokens: 5 },
      { promptTokens: 1400, cachedTokens: 0, outputTokens: 5 },
    ];
    // 800 < 1024: nothing; 905 < 1024: nothing; min(1505, 1400) = 1400.
    expect(theoreticalCached(fork('sibling', calls), inputs)).toBe(1400);
  });

  it('on an explicit cache is the cached content on every call, never more than the prompt', () => {
    const calls = [
      { promptTokens: 5000, cachedTokens: 4800, outputTokens: 40, explicitTokens: 4800 },
      { promptTokens: 5300, cachedTokens: 4800, outputTokens: 10, explicitTokens: 4800 },
      { promptTokens: 4000, cachedTokens: 4000, outputTokens: 10, explicitTokens: 4800 },
    ];
    expect(theoreticalCached(fork('cold', calls), inputs)).toBe(4800 + 4800 + 4000);
  });
});
