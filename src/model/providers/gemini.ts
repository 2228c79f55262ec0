import { createGenaiProvider, loadGenai } from '../genai.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';
import { byModelPrefix } from '../by-model.js';

/**
 * Gemini's smallest cacheable prompt for a model the table below does not know, and the simulator's
 * (`local`: its Gemini routes apply 1,024 to every model, src/local-server/gemini/cache-rules.ts).
 * An assumption: the Flash figure of the caching page's copies up to 2026-05.
 */
export const GEMINI_MIN_CACHE_TOKENS = 1024;

/**
 * https://ai.google.dev/gemini-api/docs/caching, "Min token limit" per model, in the copy last
 * updated 2026-10-13 (read 2026-12-02): Gemini 4 Argon 4,096; Gemini 3.8 Flash 4,096; Gemini 3.6
 * Flash 4,096; Gemini 3.1 Pro Preview 4,096; Gemini 2.5 Flash 2,048; Gemini 2.5 Pro 2,048 (an
 * earlier 2026 copy also lists 3.7 and 3.5 Flash at 4,096). Copies up to 2026-05 gave 2.5 Flash
 * 1,024 and 2.5 Pro 4,096: the table has changed, so minCacheTokens overrides it. Keys are model-id
 * prefixes; the longest that a model id starts with wins (`gemini-2.5-flash-lite` is taken as 2.5
 * Flash: not listed).
 */
const GEMINI_MIN_CACHE_TOKENS_BY_MODEL: Readonly<Record<string, number>> = {
  'gemini-2.5-flash': 2048,
  'gemini-2.5-pro': 2048,
  'gemini-3': 4096,
  'gemini-4': 4096,
};

/** The documented minimum cacheable prompt of a Gemini model (a `models/` prefix is ignored); unknown models get GEMINI_MIN_CACHE_TOKENS. */
export function geminiMinCacheTokens(model: string): number {
  return byModelPrefix(GEMINI_MIN_CACHE_TOKENS_BY_MODEL, model) ?? GEMINI_MIN_CACHE_TOKENS;
}

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
      // Google's API by the model's documented minimum; the simulator by its own (one for every model).
      minCacheTokens:
        input.overrides.minCacheTokens ??
        (provider === 'gemini' ? geminiMinCacheTokens((input.session as { model: string }).model) : GEMINI_MIN_CACHE_TOKENS),
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
  preload: async () => void (await loadGenai()),
};
