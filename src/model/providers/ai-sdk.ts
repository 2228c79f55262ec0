import { checkAiSdkModel, createAiSdkProvider } from '../ai-sdk.js';
import type { AiSdkModelSpec, AiSdkSetting } from '../types.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';
import type { ProviderConfig } from '../types.js';

/*
 * The Vercel AI SDK as a provider: `{ kind: 'ai-sdk', package, factory, method?, model, settings? }`
 * names the model; model/ai-sdk.ts makes it on each thread that calls it. Sessions in the AI SDK's
 * own shape only (its provider packages render them for their APIs).
 */

/** A setting is a value, or `{ "env": NAME }`: a key goes by the name of the variable that holds it. */
function checkSettings(value: unknown): Readonly<Record<string, AiSdkSetting>> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new TypeError("ForkEngine: options.provider.settings must be an object (the factory's settings)");
  for (const [key, setting] of Object.entries(value)) {
    const ok =
      typeof setting === 'string' ||
      typeof setting === 'number' ||
      typeof setting === 'boolean' ||
      (setting !== null &&
        typeof setting === 'object' &&
        Object.keys(setting).length === 1 &&
        typeof (setting as { env?: unknown }).env === 'string' &&
        (setting as { env: string }).env !== '');
    if (!ok)
      throw new TypeError(
        `ForkEngine: options.provider.settings.${key} must be a string, number or boolean, or { env: NAME } (a key is given by the name of its variable)`,
      );
    // A key by value would cross to every thread and machine (and into Redis): refused.
    if (/key|token|secret|password/i.test(key) && typeof setting !== 'object') {
      throw new TypeError(
        `ForkEngine: options.provider.settings.${key} looks like a secret: give it as { env: NAME }, the name of the variable that holds it`,
      );
    }
  }
  return value as Readonly<Record<string, AiSdkSetting>>;
}

/**
 * The plan of a model behind the AI SDK: its provider's own prefix cache (OpenAI's, DeepSeek's, a
 * Gemini model's implicit one), read once the response has begun; forkpool adds no marker. A
 * session's own providerOptions (an Anthropic cacheControl) are sent as the parent sent them.
 */
function aiSdkPlan(input: PlanInput): CachePlan {
  const o = input.overrides;
  return {
    provider: 'ai-sdk',
    shape: 'ai-sdk',
    request: { mechanism: 'none' },
    explicit: false,
    readable: { after: 'response-start', buildMs: o.cacheBuildMs ?? 0, required: false, fromParent: true },
    // OpenAI's, Anthropic's and Gemini's implicit minimum is 1,024 tokens; another provider's may differ (minCacheTokens sets it).
    rules: { minCacheTokens: o.minCacheTokens ?? 1024, cacheBlockTokens: o.cacheBlockTokens ?? 1, toMarkerOnly: false },
    effective: input.cache === 'off' ? 'off' : 'implicit',
    ...(input.cache === 'explicit'
      ? { note: "explicit cache: not available through the AI SDK; the provider's implicit prefix cache serves the forks" }
      : {}),
  };
}

export const aiSdkModule: ProviderModule = {
  kind: 'ai-sdk',
  shapes: ['ai-sdk'],
  optionKeys: ['package', 'factory', 'method', 'model', 'mode'],
  objectKeys: ['settings'],
  usage:
    "{ kind: 'ai-sdk', package, factory?, method?, model, settings?, mode? } (an AI SDK provider package of your project: '@ai-sdk/openai', 'createOpenAI', 'chat', 'gpt-4.1-mini', { apiKey: { env: 'OPENAI_API_KEY' } })",
  checkOption(option) {
    for (const key of ['package', 'model'] as const) {
      if (option[key] === undefined)
        throw new TypeError(`ForkEngine: options.provider { kind: 'ai-sdk' } needs ${key} (${AI_SDK_KEYS[key]})`);
    }
    checkSettings(option.settings);
    if (option.mode !== undefined && option.mode !== 'stream' && option.mode !== 'generate') {
      throw new TypeError(
        `ForkEngine: options.provider.mode must be 'stream' or 'generate' (the way the parent's agent calls its model), got ${JSON.stringify(option.mode)}`,
      );
    }
  },
  async connect(option, common) {
    const spec = aiSdkSpecOf(option);
    // A package not installed, a factory or method it lacks, a variable not set: an error now, not a failure per fork.
    await checkAiSdkModel(spec);
    return { config: { kind: 'ai-sdk', ...common, aiSdk: spec } as ProviderConfig };
  },
  plan: aiSdkPlan,
  client: (config) => createAiSdkProvider(config),
  // A thread started ahead imports `ai` and the package, and makes the model once, before its first fork.
  preload: async (config) => {
    if (config.aiSdk !== undefined) await checkAiSdkModel(config.aiSdk);
  },
};

const AI_SDK_KEYS = {
  package: "the provider package, e.g. '@ai-sdk/openai'",
  model: "the model id, e.g. 'gpt-4.1-mini'",
} as const;

/** The model a checked `{ kind: 'ai-sdk' }` descriptor names, as each thread makes it. */
export function aiSdkSpecOf(option: Readonly<Record<string, unknown>>): AiSdkModelSpec {
  return {
    package: option.package as string,
    ...(option.factory !== undefined ? { factory: option.factory as string } : {}),
    ...(option.method !== undefined ? { method: option.method as string } : {}),
    settings: checkSettings(option.settings),
    model: option.model as string,
    ...(option.mode !== undefined ? { mode: option.mode as 'stream' | 'generate' } : {}),
  };
}
