import { createGenaiProvider } from '../genai.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';

/**
 * Gemini's smallest cacheable prompt as forkpool assumes it: https://ai.google.dev/gemini-api/docs/caching
 * gives 1,024 tokens for the Flash models and more for some Pro ones (minCacheTokens sets another).
 */
export const GEMINI_MIN_CACHE_TOKENS = 1024;

/**
 * A Gemini-shaped session's plan, on Google's API or the simulator: implicit caching asks nothing
 * of a request; explicit caching makes one cachedContent per seed window before the first fork and
 * names it in that window's requests (the parent's own requests never name one).
 */
export function geminiPlan(provider: string, input: PlanInput): CachePlan {
  const explicit = input.cache === 'explicit' && input.role === 'forks';
  return {
    provider,
    shape: 'gemini',
    request: explicit ? { mechanism: 'cached-content', caches: {} } : { mechanism: 'none' },
    explicit,
    readable: { after: 'response-start', buildMs: input.overrides.cacheBuildMs ?? 0, required: false, fromParent: true },
    rules: {
      minCacheTokens: input.overrides.minCacheTokens ?? GEMINI_MIN_CACHE_TOKENS,
      cacheBlockTokens: input.overrides.cacheBlockTokens ?? 1,
      toMarkerOnly: false,
    },
    effective: input.cache === 'off' ? 'off' : 'implicit',
  };
}

/** Google's Gemini API through @google/genai. The key rides in the descriptor (GEMINI_API_KEY or GOOGLE_API_KEY when not given). */
export const geminiModule: ProviderModule = {
  kind: 'gemini',
  shapes: ['gemini'],
  optionKeys: ['apiKey', 'baseUrl'],
  usage: "{ kind: 'gemini' } (apiKey, GEMINI_API_KEY or GOOGLE_API_KEY; baseUrl)",
  async connect(option, common) {
    const apiKey = (option.apiKey as string | undefined) ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
    if (!apiKey) throw new Error('ForkEngine: the gemini provider needs an API key (apiKey, GEMINI_API_KEY or GOOGLE_API_KEY)');
    const baseUrl = (option.baseUrl as string | undefined) ?? process.env.GOOGLE_GEMINI_BASE_URL;
    return { config: { kind: 'gemini', apiKey, ...(baseUrl ? { baseUrl } : {}), ...common } };
  },
  plan: (input) => geminiPlan('gemini', input),
  client: (config) => createGenaiProvider(config),
  explicitCaches: (config) => createGenaiProvider(config),
};
