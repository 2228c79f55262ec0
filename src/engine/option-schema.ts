/**
 * The engine's options, declared once. Each option group is one zod schema, here, each option
 * registered with its doc (`option`, option-doc.ts). From them come the library's checks and their
 * messages (`optionsOf`, option-check.ts), the option types (engine/options.ts), the defaults and
 * values (`defaultOf`, `valuesOf`, option-read.ts: the defaults the engine applies are the ones
 * help and docs show), the CLI's engine flags (`ENGINE_OPTION_FLAGS`, option-flags.ts) and the
 * tables of docs/options.md (`optionTables`, option-tables.ts; a test fails when the file differs).
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { CachePlan } from '../model/plan.js';
import { PriceTableSchema } from '../model/prices.js';
import type { ProviderOption } from '../model/providers/options.js';
import { DEFAULT_RETRY } from '../model/types.js';
import type { ForkTask } from '../session/schema.js';
import type { Tool } from '../tools/define.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ForkEnd } from './report.js';
import type { WorkerEvent } from '../result/fork-events.js';
import type { TranscriptTarget } from '../transcript/target.js';
import { option } from './option-doc.js';
import { abortSignal, callGate, count, fn, MAX_TIMER_MS, nonEmptyString, positiveNumber, traceParent } from './option-kinds.js';

/** Every worker starts at once with its own V8 heap; forks wait on the network, so concurrency scales instead. */
const MAX_THREADS = 256;

const RetrySchema = z
  .strictObject({
    maxAttempts: option(count(1).default(DEFAULT_RETRY.maxAttempts), {
      description: 'Attempts per model call, the first included (retries of 429s, 5xx and timeouts).',
    }),
    baseDelayMs: option(count(0, MAX_TIMER_MS).default(DEFAULT_RETRY.baseDelayMs), {
      description: 'The first back-off between attempts, ms; it doubles with each retry (with jitter).',
    }),
    maxDelayMs: option(count(0, MAX_TIMER_MS).default(DEFAULT_RETRY.maxDelayMs), {
      description: 'The longest back-off between attempts, ms.',
    }),
    forkBudget: option(count(0).optional(), {
      description: 'Retries one fork may spend over all its model calls.',
      defaultText: 'unbounded; only `maxAttempts` bounds them',
    }),
  })
  .check((ctx) => {
    const { baseDelayMs, maxDelayMs } = ctx.value;
    if (typeof baseDelayMs === 'number' && typeof maxDelayMs === 'number' && baseDelayMs > maxDelayMs) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        path: ['baseDelayMs'],
        message: `(${baseDelayMs}) must not exceed options.retry.maxDelayMs (${maxDelayMs})`,
        params: { range: true },
      });
    }
  });

const RateLimitSchema = z.strictObject({
  requestsPerMinute: option(count(1).optional(), {
    description: 'Model requests per minute across every fork of the engine.',
    defaultText: 'unbounded',
  }),
  tokensPerMinute: option(count(1).optional(), {
    description: 'Tokens (prompt + output) per minute across every fork of the engine.',
    defaultText: 'unbounded',
  }),
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
    valueText: 'object',
    description:
      "The model provider: `{ kind: 'local' | 'gemini' | 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible' | 'anthropic' | 'ai-sdk', … }`, or a provider module of one's own (`{ kind, module }`). Required.",
  }),
  threads: option(
    count(1, MAX_THREADS)
      .optional()
      .transform((n) => n ?? defaultThreads()),
    { description: 'Worker threads.', defaultText: `the number of cores, at most ${MAX_THREADS}` },
  ),
  concurrency: option(count(1).default(64), { description: 'Forks in flight across the pool.' }),
  // 'ahead' by default: the pool starts its threads at once either way, so waiting for them costs the
  // caller nothing it would not pay at its first fork; only the provider's SDK in every thread is extra
  // (Node 20: ~150–250 ms of CPU for @google/genai in a thread a one-fork run leaves idle; it loads
  // beside the busy thread's, so no wall time), and a run of as many forks as threads uses it.
  startThreads: option(z.enum(['ahead', 'on-demand']).default('ahead'), {
    description:
      "'ahead': `ForkEngine.create` resolves once every worker thread has loaded the fork worker and the provider's SDK, so the first fork does not wait for them; 'on-demand': it resolves at once and each thread loads them as its first fork arrives.",
  }),
  tools: option(
    z
      .custom<readonly Tool[]>((value) => Array.isArray(value) && value.every((tool) => typeof tool === 'object' && tool !== null), {
        error: 'must be an array of tools made with defineTool',
      })
      .default([]),
    { valueText: 'array of tools', description: 'Tools the forks may call (made with `defineTool`), run on the main thread.' },
  ),
  warmup: option(z.enum(['auto', 'none']).default('auto'), {
    description:
      "'auto': where the provider's cache needs a first response before others can hit it, one fork goes first and the rest follow its first response; 'none': all at once.",
  }),
  cache: option(z.enum(['implicit', 'explicit', 'off']).default('implicit'), {
    description:
      "How forks use the provider's cache: its implicit prefix cache, an explicit cache forkpool creates for the run (Gemini; Anthropic breakpoints), or none.",
  }),
  maxTurns: option(count(1).default(200), { description: "Model turns per fork (a task's own `maxTurns` wins)." }),
  timeoutMs: option(count(1, MAX_TIMER_MS).optional(), { description: 'Per-fork time limit, ms.', defaultText: 'none' }),
  history: option(z.enum(['inherit', 'completed-turns']).default('inherit'), {
    description:
      "Which history forks start from when their task does not say: the parent's whole conversation, or its completed turns only.",
  }),
  staggerCapMs: option(count(0, MAX_TIMER_MS).default(5_000), {
    description: 'Warm-up releases the other forks after this long even without a first response, ms.',
  }),
  minCacheTokens: option(count(0).optional(), {
    description: "The provider's minimum cacheable prefix, in tokens.",
    defaultText: "the provider's documented minimum for the model; OpenAI 1024, Gemini and Anthropic by model",
  }),
  cacheBlockTokens: option(count(1).optional(), {
    description: 'The provider caches in steps of this many tokens.',
    defaultText: "the provider's; OpenAI 128, DeepSeek 64, others 1",
  }),
  cacheBuildMs: option(count(0, MAX_TIMER_MS).optional(), {
    description:
      'How long after a response has begun its prefix can be read, ms (DeepSeek builds its cache in seconds): warm-up waits this long more, and a parent-warm fan-out this long from its start.',
    defaultText: "the provider's; DeepSeek 3000, others 0",
  }),
  cacheTtl: option(z.enum(['5m', '1h']).default('5m'), {
    description: "Anthropic: the TTL of the cache breakpoints forkpool places ('5m': writes cost 1.25×; '1h': 2×).",
  }),
  callTimeoutMs: option(count(1, MAX_TIMER_MS).optional(), {
    description: 'Per-attempt bound on one model HTTP call, ms.',
    defaultText: 'none',
  }),
  retry: option(RetrySchema.optional(), { description: 'Back-off and attempts per model call, and retries per fork.' }),
  globalRetryBudget: option(count(0).optional(), {
    description: 'Retries the whole engine may spend, across forks.',
    defaultText: 'unbounded',
  }),
  rateLimit: option(RateLimitSchema.optional(), { description: 'Requests and tokens per minute across every fork of the engine.' }),
  resourceLimits: option(ResourceLimitsSchema.optional(), {
    description: "Worker thread limits (node:worker_threads' resourceLimits): a worker over them dies and only its forks fail.",
  }),
  spawnTools: option(
    z
      .custom<readonly string[]>((value) => Array.isArray(value) && value.every((name) => typeof name === 'string' && name !== ''), {
        error: 'must be an array of tool names',
      })
      .default([]),
    { valueText: 'array of strings', description: 'Extra tool names that would start an agent: refused in forks like `agent`.' },
  ),
  maxTokens: option(count(1).optional(), {
    description:
      'Tokens (prompt + output, as the provider reports them) one fan-out may spend. Once spent, queued forks end cancelled (kind "budget") and running forks end before their next model call.',
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
  telemetry: option(TelemetrySchema.default({}), {
    description: "OpenTelemetry: what the spans carry (spans and metrics go to the application's registered providers).",
  }),
});

function defaultThreads(): number {
  return Math.min(availableParallelism(), MAX_THREADS);
}

/** `ForkEngine.fanOut`'s options. */
export const FanOutOptionsSchema = z.strictObject({
  parentWarm: option(z.boolean().default(false), {
    description: 'The parent has just sent this prefix (always so inside runParentAgent): no fork waits, and the first can hit its cache.',
  }),
  retainResults: option(z.boolean().default(true), {
    description:
      'false: each result goes to `onResult` listeners and is then dropped, so memory stays flat however many forks run; `results()` is unavailable and the report has totals, no per-fork rows.',
  }),
  promptCacheKey: option(
    z
      .string({ error: 'must be a non-empty string, or null for none' })
      .min(1, { error: 'must be a non-empty string, or null for none' })
      .nullable()
      .optional(),
    {
      description:
        "OpenAI: the `prompt_cache_key` every fork request carries, so all forks route to the same cache. Pass the key an outside parent already uses, so the forks land where the parent's cache is; null when that parent sends none. Providers without such a key ignore it.",
      defaultText: 'the prefix id; with `storedResponse`, none (forks route as the parent did)',
    },
  ),
  storedResponse: option(nonEmptyString('a response id (a non-empty string)').optional(), {
    description:
      "OpenAI's Responses API: the id of the parent's last response, stored by OpenAI (`store: true`). With `cache: 'explicit'`, each fork whose seed holds the parent's conversation unchanged names it (`previous_response_id`) and sends only its own items.",
    defaultText: 'none',
  }),
  onResponseStart: option(fn<(taskId: string, turn: number) => void>().optional(), {
    valueText: 'function',
    description: "Told when a fork's model response has begun, on every turn (turn 1: its first).",
  }),
  tools: option(
    z
      .custom<readonly Tool[]>((value) => Array.isArray(value) && value.every((tool) => typeof tool === 'object' && tool !== null), {
        error: 'must be an array of tools made with defineTool',
      })
      .optional(),
    {
      valueText: 'array of tools',
      description:
        "Tools this fan-out's forks may call besides the engine's (an agent's own, as its fork tool gives them); of two with one name, this one.",
      defaultText: 'none',
    },
  ),
  onResult: option(fn<(result: ForkResult, task: ForkTask, end: ForkEnd) => void>().optional(), {
    valueText: 'function',
    description:
      'Called once per fork, the moment its result exists, with the task it ran and its cache figures and tool calls: the same as `run.onResult(listener)` before the run starts.',
  }),
  callGate: option(callGate().optional(), {
    valueText: 'object (acquire, release)',
    description:
      "The gate every model call of this fan-out passes instead of the engine's own (its rate limits, in-flight bound and retry budget).",
    defaultText: "the engine's",
  }),
  transcripts: option(
    z
      .strictObject({
        dir: option(nonEmptyString('a folder (a non-empty string)'), {
          description: 'The folder of the transcripts, one `<task id>.jsonl` per task.',
        }),
        resume: option(z.boolean().optional(), {
          description: 'A fork whose transcript exists continues from its last completed turn.',
          defaultText: 'false',
        }),
      })
      .optional(),
    {
      description:
        "Writes each fork's transcript as it goes (a completed fork can then be revived with `run.send`). In a distributed run, `dir` must be a folder every worker shares.",
      defaultText: 'none',
    },
  ),
  traceParent: option(traceParent().optional(), {
    valueText: 'OpenTelemetry Context',
    description: "OpenTelemetry: the context the fan-out's span goes under.",
    defaultText: 'the active one',
  }),
  parentAgentId: option(nonEmptyString('a non-empty string').optional(), {
    description: "OpenTelemetry: the agent whose conversation the forks continue, on each fork's span (`forkpool.parent_agent.id`).",
    defaultText: 'none',
  }),
  signal: option(abortSignal().optional(), {
    valueText: 'AbortSignal',
    description:
      'Aborting it cancels the whole fan-out, as `run.cancelAll()` does: queued forks end `cancelled` at once, running ones through their cancel; already aborted, no fork starts.',
    defaultText: 'none',
  }),
});

/** `ForkEngine.runFork`'s options. */
export const RunForkOptionsSchema = z.strictObject({
  plan: option(
    z.custom<CachePlan>((value) => value !== null && typeof value === 'object', { error: 'must be a cache plan (an object)' }).optional(),
    {
      valueText: 'object (a CachePlan)',
      description: "The cache plan its requests follow (a coordinator's), when it is this engine's provider's.",
      defaultText: "this engine's own for the prefix",
    },
  ),
  callGate: option(callGate().optional(), {
    valueText: 'object (acquire, release)',
    description: 'The gate its model calls go through.',
    defaultText: "the engine's",
  }),
  onEvent: option(fn<(event: WorkerEvent) => void>().optional(), {
    valueText: 'function',
    description: "Its events as the worker reports them: the first bytes of each response, each turn's usage.",
  }),
  transcript: option(
    z
      .custom<TranscriptTarget>(
        (value) => value !== null && typeof value === 'object' && typeof (value as { path?: unknown }).path === 'string',
        {
          error: 'must be a transcript target ({ path, continueFrom? })',
        },
      )
      .optional(),
    {
      valueText: 'object (path, continueFrom?)',
      description: 'Its transcript, written here as it goes (and continued from, when the target says so).',
      defaultText: 'none',
    },
  ),
  traceParent: option(traceParent().optional(), {
    valueText: 'OpenTelemetry Context',
    description: "The span its tool calls' spans go under; absent, none are recorded.",
    defaultText: 'none',
  }),
  onCallsInFlight: option(fn<(calls: number) => void>().optional(), {
    valueText: 'function',
    description: "Told the fork's model calls in flight as each starts and ends.",
  }),
});
