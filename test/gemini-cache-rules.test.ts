// Internal: geminiMinCacheTokens and geminiPlan (src/model/providers/gemini.ts) have no entry point: the plan they make is what the report's maximum and the explicit cache's size check read.
import { describe, expect, it } from 'vitest';
import type { PlanInput } from '../src/model/plan.js';
import { GEMINI_MIN_CACHE_TOKENS, geminiMinCacheTokens, geminiPlan } from '../src/model/providers/gemini.js';

/*
 * Gemini's implicit cache minimum is per model (https://ai.google.dev/gemini-api/docs/caching, the
 * copy updated 2026-10-13): 2,048 for 2.5 Flash and Pro, 4,096 for 3.x and 4. Forks whose shared
 * prefix is under it cannot hit, so the report's maximum must say 0 there, not count a miss.
 */

describe("Gemini's minimum cacheable prompt, per model", () => {
  it('follows the documentation table by model-id prefix; unknown models get the default', () => {
    const cases: [string, number][] = [
      ['gemini-2.5-flash', 2048],
      ['gemini-2.5-flash-preview-09-2025', 2048],
      ['models/gemini-2.5-pro', 2048],
      ['gemini-3.1-pro-preview', 4096],
      ['gemini-3.8-flash', 4096],
      ['gemini-4-argon', 4096],
      ['gemini-2.0-flash', GEMINI_MIN_CACHE_TOKENS],
      ['gemma-3-27b-it', GEMINI_MIN_CACHE_TOKENS],
    ];
    for (const [model, tokens] of cases) expect([model, geminiMinCacheTokens(model)]).toEqual([model, tokens]);
  });

  const input = (model: string, overrides: PlanInput['overrides'] = {}): PlanInput => ({
    session: { model, history: [] } as unknown as PlanInput['session'],
    shape: 'gemini',
    cache: 'implicit',
    cacheTtl: '5m',
    cacheKey: 'k',
    role: 'forks',
    warmup: 'auto',
    parentWarm: false,
    overrides,
  });

  it("the gemini provider's plan takes the model's minimum; the simulator keeps its own; minCacheTokens overrides both", () => {
    expect(geminiPlan('gemini', input('gemini-3.8-flash')).rules.minCacheTokens).toBe(4096);
    expect(geminiPlan('gemini', input('gemini-2.5-flash')).rules.minCacheTokens).toBe(2048);
    // The simulator's Gemini routes apply one minimum to every model (src/local-server/gemini/cache-rules.ts).
    expect(geminiPlan('local', input('gemini-3.8-flash')).rules.minCacheTokens).toBe(GEMINI_MIN_CACHE_TOKENS);
    expect(geminiPlan('gemini', input('gemini-3.8-flash', { minCacheTokens: 900 })).rules.minCacheTokens).toBe(900);
  });
});
