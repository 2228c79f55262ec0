import { breakpointTtl, MAX_BREAKPOINTS, parentBreakpoints } from '../../shapes/anthropic-messages/breakpoints.js';
import type { AnthropicSessionLike } from '../../shapes/anthropic-messages/dialect.js';
import { createAnthropicProvider, loadAnthropicSdk } from '../anthropic.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';
import { ANTHROPIC_PRESET, anthropicMinCacheTokens, resolveAnthropicEndpoint } from '../presets.js';
import type { ProviderConfig } from '../types.js';

/**
 * An Anthropic Messages session's plan: Anthropic caches only at cache_control breakpoints, so
 * forkpool places them (unless the cache is off), leaving the parent's own where they are; an
 * entry is readable once the response that wrote it has begun, so the warm-up is never skipped;
 * reads and writes are priced apart.
 */
export function anthropicPlan(provider: string, input: PlanInput): CachePlan {
  const parent = parentBreakpoints(input.session as AnthropicSessionLike);
  const ttl = breakpointTtl(input.cacheTtl, parent);
  const placed = input.cache !== 'off';
  const o = input.overrides;
  return {
    provider,
    shape: 'anthropic-messages',
    request: placed ? { mechanism: 'breakpoints', parent: parent.count, ttl } : { mechanism: 'none' },
    explicit: false,
    readable: { after: 'response-start', buildMs: o.cacheBuildMs ?? ANTHROPIC_PRESET.cacheBuildMs, required: placed, fromParent: true },
    rules: {
      // The minimum depends on the model (Anthropic's table).
      minCacheTokens: o.minCacheTokens ?? anthropicMinCacheTokens(input.session.model),
      cacheBlockTokens: o.cacheBlockTokens ?? 1,
      toMarkerOnly: placed,
      // https://platform.claude.com/docs/en/build-with-claude/prompt-caching: "a 5-minute lifetime", refreshed on each use; or 1 hour.
      ...(placed ? { entryTtlMs: ttl === '1h' ? 3_600_000 : 300_000 } : { unmarked: true }),
    },
    effective: placed ? 'explicit' : 'off',
    pricing: ANTHROPIC_PRESET.costMultipliers,
    ...(placed ? { note: breakpointNote(parent.count, ttl, input) } : {}),
  };
}

/** What the report says about the breakpoints: where forkpool put them, or why it added none. */
function breakpointNote(parent: number, ttl: '5m' | '1h', input: PlanInput): string {
  const room = MAX_BREAKPOINTS - parent;
  const parts = [
    room <= 0
      ? `Anthropic breakpoints: the parent's ${parent} already fill the limit of ${MAX_BREAKPOINTS}; forkpool added none`
      : `Anthropic breakpoints: forkpool adds ${room >= 2 ? 'two' : 'one'} (${room >= 2 ? "the end of the inherited history and each request's latest message" : 'the end of the inherited history'}) to the parent's ${parent}, TTL ${ttl}`,
  ];
  if (ttl !== input.cacheTtl)
    parts.push(`1h was asked, but the parent's 5-minute breakpoints come first and a 1-hour one may not follow them`);
  if (input.warmup === 'none' && !input.parentWarm) {
    parts.push('warm-up none was asked, but Anthropic needs it (an entry is readable only once a response has begun): the run warmed up');
  }
  return parts.join('; ');
}

/** Anthropic's Messages API through @anthropic-ai/sdk; the key is read where the model is called (apiKeyEnv, default ANTHROPIC_API_KEY). */
export const anthropicModule: ProviderModule = {
  kind: 'anthropic',
  shapes: ['anthropic-messages'],
  optionKeys: ['apiKey', 'apiKeyEnv', 'baseUrl'],
  usage: "{ kind: 'anthropic' } (apiKey or apiKeyEnv, default ANTHROPIC_API_KEY; baseUrl)",
  async connect(option, common) {
    const config = { kind: 'anthropic', ...common } as ProviderConfig;
    for (const key of ['apiKey', 'apiKeyEnv', 'baseUrl'] as const) {
      if (option[key] !== undefined) config[key] = option[key] as string;
    }
    // A missing key is an error now, not a failure per fork.
    resolveAnthropicEndpoint(config);
    return { config };
  },
  plan: (input) => anthropicPlan('anthropic', input),
  client: (config) => createAnthropicProvider(config),
  preload: async () => void (await loadAnthropicSdk()),
};
