import type { z } from 'zod';
import type { EngineOptionsSchema } from './option-schema.js';

type Paths<T> = T extends readonly unknown[] | ((...args: never[]) => unknown)
  ? never
  : T extends object
    ? {
        [K in keyof T & string]-?:
          | [K]
          | (NonNullable<T[K]> extends infer V
              ? V extends Record<string, unknown>
                ? V extends readonly unknown[]
                  ? never
                  : [K, ...Paths<V>]
                : never
              : never);
      }[keyof T & string]
    : never;

/** A path to an engine option, nested ones included: ['maxTurns'], ['retry', 'maxAttempts']. */
type EngineOptionPath =
  | Paths<Omit<z.input<typeof EngineOptionsSchema>, 'provider' | 'prices' | 'tools' | 'spawnTools' | 'resourceLimits'>>
  | ['prices'];

/**
 * The CLI's flag for an engine option (`run`, `prompt`, `worker`): its name is the key, `help`
 * what it does; the default, the values (`arg`) and the range are the schema's.
 */
export interface EngineOptionFlag {
  option: Readonly<EngineOptionPath>;
  group: 'Provider and pool' | 'Reliability' | 'Telemetry';
  help: string;
  /** The value's name in help, where the schema's values do not say it (N for counts). */
  arg?: string;
  /** Values the flag takes beyond the option's, each set elsewhere (`--warmup parent`: the fan-out's parentWarm). */
  extraValues?: readonly string[];
  /** Said after "at most N" when the value is over the schema's maximum. */
  overMax?: string;
  /** What a wrong value must be, when "must be a positive number" does not say it. */
  invalid?: string;
  /** The value is a JSON file of the option's value (`--prices FILE`). */
  file?: true;
}

/** The engine's flags, in their help order (within each group). */
export const ENGINE_OPTION_FLAGS = {
  'cache-ttl': {
    option: ['cacheTtl'],
    group: 'Provider and pool',
    help: 'Anthropic: the TTL of the cache breakpoints forkpool places; writes cost 1.25x for 5m, 2x for 1h',
  },
  threads: {
    option: ['threads'],
    group: 'Provider and pool',
    help: 'worker threads',
    overMax: 'forks wait on the network, so raise --concurrency instead',
  },
  concurrency: { option: ['concurrency'], group: 'Provider and pool', help: 'forks in flight' },
  'start-threads': {
    option: ['startThreads'],
    group: 'Provider and pool',
    help: "ahead: start every worker thread (and the provider's SDK in it) before the run",
  },
  history: { option: ['history'], group: 'Provider and pool', help: 'which history forks start from' },
  cache: { option: ['cache'], group: 'Provider and pool', help: '' },
  warmup: {
    option: ['warmup'],
    group: 'Provider and pool',
    help: 'parent: the parent has just sent this session, so no fork waits and the first can hit its cache',
    extraValues: ['parent'],
  },
  'max-turns': { option: ['maxTurns'], group: 'Provider and pool', help: 'model turns per fork' },
  'max-tokens': {
    option: ['maxTokens'],
    group: 'Provider and pool',
    help: 'token budget of the run (prompt + output, as the provider counts them): once spent, queued forks are cancelled and running forks stop before their next model call (reason: budget)',
  },
  'max-tokens-per-fork': {
    option: ['maxTokensPerFork'],
    group: 'Provider and pool',
    help: "token budget of each fork (a task's own maxTokens wins)",
  },
  'max-cost': {
    option: ['maxCost'],
    group: 'Provider and pool',
    arg: 'USD',
    help: "cost cap of the run in US dollars, at the model's price (--prices, else forkpool's table): reached, it stops as --max-tokens does, over by at most the calls in flight",
    invalid: 'a positive amount in US dollars (e.g. 2.50)',
  },
  prices: {
    option: ['prices'],
    group: 'Provider and pool',
    arg: 'FILE',
    file: true,
    help: 'JSON prices and context windows over forkpool\'s tables, by model id (USD per\nmillion tokens; tiers, cache storage: docs/prices.md):\n{"gpt-5.6-sol": {"input": 5, "cachedInput": 0.5, "cacheWrite": 6.25, "output": 30},\n "my-model": {"contextWindow": 128000}}',
  },
  'timeout-ms': { option: ['timeoutMs'], group: 'Provider and pool', help: 'per-fork time limit' },
  'min-cache-tokens': { option: ['minCacheTokens'], group: 'Provider and pool', help: "the provider's minimum cacheable prefix" },
  'cache-build-ms': {
    option: ['cacheBuildMs'],
    group: 'Provider and pool',
    help: 'how long after a response has begun its prefix can be read: warm-up and parent-warm fan-outs wait for it',
  },
  'cache-block-tokens': { option: ['cacheBlockTokens'], group: 'Provider and pool', help: 'the provider caches in steps of N tokens' },
  'call-timeout-ms': { option: ['callTimeoutMs'], group: 'Reliability', help: 'bound on one model call attempt' },
  'max-attempts': {
    option: ['retry', 'maxAttempts'],
    group: 'Reliability',
    help: 'attempts per model call, retries of 429/5xx/timeouts included',
  },
  'retry-budget': { option: ['globalRetryBudget'], group: 'Reliability', help: 'retries the whole run may spend' },
  rpm: { option: ['rateLimit', 'requestsPerMinute'], group: 'Reliability', help: 'requests per minute across all forks' },
  tpm: { option: ['rateLimit', 'tokensPerMinute'], group: 'Reliability', help: 'tokens per minute across all forks' },
  'otel-capture-content': {
    option: ['telemetry', 'captureContent'],
    group: 'Telemetry',
    help: "put prompts and completions on the OpenTelemetry spans (the GenAI conventions' content attributes; they may hold secrets). Spans and metrics go out over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set",
  },
} as const satisfies Record<string, EngineOptionFlag>;

export type EngineOptionFlagName = keyof typeof ENGINE_OPTION_FLAGS;
