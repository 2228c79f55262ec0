/**
 * The AI SDK's own parallel `generateText` against forkpool's `forkTool` (issue 29): one AI SDK
 * agent, the same fan-out both ways, each variant in a process of its own against the local
 * server in another (Chat Completions, the `openai` usage preset: cache from 1,024 tokens in blocks
 * of 128). The agent: `generateText` on `@ai-sdk/openai`'s `createOpenAI({ baseURL, apiKey }).chat(model)`,
 * `stopWhen: stepCountIs(3)`, its conversation a system prompt of `prefixBytes` (salted per run:
 * every run starts on a cold cache), `turns` earlier user/assistant turns, then a user message
 * whose lines make the scripted model call the tool `fork` `n` times in one step
 * (`CALL fork {"directive":"REPLY fork i done"}`) and, once the results are in, answer
 * "parent done" (`REPLY parent done`; src/local-server/index.ts). Variants:
 *   ai-sdk    the tool's `execute` runs its fork itself, as a user would write it without forkpool:
 *             the AI SDK's own `generateText` in this process (all the step's calls at once: the SDK
 *             runs a step's tool calls together), on the agent's model, with the agent's system
 *             prompt and tools and, as messages, the step's messages (what `execute` gets) + an
 *             assistant message with its own call (`execute` sees no other) + a placeholder result
 *             for it + a user message holding the directive as it is. No cache warm-up (the agent's
 *             own request has just put the prefix in the cache), no worker threads.
 *   forkpool  `forkTool` (dist/src/ai-sdk) on a ForkEngine with the ai-sdk provider
 *             ({ kind: 'ai-sdk', package: '@ai-sdk/openai', factory: 'createOpenAI', method: 'chat',
 *             mode: 'generate' }, spawnTools ['fork'], `concurrency` = the largest n, so that every
 *             fork is in flight at once as in the other variant): the step's calls are gathered,
 *             the calling message rebuilt with all of them, the conversation frozen once, the step's
 *             calls one fan-out, parent-warm (all at once), the forks' loops in worker threads.
 * A warm-up agent run on a small conversation comes first (modules, JIT, sockets, the workers'
 * model), not measured: its time and CPU are the first step a fresh process sees. Measured per run: makespan (the whole agent run: its two model calls and
 * the forks), the forks' span (the first `execute` to the last one's return), the process's CPU
 * (process.cpuUsage: user + system, every thread) over the run and over the forks' span, and the
 * forks' calls' prompt and cached tokens (ai-sdk: each generateText's usage.inputTokens and
 * inputTokenDetails.cacheReadTokens; forkpool: each ForkResult's usage, through forkTool's
 * fanOut.onResult). Runs alternate as in bench/peers.ts: odd runs measure makespan and CPU alone,
 * even runs put monitorEventLoopDelay (bench/lib/measure.ts) over the same run.
 * Run by `npm run bench` (section `ai-sdk`), or alone:
 *   node --import tsx --expose-gc bench/ai-sdk.ts '{"variant":"forkpool","url":"http://127.0.0.1:PORT","prefixBytes":65536,"turns":3,"ns":[16],"runs":2,"threads":2,"timeoutMs":120000}'
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ModelMessage } from 'ai';
import type { ForkResult } from '../dist/src/index.js';
import type { AiSdkLatency } from './config.js';
import { probeMainThread } from './lib/measure.js';
import { runIfMain } from './lib/script.js';
import { prose } from './lib/session.js';

/** ai-sdk / forkpool: an AI SDK agent; agents-sdk / agents-forkpool: the same agent on the OpenAI Agents SDK (bench/openai-agents.ts). */
export const AI_SDK_VARIANTS = ['ai-sdk', 'forkpool', 'agents-sdk', 'agents-forkpool'] as const;
export type AiSdkVariant = (typeof AI_SDK_VARIANTS)[number];

export interface AiSdkJob {
  variant: AiSdkVariant;
  /** The local server's base URL (its Chat Completions route is `<url>/v1`). */
  url: string;
  /** The agent's system prompt, bytes. */
  prefixBytes: number;
  /** Earlier user/assistant turns before the message that makes the model fork. */
  turns: number;
  /** Fork calls in the agent's step, one agent run per n and run. */
  ns: readonly number[];
  /** Measured runs per n: odd ones without the loop monitor, even ones with it. */
  runs: number;
  /** forkpool's worker threads. */
  threads: number;
  /** forkpool's per-fork bound. */
  timeoutMs: number;
}

export interface AiSdkRun {
  /** monitorEventLoopDelay ran over this run (its loop figures are set; its CPU is not the client's alone). */
  monitored: boolean;
  /** The whole agent run (generateText), ms. */
  wallMs: number;
  /** From the first fork call's `execute` to the last one's return, ms. */
  forksMs: number;
  /** The process's CPU over the agent run (user + system, every thread), ms. */
  cpuMs: number;
  /** The process's CPU over the forks' span, ms. */
  forksCpuMs: number;
  /** The agent's main-thread event-loop delay over the run, ms (monitored runs). */
  loop?: { p50: number; p99: number; max: number; weightedP99: number };
  /** The forks' model calls. */
  promptTokens: number;
  cachedTokens: number;
  /** promptTokens over the step's forks: what one fork's calls sent. */
  promptTokensPerFork: number;
  /** The agent's own model calls (its two steps). */
  agentPromptTokens: number;
  agentCachedTokens: number;
}

export interface AiSdkResult {
  variant: AiSdkVariant;
  /** The packages the variant ran on, name → installed version. */
  packages: Record<string, string>;
  prefixBytes: number;
  turns: number;
  n: number;
  runs: AiSdkRun[];
  /** The process's first agent run (the warm-up: its modules, JIT, sockets and threads paid), ms: the first step a user's process sees. */
  firstRunMs: number;
  /** The process's CPU over that first agent run (user + system, every thread), ms. */
  firstRunCpuMs: number;
  /** The server's latency preset (set by bench/run.ts, which starts the server). */
  latency?: AiSdkLatency;
}

export const MODEL = 'gpt-4.1-mini';
export const KEY = 'sk-bench';
/** The variable forkpool's provider reads the key from (a descriptor names keys by variable). */
export const KEY_ENV = 'FORKPOOL_BENCH_AI_SDK_KEY';
/** What forkTool tells the model; the hand-written tool says the same, so both agents send the same bytes. */
export const DESCRIPTION =
  'Fork yourself: a copy of you with this whole conversation so far works on the directive and returns its final answer. Use it for independent pieces of work that can run in parallel; call it several times at once for several forks.';
export const DIRECTIVE_DESCRIPTION = 'What the fork is to do, in full: it sees this conversation, and acts on this directive alone.';
/** The hand-written fork's placeholder result for its call (forkpool's wording). */
export const PLACEHOLDER = 'Fork started — processing in background';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

export interface Conversation {
  system: string;
  messages: ModelMessage[];
}

/** The agent's conversation: the salt opens the system prompt (its first cache block), so every run starts cold. */
function conversation(prefixBytes: number, turns: number, n: number, salt: string): Conversation {
  const lines = [`Run ${salt}. You are the main agent: fork yourself for independent pieces of work, then answer.`];
  let size = (lines[0] as string).length;
  for (let i = 0; size < prefixBytes; i++) {
    const line = `Rule ${i}: ${prose(i + 1, 120)}.`;
    lines.push(line);
    size += line.length + 1;
  }
  const messages: ModelMessage[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push(
      { role: 'user', content: `Q${t}: ${prose(1_000 + 2 * t, 600)}` },
      { role: 'assistant', content: `A${t}: ${prose(1_001 + 2 * t, 200)}` },
    );
  }
  const calls = Array.from({ length: n }, (_, i) => `CALL fork {"directive":"REPLY fork ${i} done"}`);
  messages.push({
    role: 'user',
    content: [`Split the work into ${n} independent parts, one fork each.`, ...calls, 'REPLY parent done'].join('\n'),
  });
  return { system: lines.join('\n').slice(0, prefixBytes), messages };
}

/** One fork's model call, as the variant saw it. */
export interface ForkFigures {
  text: string;
  promptTokens: number;
  cachedTokens: number;
}

/** The fork tool's calls of one agent run, in the order they reach `execute`. */
export interface Span {
  calls: number;
  returned: number;
  t0: number;
  t1: number;
  cpu0: NodeJS.CpuUsage | undefined;
  cpu1: NodeJS.CpuUsage | undefined;
}

const newSpan = (): Span => ({ calls: 0, returned: 0, t0: 0, t1: 0, cpu0: undefined, cpu1: undefined });

/** Marks the forks' span around a tool's `execute`: from the first call to the last return. */
export function timed<A extends unknown[], X>(span: () => Span, execute: (...args: A) => Promise<X>): (...args: A) => Promise<X> {
  return async (...args) => {
    const s = span();
    if (s.calls++ === 0) {
      s.cpu0 = process.cpuUsage();
      s.t0 = performance.now();
    }
    const out = await execute(...args);
    // The step's calls all reach `execute` before any returns: the last return ends the span.
    if (++s.returned === s.calls) {
      s.t1 = performance.now();
      s.cpu1 = process.cpuUsage();
    }
    return out;
  };
}

export interface Agent {
  /** One agent run; the forks' figures by directive index. */
  run(
    c: Conversation,
    span: Span,
  ): Promise<{ text: string; outputs: unknown[]; forks: ForkFigures[]; agent: { promptTokens: number; cachedTokens: number } }>;
  close(): Promise<void>;
}

/** The directive's fork index (`REPLY fork i done`), or -1. */
export const indexOf = (directive: string): number => Number(/^REPLY fork (\d+) done$/.exec(directive)?.[1] ?? -1);

async function createAgent(job: AiSdkJob): Promise<Agent> {
  if (job.variant === 'agents-sdk' || job.variant === 'agents-forkpool') {
    const { createAgentsSdkAgent } = await import('./openai-agents.js');
    return createAgentsSdkAgent(job);
  }
  const { generateText, stepCountIs, tool } = await import('ai');
  const { createOpenAI } = await import('@ai-sdk/openai');
  const { z } = await import('zod');
  const baseURL = `${job.url.replace(/\/+$/, '')}/v1`;
  const model = createOpenAI({ baseURL, apiKey: KEY }).chat(MODEL);
  const ForkInput = z.object({ directive: z.string().min(1).describe(DIRECTIVE_DESCRIPTION) });
  let span = newSpan();
  let forks: ForkFigures[] = [];

  const agentRun = async (c: Conversation, fork: unknown): Promise<Awaited<ReturnType<Agent['run']>>> => {
    const answer = await generateText({
      model,
      system: c.system,
      tools: { fork: fork as ReturnType<typeof tool> },
      messages: c.messages,
      stopWhen: stepCountIs(3),
    });
    const usage = answer.steps.map((s) => s.usage);
    return {
      text: answer.text,
      outputs: answer.steps[0]?.toolResults.map((r) => r.output) ?? [],
      forks,
      agent: {
        promptTokens: usage.reduce((a, u) => a + (u.inputTokens ?? 0), 0),
        cachedTokens: usage.reduce((a, u) => a + (u.inputTokenDetails.cacheReadTokens ?? 0), 0),
      },
    };
  };

  if (job.variant === 'ai-sdk') {
    let system = '';
    // The hand-written fork: the step's messages, its own call, a placeholder result, the directive.
    const fork = tool({
      description: DESCRIPTION,
      inputSchema: ForkInput,
      execute: timed(
        () => span,
        async (
          { directive }: { directive: string },
          { toolCallId, messages }: { toolCallId: string; messages: ModelMessage[] },
        ): Promise<string> => {
          const result = await generateText({
            model,
            system,
            tools: { fork },
            messages: [
              ...messages,
              { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'fork', input: { directive } }] },
              {
                role: 'tool',
                content: [{ type: 'tool-result', toolCallId, toolName: 'fork', output: { type: 'text', value: PLACEHOLDER } }],
              },
              { role: 'user', content: directive },
            ],
          });
          forks[indexOf(directive)] = {
            text: result.text,
            promptTokens: result.usage.inputTokens ?? 0,
            cachedTokens: result.usage.inputTokenDetails.cacheReadTokens ?? 0,
          };
          return result.text;
        },
      ),
    });
    return {
      run: (c, s) => {
        span = s;
        forks = [];
        system = c.system;
        return agentRun(c, fork);
      },
      close: async () => {},
    };
  }

  process.env[KEY_ENV] = KEY;
  const { ForkEngine } = await import('../dist/src/index.js');
  const { forkTool } = await import('../dist/src/ai-sdk/index.js');
  const engine = await ForkEngine.create({
    provider: {
      kind: 'ai-sdk',
      package: '@ai-sdk/openai',
      factory: 'createOpenAI',
      method: 'chat',
      model: MODEL,
      mode: 'generate',
      settings: { baseURL, apiKey: { env: KEY_ENV } },
    },
    spawnTools: ['fork'],
    threads: job.threads,
    concurrency: Math.max(...job.ns),
    timeoutMs: job.timeoutMs,
  });
  let pending = new Map<string, string>();
  const onResult = (r: ForkResult): void => {
    // A fork that did not complete shows in check() as its answer.
    const text = r.status === 'completed' ? r.text : `${r.status}: ${r.error.message}`;
    forks[indexOf(pending.get(r.id) ?? '')] = { text, promptTokens: r.usage.promptTokens, cachedTokens: r.usage.cachedTokens ?? 0 };
  };
  return {
    run: (c, s) => {
      span = s;
      forks = [];
      pending = new Map();
      // A tool per agent run: it is given the agent's system prompt.
      const made = forkTool({ engine, model: MODEL, system: c.system, description: DESCRIPTION, fanOut: { onResult } });
      const fork = {
        ...made,
        execute: timed(
          () => span,
          (input: { directive: string }, options: Parameters<typeof made.execute>[1]) => {
            pending.set(options.toolCallId, input.directive);
            return made.execute(input, options);
          },
        ),
      };
      return agentRun(c, fork);
    },
    close: () => engine.close(),
  };
}

/** Installed versions, read from node_modules. */
function installed(variant: AiSdkVariant): Record<string, string> {
  const root = new URL('../', import.meta.url);
  const version = (path: string): string =>
    (JSON.parse(readFileSync(new URL(`${path}/package.json`, root), 'utf8')) as { version: string }).version;
  const forkpool: Record<string, string> = variant === 'forkpool' || variant === 'agents-forkpool' ? { forkpool: version('.') } : {};
  if (variant === 'agents-sdk' || variant === 'agents-forkpool')
    return { ...forkpool, '@openai/agents': version('node_modules/@openai/agents'), openai: version('node_modules/openai') };
  return {
    ...forkpool,
    ai: version('node_modules/ai'),
    '@ai-sdk/openai': version('node_modules/@ai-sdk/openai'),
  };
}

/** Throws unless the agent answered and every fork answered its own directive. */
function check(variant: AiSdkVariant, n: number, got: Awaited<ReturnType<Agent['run']>>, span: Span): void {
  if (got.text !== 'parent done') throw new Error(`${variant}: the agent answered ${JSON.stringify(got.text)}, not "parent done"`);
  if (span.calls !== n || span.returned !== n)
    throw new Error(`${variant}: ${span.calls} fork calls (${span.returned} returned), not ${n}`);
  for (let i = 0; i < n; i++) {
    const fork = got.forks[i];
    if (fork?.text !== `fork ${i} done`)
      throw new Error(
        `${variant}: fork ${i} answered ${JSON.stringify(fork?.text)} (the agent got ${JSON.stringify(got.outputs).slice(0, 500)})`,
      );
  }
  const wrong = got.outputs.findIndex((o) => !/^fork \d+ done$/.test(String(o)));
  if (got.outputs.length !== n || wrong >= 0)
    throw new Error(`${variant}: the agent got ${got.outputs.length} tool outputs (${JSON.stringify(got.outputs[wrong])})`);
}

const ms = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

export async function measureAiSdk(job: AiSdkJob): Promise<AiSdkResult[]> {
  const agent = await createAgent(job);
  const out: AiSdkResult[] = [];
  try {
    // Modules, JIT, sockets (and the workers' model): a small conversation of its own, not measured.
    const warmN = Math.min(4, Math.min(...job.ns));
    const warm = newSpan();
    const firstCpu = process.cpuUsage();
    const firstAt = performance.now();
    check(job.variant, warmN, await agent.run(conversation(8 * 1024, 1, warmN, `${job.variant} warm-up`), warm), warm);
    const firstRunMs = performance.now() - firstAt;
    const firstRunCpuMs = ms(process.cpuUsage(firstCpu));
    for (const n of job.ns) {
      const runs: AiSdkRun[] = [];
      for (let r = 1; r <= job.runs; r++) {
        const c = conversation(job.prefixBytes, job.turns, n, `${job.variant} n${n} r${r}`);
        const span = newSpan();
        const monitored = r % 2 === 0;
        gc();
        const probe = monitored ? await probeMainThread() : undefined;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const got = await agent.run(c, span);
        const wallMs = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        const loop = probe?.stop().loopDelay;
        check(job.variant, n, got, span);
        runs.push({
          monitored,
          wallMs,
          forksMs: span.t1 - span.t0,
          cpuMs: ms(cpu),
          forksCpuMs: span.cpu0 && span.cpu1 ? ms(span.cpu1) - ms(span.cpu0) : Number.NaN,
          ...(loop ? { loop: { p50: loop.p50, p99: loop.p99, max: loop.max, weightedP99: loop.weightedP99 } } : {}),
          promptTokens: got.forks.reduce((a, f) => a + f.promptTokens, 0),
          promptTokensPerFork: got.forks.reduce((a, f) => a + f.promptTokens, 0) / n,
          cachedTokens: got.forks.reduce((a, f) => a + f.cachedTokens, 0),
          agentPromptTokens: got.agent.promptTokens,
          agentCachedTokens: got.agent.cachedTokens,
        });
      }
      out.push({
        variant: job.variant,
        packages: installed(job.variant),
        prefixBytes: job.prefixBytes,
        turns: job.turns,
        n,
        runs,
        firstRunMs,
        firstRunCpuMs,
      });
    }
  } finally {
    await agent.close();
  }
  return out;
}

runIfMain('ai-sdk.ts', measureAiSdk);
