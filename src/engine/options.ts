import type { z } from 'zod';
import type { CachePlan, PlanInput } from '../model/plan.js';
import { findProvider, providerKindList, providerUsage, resolvePlan } from '../model/providers/index.js';
import type { ProviderOption } from '../model/providers/options.js';
import type { ParentSession } from '../shapes/registry.js';
import { namesStoredResponses } from '../model/decorate.js';
import { optionsOf, type OptionsSubject } from './option-check.js';
import { markForkpool } from '../input/forkpool-error.js';
import { EngineOptionsSchema, FanOutOptionsSchema, RunForkOptionsSchema } from './option-schema.js';

export type { BuiltInProviderOption, ProviderOption } from '../model/providers/options.js';

/** `ForkEngine.create`'s options: what each is, its default and its range are in EngineOptionsSchema (docs/options.md). */
export type ForkEngineOptions = z.input<typeof EngineOptionsSchema>;

/** `ForkEngine.fanOut`'s options (FanOutOptionsSchema; docs/options.md). */
export type FanOutOptions = z.input<typeof FanOutOptionsSchema>;

/** A fan-out's options, checked, with their defaults. */
export type CheckedFanOutOptions = z.output<typeof FanOutOptionsSchema>;

/** What the engine's spans carry beyond the conventions' defaults (`options.telemetry`). */
export type TelemetryOptions = NonNullable<ForkEngineOptions['telemetry']>;

const S = EngineOptionsSchema.shape;

/** The fixed defaults, read from the schema that applies them: the CLI's help and the docs show these. */
export const ENGINE_DEFAULTS = Object.freeze({
  concurrency: S.concurrency.def.defaultValue,
  warmup: S.warmup.def.defaultValue,
  cache: S.cache.def.defaultValue,
  maxTurns: S.maxTurns.def.defaultValue,
  history: S.history.def.defaultValue,
  staggerCapMs: S.staggerCapMs.def.defaultValue,
  cacheTtl: S.cacheTtl.def.defaultValue,
  eventReplayLimit: S.eventReplayLimit.def.defaultValue,
  maxAttempts: S.retry.unwrap().shape.maxAttempts.def.defaultValue,
});

/** Every option with its value or its default, checked once. minCacheTokens, cacheBlockTokens and cacheBuildMs undefined: the provider's own (its plan). */
export type ResolvedOptions = Omit<z.output<typeof EngineOptionsSchema>, 'provider'> & { provider: ProviderOption };

const path = (p: readonly PropertyKey[]): string => p.map((k) => `.${String(k)}`).join('');

const ENGINE_SUBJECT: OptionsSubject = { value: (p) => `ForkEngine: options${path(p)}` };

/**
 * Checks every option once, as ForkEngine.create is called: a TypeError or RangeError naming
 * `options.x` and what it must be, never a failure later, per fork.
 */
export function resolveOptions(options: ForkEngineOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw markForkpool(new TypeError('ForkEngine: options must be an object'), 'invalid_option');
  const checked = optionsOf(EngineOptionsSchema, options, ENGINE_SUBJECT);
  try {
    return { ...checked, provider: resolveProvider(options.provider) };
  } catch (error) {
    // The provider's checks (its module's own among them) throw TypeErrors: marked, they are forkpool's.
    throw error instanceof TypeError || error instanceof RangeError ? markForkpool(error, 'invalid_option') : error;
  }
}

/** A plain object with only the given keys (a misspelt nested option is an error, not ignored). */
function record<T>(name: string, value: T, keys: readonly string[]): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(
      `ForkEngine: options.${name} must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new TypeError(`ForkEngine: options.${name}.${key} is not an option (known: ${keys.join(', ')})`);
  }
  return value;
}

/** The provider, checked against its module's keys: a mistyped one must never fall through to the simulator. */
function resolveProvider(provider: unknown): ProviderOption {
  const choices = providerUsage;
  if (provider === undefined) throw new TypeError(`ForkEngine: options.provider is required: ${choices()}`);
  if (provider === null || typeof provider !== 'object' || Array.isArray(provider)) record('provider', provider, []);
  const given = provider as Record<string, unknown>;
  const module = typeof given.kind === 'string' ? findProvider(given.kind) : undefined;
  if (module === undefined) {
    throw new TypeError(`ForkEngine: options.provider.kind must be ${providerKindList()}, got ${JSON.stringify(given.kind)}: ${choices()}`);
  }
  record('provider', given, [
    'kind',
    ...(given.module !== undefined ? ['module'] : []),
    ...module.optionKeys,
    ...(module.flagKeys ?? []),
    ...(module.objectKeys ?? []),
  ]);
  for (const key of module.optionKeys) {
    if (given[key] !== undefined && (typeof given[key] !== 'string' || given[key] === '')) {
      throw new TypeError(`ForkEngine: options.provider.${key} must be a non-empty string`);
    }
  }
  for (const key of module.flagKeys ?? []) {
    if (given[key] !== undefined && typeof given[key] !== 'boolean') {
      throw new TypeError(`ForkEngine: options.provider.${key} must be true or false, got ${JSON.stringify(given[key])}`);
    }
  }
  module.checkOption?.(given);
  return given as ProviderOption;
}

/** The provider's cache plan for a session under these options: the engine's, and the bench's own runners'. */
export function planOf(
  options: ResolvedOptions,
  session: Readonly<ParentSession>,
  run: Pick<PlanInput, 'cacheKey' | 'role' | 'parentWarm' | 'storedResponse'>,
): CachePlan {
  return resolvePlan(options.provider.kind, {
    session,
    cache: options.cache,
    cacheTtl: options.cacheTtl,
    warmup: options.warmup,
    overrides: { minCacheTokens: options.minCacheTokens, cacheBlockTokens: options.cacheBlockTokens, cacheBuildMs: options.cacheBuildMs },
    ...run,
  });
}

const FAN_OUT_SUBJECT: OptionsSubject = {
  value: (p) => `ForkEngine.fanOut: options${path(p)}`,
  key: (p) => (p.length === 1 ? `ForkEngine: options.fanOut${path(p)}` : `ForkEngine.fanOut: options${path(p)}`),
};

/** Checks a fan-out's own options: them with their defaults, or an error naming the wrong one. */
export function checkFanOutOptions(options: FanOutOptions): CheckedFanOutOptions {
  return optionsOf(FanOutOptionsSchema, options, FAN_OUT_SUBJECT);
}

/**
 * The routing key (OpenAI's prompt_cache_key) a fan-out's requests carry: the one given (null:
 * none), else the prefix's id; but forks that name the parent's stored response route as the
 * parent did, by the key it was given or by none, never by one of forkpool's own.
 */
export function fanOutCacheKey(options: CheckedFanOutOptions, session: Readonly<ParentSession>, prefixId: string): string | undefined {
  if (options.promptCacheKey !== undefined) return options.promptCacheKey ?? undefined;
  const namesStored = options.storedResponse !== undefined && namesStoredResponses(session.format ?? 'gemini');
  return namesStored ? undefined : prefixId;
}

const RUN_FORK_SUBJECT: OptionsSubject = { value: (p) => `ForkEngine.runFork: options${path(p)}` };

/** `ForkEngine.runFork`'s options (RunForkOptionsSchema; docs/options.md). */
export type RunForkOptions = z.input<typeof RunForkOptionsSchema>;

/** Checks a single fork's options. */
export function checkRunForkOptions(options: RunForkOptions): RunForkOptions {
  return optionsOf(RunForkOptionsSchema, options, RUN_FORK_SUBJECT);
}
