import { ENGINE_DEFAULTS as D, MAX_THREADS, type ForkEngineOptions, type ProviderOption } from '../engine/options.js';
import { quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';

/** Flags shared by `run` and `prompt`: provider, pool and fork settings. */
export const ENGINE_FLAGS = {
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  threads: { type: 'string' },
  concurrency: { type: 'string' },
  history: { type: 'string' },
  seed: { type: 'string' },
  cache: { type: 'string' },
  warmup: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-tokens-per-fork': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'min-cache-tokens': { type: 'string' },
  'call-timeout-ms': { type: 'string' },
  'max-attempts': { type: 'string' },
  'retry-budget': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  workspace: { type: 'string' },
  tools: { type: 'string' },
  'output-format': { type: 'string' },
} as const;

/** The help for the engine's flags; its defaults are the engine's own (ENGINE_DEFAULTS). */
export const ENGINE_FLAGS_HELP = `Provider and pool:
  --provider local|gemini   default: gemini when GEMINI_API_KEY or GOOGLE_API_KEY is set, else the
                            built-in local server (a scripted, simulated model)
  --model NAME              run the whole fan-out on this model instead of the session's
  --base-url URL            a Gemini-compatible endpoint (also GOOGLE_GEMINI_BASE_URL)
  --threads N               worker threads (default: cores)
  --concurrency N           forks in flight (default ${D.concurrency})
  --history inherit|completed-turns   which history forks start from (default ${D.history})
  --cache implicit|explicit|off   (default ${D.cache})
  --warmup auto|none|parent (default ${D.warmup}; parent: the parent has just sent this session, so no
                            fork waits and the first can hit its cache)
  --max-turns N             model turns per fork (default ${D.maxTurns})
  --max-tokens N            token budget of the run (prompt + output, as the provider counts them):
                            once spent, queued forks are cancelled and running forks stop before
                            their next model call (reason: budget)
  --max-tokens-per-fork N   token budget of each fork (a task's own maxTokens wins)
  --timeout-ms N            per-fork time limit
  --min-cache-tokens N      the provider's minimum cacheable prefix (default ${D.minCacheTokens})
Reliability:
  --call-timeout-ms N       bound on one model call attempt
  --max-attempts N          attempts per model call, retries of 429/5xx/timeouts included (default ${D.maxAttempts})
  --retry-budget N          retries the whole run may spend (default: unbounded)
  --rpm N, --tpm N          requests / tokens per minute across all forks
Tools:
  --workspace DIR           read-only read_file, list_dir, glob, grep confined to DIR
  --tools MODULE            tools made with defineTool, from a JS/TS module
Output:
  --output-format text|json|stream-json   (default text)`;

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface EngineFlagValues {
  provider?: string | undefined;
  model?: string | undefined;
  'base-url'?: string | undefined;
  threads?: string | undefined;
  concurrency?: string | undefined;
  history?: string | undefined;
  seed?: string | undefined;
  cache?: string | undefined;
  warmup?: string | undefined;
  'max-turns'?: string | undefined;
  'max-tokens'?: string | undefined;
  'max-tokens-per-fork'?: string | undefined;
  'timeout-ms'?: string | undefined;
  'min-cache-tokens'?: string | undefined;
  'call-timeout-ms'?: string | undefined;
  'max-attempts'?: string | undefined;
  'retry-budget'?: string | undefined;
  rpm?: string | undefined;
  tpm?: string | undefined;
  'output-format'?: string | undefined;
}

export function outputFormat(values: EngineFlagValues): OutputFormat {
  return oneOf('--output-format', values['output-format'], ['text', 'json', 'stream-json'] as const) ?? 'text';
}

/** Which provider runs, by the rule users of Gemini CLI expect: a key in the environment means the real API. */
function chooseProvider(values: EngineFlagValues, env: NodeJS.ProcessEnv): ProviderOption {
  const kind = oneOf('--provider', values.provider, ['local', 'gemini'] as const);
  const hasKey = Boolean(env.GEMINI_API_KEY || env.GOOGLE_API_KEY);
  const baseUrl = values['base-url'] ?? env.GOOGLE_GEMINI_BASE_URL;
  if (kind === 'gemini' || (kind === undefined && hasKey)) {
    if (!hasKey) throw new UsageError('--provider gemini needs GEMINI_API_KEY or GOOGLE_API_KEY in the environment');
    return { kind: 'gemini', ...(baseUrl ? { baseUrl } : {}) };
  }
  return { kind: 'local', ...(values['base-url'] ? { url: values['base-url'] } : {}) };
}

export function engineOptions(values: EngineFlagValues, env: NodeJS.ProcessEnv): ForkEngineOptions {
  const options: ForkEngineOptions = { provider: chooseProvider(values, env) };
  const threads = positiveInt('--threads', values.threads);
  if (threads !== undefined && threads > MAX_THREADS) {
    throw new UsageError(`--threads: at most ${MAX_THREADS} (got ${threads}); forks wait on the network, so raise --concurrency instead`);
  }
  const concurrency = positiveInt('--concurrency', values.concurrency);
  const maxTurns = positiveInt('--max-turns', values['max-turns']);
  const maxTokens = positiveInt('--max-tokens', values['max-tokens']);
  const maxTokensPerFork = positiveInt('--max-tokens-per-fork', values['max-tokens-per-fork']);
  const timeoutMs = positiveInt('--timeout-ms', values['timeout-ms']);
  const minCacheTokens = nonNegativeInt('--min-cache-tokens', values['min-cache-tokens']);
  if (values.seed !== undefined) throw new UsageError('--seed is now called --history (inherit or completed-turns)');
  const history = oneOf('--history', values.history, ['inherit', 'completed-turns'] as const);
  const cache = oneOf('--cache', values.cache, ['implicit', 'explicit', 'off'] as const);
  const warmup = oneOf('--warmup', values.warmup, ['auto', 'none', 'parent'] as const);
  const callTimeoutMs = positiveInt('--call-timeout-ms', values['call-timeout-ms']);
  const maxAttempts = positiveInt('--max-attempts', values['max-attempts']);
  const retryBudget = nonNegativeInt('--retry-budget', values['retry-budget']);
  const rpm = positiveInt('--rpm', values.rpm);
  const tpm = positiveInt('--tpm', values.tpm);
  if (callTimeoutMs !== undefined) options.callTimeoutMs = callTimeoutMs;
  if (maxAttempts !== undefined) options.retry = { maxAttempts };
  if (retryBudget !== undefined) options.globalRetryBudget = retryBudget;
  if (rpm !== undefined || tpm !== undefined) {
    options.rateLimit = { ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}), ...(tpm !== undefined ? { tokensPerMinute: tpm } : {}) };
  }
  if (threads !== undefined) options.threads = threads;
  if (concurrency !== undefined) options.concurrency = concurrency;
  if (maxTurns !== undefined) options.maxTurns = maxTurns;
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  if (maxTokensPerFork !== undefined) options.maxTokensPerFork = maxTokensPerFork;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (minCacheTokens !== undefined) options.minCacheTokens = minCacheTokens;
  if (history) options.history = history;
  if (cache) options.cache = cache;
  // 'parent' is a property of one fan-out, not of the engine: see parentWarm().
  if (warmup === 'auto' || warmup === 'none') options.warmup = warmup;
  return options;
}

/** `--warmup parent`: the caller says the parent has just sent this prefix. */
export function parentWarm(values: EngineFlagValues): boolean {
  return values.warmup === 'parent';
}

function oneOf<const T extends readonly string[]>(flag: string, value: string | undefined, allowed: T): T[number] | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag}: must be one of ${allowed.join(', ')} (got ${quoted(value)})`);
  }
  return value as T[number];
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${flag}: must be a positive integer (got ${quoted(value)})`);
  }
  return n;
}

function nonNegativeInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag}: must be a non-negative integer (got ${quoted(value)})`);
  return Number(value);
}
