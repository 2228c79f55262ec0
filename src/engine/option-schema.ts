/**
 * The engine's options, declared once. Each option group is one zod schema; from it come the
 * library's checks and their messages (`optionsOf`), the option types (engine/options.ts), the
 * defaults (`defaultOf`: the ones the engine applies are the ones help and docs show), the CLI's
 * engine flags (`ENGINE_OPTION_FLAGS`: name, help, with default, values and range read from the
 * schema) and the tables of docs/options.md (`optionTables`; a test fails when the file differs).
 */
import { availableParallelism } from 'node:os';
import type { Context } from '@opentelemetry/api';
import { z } from 'zod';
import type { CachePlan } from '../model/plan.js';
import { PriceTableSchema } from '../model/prices.js';
import type { ProviderOption } from '../model/providers/options.js';
import { DEFAULT_RETRY } from '../model/types.js';
import type { ForkTask } from '../session/schema.js';
import type { Tool } from '../tools/define.js';
import type { EngineCallGate } from './call-gate.js';
import type { ForkResult } from '../result/fork-result.js';
import type { WorkerEvent } from '../result/fork-events.js';
import type { TranscriptTarget } from '../transcript/target.js';

/** What the docs say of an option beside its type, default and range (which the schema gives). */
interface OptionDoc {
  /** What it does, for its row in docs/options.md. */
  description: string;
  /** Who decides when it is absent, where no fixed default applies ("the number of cores"). */
  defaultText?: string;
  /** What its value is, where the schema cannot say it (a function, an object of another module's). */
  valueText?: string;
}

const optionDocs = z.registry<OptionDoc>();

/** An option with its doc: the schema as given, registered where the docs, help and messages find it. */
function option<S extends z.ZodType>(schema: S, doc: OptionDoc): S {
  optionDocs.add(schema as z.ZodType, doc);
  return schema;
}

/** Every worker starts at once with its own V8 heap; forks wait on the network, so concurrency scales instead. */
const MAX_THREADS = 256;

/** Node clamps a longer timer to 1 ms: a bound past this would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A count: a safe integer from `min`, at most `max`. */
function count(min: 0 | 1, max?: number) {
  const n = z.int().min(min);
  return max === undefined ? n : n.max(max);
}

const positiveNumber = () => z.number({ error: positiveNumberMessage }).gt(0, { error: positiveNumberMessage });

function positiveNumberMessage(issue: { input?: unknown }): string {
  return `must be a positive number, got ${JSON.stringify(issue.input)}`;
}

const nonEmptyString = (what: string) => z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}` });

const fn = <F>() => z.custom<F>((value) => typeof value === 'function', { error: 'must be a function' });

const callGate = () =>
  z.custom<EngineCallGate>((value) => {
    const gate = value as Partial<EngineCallGate> | null;
    return gate !== null && typeof gate === 'object' && typeof gate.acquire === 'function' && typeof gate.release === 'function';
  }, { error: 'must have acquire(tokens, signal) and release(status, wantsRetry)' });

const traceParent = () =>
  z.custom<Context>((value) => value !== null && typeof value === 'object' && typeof (value as { getValue?: unknown }).getValue === 'function', {
    error: 'must be an OpenTelemetry Context',
  });

const RetrySchema = z
  .strictObject({
    maxAttempts: option(count(1).default(DEFAULT_RETRY.maxAttempts), { description: 'Attempts per model call, the first included (retries of 429s, 5xx and timeouts).' }),
    baseDelayMs: option(count(0, MAX_TIMER_MS).default(DEFAULT_RETRY.baseDelayMs), { description: 'The first back-off between attempts, ms; it doubles with each retry (with jitter).' }),
    maxDelayMs: option(count(0, MAX_TIMER_MS).default(DEFAULT_RETRY.maxDelayMs), { description: 'The longest back-off between attempts, ms.' }),
    forkBudget: option(count(0).optional(), { description: 'Retries one fork may spend over all its model calls.', defaultText: 'unbounded; only `maxAttempts` bounds them' }),
  })
  .check((ctx) => {
    const { baseDelayMs, maxDelayMs } = ctx.value;
    if (typeof baseDelayMs === 'number' && typeof maxDelayMs === 'number' && baseDelayMs > maxDelayMs) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['baseDelayMs'], message: `(${baseDelayMs}) must not exceed options.retry.maxDelayMs (${maxDelayMs})`, params: { range: true } });
    }
  });

const RateLimitSchema = z.strictObject({
  requestsPerMinute: option(count(1).optional(), { description: 'Model requests per minute across every fork of the engine.', defaultText: 'unbounded' }),
  tokensPerMinute: option(count(1).optional(), { description: 'Tokens (prompt + output) per minute across every fork of the engine.', defaultText: 'unbounded' }),
});

const megabytes = (what: string) => option(positiveNumber().optional(), { description: what, defaultText: "Node's" });

const ResourceLimitsSchema = z.strictObject({
  maxYoungGenerationSizeMb: megabytes("A worker thread's young generation, MB."),
  maxOldGenerationSizeMb: megabytes("A worker thread's old generation (its heap), MB."),
  codeRangeSizeMb: megabytes("A worker thread's code range, MB."),
  stackSizeMb: megabytes("A worker thread's stack, MB."),
});

const TelemetrySchema = z.strictObject({
  captureContent: option(z.boolean().optional(), {
    description:
      "Prompts and completions on the spans, as the GenAI conventions' opt-in content attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, a tool call's arguments and result). Off by default: content may hold what a trace store must not.",
    defaultText: 'off',
  }),
});

/** `ForkEngine.create`'s options (the order is the one the "known:" list of an error names). */
export const EngineOptionsSchema = z.strictObject({
  // Checked by the provider's module (its keys are its own): see resolveProvider.
  provider: option(z.custom<ProviderOption>().optional(), {
    valueText: 'object', description: "The model provider: `{ kind: 'local' | 'gemini' | 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible' | 'anthropic' | 'ai-sdk', … }`, or a provider module of one's own (`{ kind, module }`). Required.",
  }),
  threads: option(
    count(1, MAX_THREADS)
      .optional()
      .transform((n) => n ?? defaultThreads()),
    { description: 'Worker threads.', defaultText: `the number of cores, at most ${MAX_THREADS}` },
  ),
  concurrency: option(count(1).default(64), { description: 'Forks in flight across the pool.' }),
  tools: option(
    z
      .custom<readonly Tool[]>((value) => Array.isArray(value) && value.every((tool) => typeof tool === 'object' && tool !== null), {
        error: 'must be an array of tools made with defineTool',
      })
      .default([]),
    { valueText: 'array of tools', description: 'Tools the forks may call (made with `defineTool`), run on the main thread.' },
  ),
  warmup: option(z.enum(['auto', 'none']).default('auto'), {
    description: "'auto': where the provider's cache needs a first response before others can hit it, one fork goes first and the rest follow its first response; 'none': all at once.",
  }),
  cache: option(z.enum(['implicit', 'explicit', 'off']).default('implicit'), {
    description: "How forks use the provider's cache: its implicit prefix cache, an explicit cache forkpool creates for the run (Gemini; Anthropic breakpoints), or none.",
  }),
  maxTurns: option(count(1).default(200), { description: "Model turns per fork (a task's own `maxTurns` wins)." }),
  timeoutMs: option(count(1, MAX_TIMER_MS).optional(), { description: 'Per-fork time limit, ms.', defaultText: 'none' }),
  history: option(z.enum(['inherit', 'completed-turns']).default('inherit'), {
    description: "Which history forks start from when their task does not say: the parent's whole conversation, or its completed turns only.",
  }),
  staggerCapMs: option(count(0, MAX_TIMER_MS).default(5_000), { description: 'Warm-up releases the other forks after this long even without a first response, ms.' }),
  minCacheTokens: option(count(0).optional(), {
    description: "The provider's minimum cacheable prefix, in tokens.",
    defaultText: "the provider's documented minimum for the model; OpenAI 1024, Gemini and Anthropic by model",
  }),
  cacheBlockTokens: option(count(1).optional(), { description: 'The provider caches in steps of this many tokens.', defaultText: "the provider's; OpenAI 128, DeepSeek 64, others 1" }),
  cacheBuildMs: option(count(0, MAX_TIMER_MS).optional(), {
    description: 'How long after a response has begun its prefix can be read, ms (DeepSeek builds its cache in seconds): warm-up waits this long more, and a parent-warm fan-out this long from its start.',
    defaultText: "the provider's; DeepSeek 3000, others 0",
  }),
  cacheTtl: option(z.enum(['5m', '1h']).default('5m'), { description: "Anthropic: the TTL of the cache breakpoints forkpool places ('5m': writes cost 1.25×; '1h': 2×)." }),
  callTimeoutMs: option(count(1, MAX_TIMER_MS).optional(), { description: 'Per-attempt bound on one model HTTP call, ms.', defaultText: 'none' }),
  retry: option(RetrySchema.optional(), { description: 'Back-off and attempts per model call, and retries per fork.' }),
  globalRetryBudget: option(count(0).optional(), { description: 'Retries the whole engine may spend, across forks.', defaultText: 'unbounded' }),
  rateLimit: option(RateLimitSchema.optional(), { description: 'Requests and tokens per minute across every fork of the engine.' }),
  resourceLimits: option(ResourceLimitsSchema.optional(), { description: "Worker thread limits (node:worker_threads' resourceLimits): a worker over them dies and only its forks fail." }),
  spawnTools: option(
    z
      .custom<readonly string[]>((value) => Array.isArray(value) && value.every((name) => typeof name === 'string' && name !== ''), { error: 'must be an array of tool names' })
      .default([]),
    { valueText: 'array of strings', description: 'Extra tool names that would start an agent: refused in forks like `agent`.' },
  ),
  maxTokens: option(count(1).optional(), {
    description: 'Tokens (prompt + output, as the provider reports them) one fan-out may spend. Once spent, queued forks end cancelled (kind "budget") and running forks end before their next model call.',
    defaultText: 'unbounded',
  }),
  maxTokensPerFork: option(count(1).optional(), {
    description: 'Tokens one fork may spend (a task\'s own `maxTokens` wins); past them it fails with kind "budget".',
    defaultText: 'unbounded',
  }),
  maxCost: option(positiveNumber().optional(), {
    description:
      "US dollars one fan-out may spend, at the model's price (`prices`, else forkpool's table): once spent it stops as `maxTokens` does, overshooting by at most the calls in flight. A model without a price cannot be capped so: the fan-out is refused.",
    defaultText: 'unbounded',
  }),
  prices: option(PriceTableSchema.default({}), {
    valueText: 'object, by model id',
    description: "Prices and context windows of one's own, by model id (or id prefix), over forkpool's tables (docs/prices.md).",
  }),
  eventReplayLimit: option(count(0).default(1_000), { description: 'Recent events a run keeps for `events({ replay: true })`.' }),
  telemetry: option(TelemetrySchema.default({}), { description: 'OpenTelemetry: what the spans carry (spans and metrics go to the application\'s registered providers).' }),
});

function defaultThreads(): number {
  return Math.min(availableParallelism(), MAX_THREADS);
}

/** `ForkEngine.fanOut`'s options. */
export const FanOutOptionsSchema = z.strictObject({
  parentWarm: option(z.boolean().default(false), { description: 'The parent has just sent this prefix (always so inside runParentAgent): no fork waits, and the first can hit its cache.' }),
  retainResults: option(z.boolean().default(true), {
    description: 'false: each result goes to `onResult` listeners and is then dropped, so memory stays flat however many forks run; `results()` is unavailable and the report has totals, no per-fork rows.',
  }),
  promptCacheKey: option(z.string({ error: 'must be a non-empty string, or null for none' }).min(1, { error: 'must be a non-empty string, or null for none' }).nullable().optional(), {
    description:
      "OpenAI: the `prompt_cache_key` every fork request carries, so all forks route to the same cache. Pass the key an outside parent already uses, so the forks land where the parent's cache is; null when that parent sends none. Providers without such a key ignore it.",
    defaultText: 'the prefix id',
  }),
  storedResponse: option(nonEmptyString('a response id (a non-empty string)').optional(), {
    description:
      "OpenAI's Responses API: the id of the parent's last response, stored by OpenAI (`store: true`). With `cache: 'explicit'`, each fork whose seed holds the parent's conversation unchanged names it (`previous_response_id`) and sends only its own items.",
    defaultText: 'none',
  }),
  onResponseStart: option(fn<(taskId: string, turn: number) => void>().optional(), { valueText: 'function', description: "Told when a fork's model response has begun, on every turn (turn 1: its first)." }),
  onResult: option(fn<(result: ForkResult, task: ForkTask) => void>().optional(), {
    valueText: 'function',
    description: 'Called once per fork, the moment its result exists, with the task it ran: the same as `run.onResult(listener)` before the run starts.',
  }),
  callGate: option(callGate().optional(), {
    valueText: 'object (acquire, release)',
    description: "The gate every model call of this fan-out passes instead of the engine's own (its rate limits, in-flight bound and retry budget).",
    defaultText: "the engine's",
  }),
  transcripts: option(
    z
      .strictObject({
        dir: option(nonEmptyString('a folder (a non-empty string)'), { description: 'The folder of the transcripts, one `<task id>.jsonl` per task.' }),
        resume: option(z.boolean().optional(), { description: 'A fork whose transcript exists continues from its last completed turn.', defaultText: 'false' }),
      })
      .optional(),
    { description: "Writes each fork's transcript as it goes (a completed fork can then be revived with `run.send`). In a distributed run, `dir` must be a folder every worker shares.", defaultText: 'none' },
  ),
  traceParent: option(traceParent().optional(), { valueText: 'OpenTelemetry Context', description: "OpenTelemetry: the context the fan-out's span goes under.", defaultText: 'the active one' }),
  parentAgentId: option(nonEmptyString('a non-empty string').optional(), {
    description: "OpenTelemetry: the agent whose conversation the forks continue, on each fork's span (`forkpool.parent_agent.id`).",
    defaultText: 'none',
  }),
});

/** `ForkEngine.runFork`'s options. */
export const RunForkOptionsSchema = z.strictObject({
  plan: option(z.custom<CachePlan>((value) => value !== null && typeof value === 'object', { error: 'must be a cache plan (an object)' }).optional(), {
    valueText: 'object (a CachePlan)',
    description: "The cache plan its requests follow (a coordinator's), when it is this engine's provider's.",
    defaultText: "this engine's own for the prefix",
  }),
  callGate: option(callGate().optional(), { valueText: 'object (acquire, release)', description: 'The gate its model calls go through.', defaultText: "the engine's" }),
  onEvent: option(fn<(event: WorkerEvent) => void>().optional(), { valueText: 'function', description: 'Its events as the worker reports them: the first bytes of each response, each turn\'s usage.' }),
  transcript: option(
    z
      .custom<TranscriptTarget>((value) => value !== null && typeof value === 'object' && typeof (value as { path?: unknown }).path === 'string', {
        error: 'must be a transcript target ({ path, continueFrom? })',
      })
      .optional(),
    { valueText: 'object (path, continueFrom?)', description: 'Its transcript, written here as it goes (and continued from, when the target says so).', defaultText: 'none' },
  ),
  traceParent: option(traceParent().optional(), { valueText: 'OpenTelemetry Context', description: "The span its tool calls' spans go under; absent, none are recorded.", defaultText: 'none' }),
  onCallsInFlight: option(fn<(calls: number) => void>().optional(), { valueText: 'function', description: "Told the fork's model calls in flight as each starts and ends." }),
});

/** Who an error names: `ForkEngine: options`, `ForkEngine.fanOut: options`. */
export interface OptionsSubject {
  /** How a value at this path is named. */
  value(path: readonly PropertyKey[]): string;
  /** How an unknown key at this path is named (default: as a value). */
  key?(path: readonly PropertyKey[]): string;
}

/** The options, checked against their schema: the parsed value (defaults applied), or a TypeError or RangeError naming the first wrong option. */
export function optionsOf<S extends z.ZodType>(schema: S, value: unknown, subject: OptionsSubject): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  // A misspelt name first: the value errors that came with it may be its consequence.
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? (issues[0] as z.core.$ZodIssue);
  throw optionError(schema, issue, subject);
}

function optionError(schema: z.ZodType, issue: z.core.$ZodIssue, subject: OptionsSubject): TypeError | RangeError {
  const path = issue.path;
  const name = subject.value(path);
  const input = (issue as { input?: unknown }).input;
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(objectAt(schema, path)?.shape ?? {});
    const key = issue.keys[0] as string;
    return new TypeError(`${(subject.key ?? subject.value)([...path, key])} is not an option (known: ${known.join(', ')})`);
  }
  if (path[0] === 'prices' && path.length > 1) {
    const at = path.slice(1).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return new TypeError(
      `${subject.value(['prices'])}${at}: ${issue.message} (by model: { input, cachedInput, cacheWrite?, cacheWrite1h?, output } in USD per million tokens, tiers?, cacheStoragePerHour?, contextWindow?: docs/prices.md)`,
    );
  }
  if (issue.code === 'custom') return issue.params?.range === true ? new RangeError(`${name} ${issue.message}`) : new TypeError(`${name} ${issue.message}`);
  const leaf = leafAt(schema, path);
  if (issue.code === 'invalid_type' && issue.expected === 'object') return new TypeError(`${name} must be an object, got ${kindOf(input)}`);
  if (issue.code === 'invalid_type' && issue.expected === 'boolean') return new TypeError(`${name} must be true or false, got ${JSON.stringify(input)}`);
  if (issue.code === 'invalid_value') return new TypeError(`${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(input)}`);
  if (leaf instanceof z.ZodNumber && leaf.isInt) {
    if (typeof input !== 'number') return new TypeError(`${name} must be a number, got ${typeof input}`);
    const max = leaf.maxValue ?? Number.MAX_SAFE_INTEGER;
    if (issue.code === 'too_big' && max < Number.MAX_SAFE_INTEGER) return new RangeError(`${name} must be at most ${max}, got ${input}`);
    return new RangeError(`${name} must be a ${(leaf.minValue ?? 0) >= 1 ? 'positive' : 'non-negative'} integer, got ${input}`);
  }
  const range = issue.code === 'too_small' || issue.code === 'too_big';
  return range ? new RangeError(`${name} ${issue.message}`) : new TypeError(`${name} ${issue.message}`);
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The schema under optional, default, transform and check wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

function objectAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodObject | undefined {
  const s = leafAt(schema, path);
  return s instanceof z.ZodObject ? s : undefined;
}

/** The schema of the value at `path` (unwrapped), or undefined when the path leads nowhere. */
function leafAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    s = s instanceof z.ZodObject ? (s.shape[key as string] as z.ZodType | undefined) : undefined;
    if (s === undefined) return undefined;
    s = unwrap(s);
  }
  return s;
}

/** The option's schema as declared (with its doc and default), at a path such as ['retry', 'maxAttempts']. */
function declaredAt(schema: z.ZodObject, path: readonly string[]): z.ZodType {
  const parent = path.length === 1 ? schema : leafAt(schema, path.slice(0, -1));
  const declared = parent instanceof z.ZodObject ? (parent.shape[path[path.length - 1] as string] as z.ZodType | undefined) : undefined;
  if (declared === undefined) throw new Error(`no option ${path.join('.')}`);
  return declared;
}

/** What an option is when it is absent: its fixed default, or who decides (undefined: neither, no default). */
export type OptionDefault = { value: string | number | boolean } | { text: string } | undefined;

export function defaultOf(schema: z.ZodObject, path: readonly string[]): OptionDefault {
  const declared = declaredAt(schema, path);
  const text = optionDocs.get(declared)?.defaultText;
  if (text !== undefined) return { text };
  let s: z.ZodType = declared;
  while (s instanceof z.ZodOptional || s instanceof z.ZodPipe) s = s instanceof z.ZodPipe ? (s.in as z.ZodType) : (s.unwrap() as z.ZodType);
  if (!(s instanceof z.ZodDefault)) return undefined;
  const value: unknown = s.def.defaultValue;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? { value } : undefined;
}

/** What the value of an option may be, as a flag's help and the docs say it: its values, or its range. */
export type OptionValues =
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'integer'; min: number; max: number | undefined }
  | { kind: 'number'; above: 0 }
  | { kind: 'boolean' }
  | { kind: 'other' };

export function valuesOf(schema: z.ZodObject, path: readonly string[]): OptionValues {
  const leaf = leafAt(schema, path);
  if (leaf instanceof z.ZodEnum) return { kind: 'enum', values: leaf.options.map(String) };
  if (leaf instanceof z.ZodBoolean) return { kind: 'boolean' };
  if (leaf instanceof z.ZodNumber) {
    if (!leaf.isInt) return { kind: 'number', above: 0 };
    const max = leaf.maxValue ?? Number.MAX_SAFE_INTEGER;
    return { kind: 'integer', min: leaf.minValue ?? 0, max: max < Number.MAX_SAFE_INTEGER ? max : undefined };
  }
  return { kind: 'other' };
}

type Paths<T> = T extends readonly unknown[] | ((...args: never[]) => unknown)
  ? never
  : T extends object
    ? { [K in keyof T & string]-?: [K] | (NonNullable<T[K]> extends infer V ? (V extends Record<string, unknown> ? (V extends readonly unknown[] ? never : [K, ...Paths<V>]) : never) : never) }[keyof T & string]
    : never;

/** A path to an engine option, nested ones included: ['maxTurns'], ['retry', 'maxAttempts']. */
type EngineOptionPath = Paths<Omit<z.input<typeof EngineOptionsSchema>, 'provider' | 'prices' | 'tools' | 'spawnTools' | 'resourceLimits'>> | ['prices'];

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
  'cache-ttl': { option: ['cacheTtl'], group: 'Provider and pool', help: 'Anthropic: the TTL of the cache breakpoints forkpool places; writes cost 1.25x for 5m, 2x for 1h' },
  threads: { option: ['threads'], group: 'Provider and pool', help: 'worker threads', overMax: 'forks wait on the network, so raise --concurrency instead' },
  concurrency: { option: ['concurrency'], group: 'Provider and pool', help: 'forks in flight' },
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
  'max-tokens-per-fork': { option: ['maxTokensPerFork'], group: 'Provider and pool', help: "token budget of each fork (a task's own maxTokens wins)" },
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
  'max-attempts': { option: ['retry', 'maxAttempts'], group: 'Reliability', help: 'attempts per model call, retries of 429/5xx/timeouts included' },
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

/** The tables of docs/options.md, one per option group, as the schemas declare them. */
export function optionTables(): string {
  const groups: [string, string, z.ZodObject, string[]][] = [
    ['Engine options', '`ForkEngine.create(options)`', EngineOptionsSchema, []],
    ['Fan-out options', '`engine.fanOut(prefix, tasks, options)`', FanOutOptionsSchema, []],
    ['Single-fork options', '`engine.runFork(prefix, task, options)`', RunForkOptionsSchema, []],
  ];
  const flagOf = new Map<string, string>(Object.entries(ENGINE_OPTION_FLAGS).map(([flag, f]) => [f.option.join('.'), flag]));
  const out: string[] = [];
  for (const [title, where, schema] of groups) {
    out.push(`## ${title}`, '', `${where}. A misspelt option is an error naming it.`, '', '| Option | Value | Default | CLI flag | What it does |', '| --- | --- | --- | --- | --- |');
    for (const path of pathsOf(schema)) {
      const declared = declaredAt(schema, path);
      const doc = optionDocs.get(declared);
      if (doc === undefined) continue;
      const flag = flagOf.get(path.join('.'));
      const cells = [`\`${path.join('.')}\``, valueText(schema, path), defaultText(defaultOf(schema, path)), flag === undefined ? '' : `\`--${flag}\``, doc.description];
      out.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Every option path of a group, nested objects' fields after their object. */
function pathsOf(schema: z.ZodObject, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  for (const key of Object.keys(schema.shape)) {
    const path = [...prefix, key];
    paths.push(path);
    const inner = leafAt(schema, [key]);
    if (inner instanceof z.ZodObject && key !== 'prices') paths.push(...pathsOf(inner, path));
  }
  return paths;
}

function valueText(schema: z.ZodObject, path: readonly string[]): string {
  const said = optionDocs.get(declaredAt(schema, path))?.valueText;
  if (said !== undefined) return said;
  const v = valuesOf(schema, path);
  switch (v.kind) {
    case 'enum':
      return v.values.map((s) => `\`'${s}'\``).join(', ');
    case 'integer':
      return `integer ≥ ${v.min}${v.max !== undefined ? `, ≤ ${v.max}` : ''}`;
    case 'number':
      return 'number > 0';
    case 'boolean':
      return 'boolean';
    case 'other': {
      const leaf = leafAt(schema, path);
      if (leaf instanceof z.ZodObject) return 'object';
      if (leaf instanceof z.ZodString) return `non-empty string${declaredAt(schema, path).safeParse(null).success ? ', or null' : ''}`;
      return '';
    }
  }
}

function defaultText(d: OptionDefault): string {
  if (d === undefined) return '';
  return 'text' in d ? d.text : `\`${typeof d.value === 'string' ? `'${d.value}'` : String(d.value)}\``;
}
