/**
 * Peers in the same run (issue 24): one fan-out through real agent frameworks on their own SDK
 * paths and through forkpool, each client in a process of its own against the local model server
 * (another process, OpenAI Chat Completions, the `openai` usage preset). The fan-out: `n` forks of
 * one conversation (an OpenAI-shaped parent session of the prefix size, bench/lib/session.ts),
 * each one model call with its own directive (`REPLY done`: the scripted model answers "done"),
 * `concurrency` in flight. Every client sends the parent's messages, the bench tool's declaration
 * and, as the last user message, the fork's child message for its directive as forkpool words it
 * (so the requests carry the same content). Clients:
 *   forkpool       ForkEngine (openai provider at the server's /v1, its defaults: warm-up auto): freeze, then fanOut
 *   langgraph      LangGraph JS map-reduce: a StateGraph whose start edge returns one `Send` per directive to a
 *                  node that calls ChatOpenAI (@langchain/openai, tool bound) on the parent's messages plus its
 *                  own; invoked with `maxConcurrency`
 *   ai-sdk         the Vercel AI SDK: `generateText` on `createOpenAI(…).chat(model)` (Chat Completions), `concurrency` at a time
 *   openai-agents  the OpenAI Agents SDK: `Runner.run` of an Agent on its Chat Completions model
 *                  (OpenAIProvider `useResponses: false`, tracing off), `concurrency` at a time
 * Each measured run has a session of its own (its salt opens the system message), so it starts on
 * a cold cache. A warm-up fan-out on a small session comes first (modules, JIT, sockets, forkpool's
 * workers), not measured. A peer's conversation in its framework's own types (messages, items) is
 * the caller's input: made before the measured part; forkpool's freeze is inside it.
 * Runs alternate: odd runs measure makespan and process CPU alone; even runs put
 * monitorEventLoopDelay (bench/lib/measure.ts) over the same fan-out: its 1 ms timers cost more CPU
 * over a long, mostly idle fan-out than the clients' own work, so CPU comes from the runs without it.
 * Cache efficiency = cached prompt tokens / the theoretical maximum, estimated the engine's way
 * for every client (src/engine/cache-figures.ts: the first fork meets a cold cache; every other
 * fork's first call could reuse the tokens it shares with its siblings, as a share of characters
 * of its request, in the provider's blocks and above its minimum); forkpool's own report beside it.
 * Run by `npm run bench` (section `peers`), or alone:
 *   node --import tsx --expose-gc bench/peers.ts '{"client":"ai-sdk","url":"http://127.0.0.1:PORT","sizes":[65536],"n":16,"concurrency":16,"threads":2,"runs":2,"timeoutMs":120000}'
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentInputItem } from '@openai/agents';
import type { ModelMessage } from 'ai';
import type { RunReport } from '../dist/src/index.js';
import { callMaxima, type CacheRules } from '../dist/src/engine/cache-figures.js';
import { buildChildMessage } from '../dist/src/wording/child-message.js';
import type { OpenAIChatSession } from '../dist/src/shapes/openai-chat/schema.js';
import { chatProvider } from './lib/chat.js';
import { probeMainThread } from './lib/measure.js';
import { runIfMain } from './lib/script.js';
import { benchTool, makeChatSession } from './lib/session.js';

export const PEER_CLIENTS = ['forkpool', 'langgraph', 'ai-sdk', 'openai-agents'] as const;
export type PeerClient = (typeof PEER_CLIENTS)[number];

export interface PeersJob {
  client: PeerClient;
  /** The local server's base URL (its Chat Completions route is `<url>/v1`). */
  url: string;
  sizes: readonly number[];
  /** Forks per fan-out. */
  n: number;
  /** Forks (model calls) in flight, for every client. */
  concurrency: number;
  /** forkpool's worker threads. */
  threads: number;
  /** Measured runs per size: odd ones without the loop monitor, even ones with it. */
  runs: number;
  /** forkpool's per-fork bound. */
  timeoutMs: number;
  /** The engine's cache rules for the server's provider (its plan's), for the theoretical maximum; made by the caller, so no client loads the engine for them. */
  rules: CacheRules;
}

/** One fork's model call, as the client reported it. */
interface ForkFigures {
  text: string;
  promptTokens: number;
  /** null: the client's result did not say. */
  cachedTokens: number | null;
  outputTokens: number;
}

export interface PeerRun {
  /** monitorEventLoopDelay ran over this fan-out (its loop figures are set; its CPU is not the client's alone). */
  monitored: boolean;
  wallMs: number;
  /** Client process CPU over the fan-out (user + system, all threads), ms. */
  cpuMs: number;
  /** Main-thread event-loop delay over the fan-out, ms (monitored runs). */
  loop?: { p50: number; p99: number; max: number; weightedP99: number };
  promptTokens: number;
  cachedTokens: number;
  /** The sum of the forks' maxima (the estimate above). */
  theoreticalTokens: number;
  /** forkpool: its own report's figures. */
  report?: { cachedTokens: number | null; theoreticalCachedTokens: number; efficiency: number | null };
}

export interface PeersResult {
  client: PeerClient;
  /** The packages the client ran on, name → installed version. */
  packages: Record<string, string>;
  prefixBytes: number;
  /** The session's JSON bytes. */
  sessionBytes: number;
  n: number;
  concurrency: number;
  runs: PeerRun[];
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const directive = (i: number): string => `Summarize part ${i} of the history in one line.\nREPLY done`;

type Message = OpenAIChatSession['messages'][number];
/** The parent's messages as plain role and text (makeChatSession writes nothing else). */
const plain = (m: Message): { role: string; content: string } => ({
  role: m.role,
  content: String((m as { content?: unknown }).content ?? ''),
});

interface Fanned {
  forks: ForkFigures[];
  report?: RunReport;
}

interface Client {
  /** Makes the caller's input for this session and these directives; returns the measured fan-out. */
  prepare(session: OpenAIChatSession, directives: readonly string[]): () => Promise<Fanned>;
  close(): Promise<void>;
}

/** `n` calls, `limit` at a time, their results in call order. */
async function pooled<T>(n: number, limit: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let taken = 0;
  const worker = async (): Promise<void> => {
    for (let i = taken++; i < n; i = taken++) out[i] = await call(i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
  return out;
}

/** What each client runs on: its own packages, and the `openai` SDK copy it calls through (forkpool: the project's). */
const PACKAGES: Readonly<Record<PeerClient, readonly string[]>> = {
  forkpool: ['openai'],
  langgraph: ['@langchain/langgraph', '@langchain/core', '@langchain/openai', '@langchain/openai/node_modules/openai'],
  'ai-sdk': ['ai', '@ai-sdk/openai'],
  'openai-agents': ['@openai/agents', '@openai/agents-openai/node_modules/openai'],
};

/** Installed versions, read from node_modules (a nested copy named by its path: `a/node_modules/b`). */
function installed(client: PeerClient): Record<string, string> {
  const root = new URL('../', import.meta.url);
  const version = (path: string): string =>
    (JSON.parse(readFileSync(new URL(`${path}/package.json`, root), 'utf8')) as { version: string }).version;
  // A nested copy that npm hoisted after all is the top-level one.
  const read = (path: string): string => {
    try {
      return version(`node_modules/${path}`);
    } catch {
      return version(`node_modules/${path.replace(/^.*node_modules\//, '')}`);
    }
  };
  return Object.fromEntries([
    ...(client === 'forkpool' ? [['forkpool', version('.')]] : []),
    ...PACKAGES[client].map((path) => [path.replace(/^.*node_modules\//, ''), read(path)]),
  ]);
}

const decl = benchTool.declaration;
/** The model every session of the bench names (the peers' models are made before their sessions). */
const { model: MODEL } = makeChatSession(0, 'model');
const toolSchema = decl.parametersJsonSchema as Record<string, unknown>;

async function createClient(job: PeersJob): Promise<Client> {
  // The key and Chat Completions base URL forkpool's own runs use for this server (bench/lib/chat.ts).
  const provider = chatProvider(job.url, 'openai');
  const { apiKey, baseUrl: baseURL } = provider;
  switch (job.client) {
    case 'forkpool': {
      const { ForkEngine } = await import('../dist/src/index.js');
      const engine = await ForkEngine.create({
        provider,
        threads: job.threads,
        concurrency: job.concurrency,
        tools: [benchTool],
        timeoutMs: job.timeoutMs,
      });
      return {
        prepare(session, directives) {
          const tasks = directives.map((d, i) => ({ id: `f${i}`, directive: d }));
          return async () => {
            const run = engine.fanOut(engine.freeze(session), tasks);
            const results = await run.results();
            const forks = results.map((r) => {
              if (r.status !== 'completed' || r.calls.length !== 1) {
                const why = r.status === 'completed' ? `${r.calls.length} calls` : `${r.status}: ${r.error.message}`;
                throw new Error(`forkpool: fork ${r.id} did not complete in one call (${why})`);
              }
              return {
                text: r.text,
                promptTokens: r.usage.promptTokens,
                cachedTokens: r.usage.cachedTokens,
                outputTokens: r.usage.outputTokens,
              };
            });
            return { forks, report: run.report() };
          };
        },
        close: () => engine.close(),
      };
    }
    case 'langgraph': {
      const { ChatOpenAI } = await import('@langchain/openai');
      const { AIMessage, HumanMessage, SystemMessage } = await import('@langchain/core/messages');
      const { Annotation, END, Send, START, StateGraph } = await import('@langchain/langgraph');
      const model = new ChatOpenAI({ model: MODEL, apiKey, temperature: 0, configuration: { baseURL } }).bindTools([
        { type: 'function', function: { name: decl.name, description: decl.description, parameters: toolSchema } },
      ]);
      const State = Annotation.Root({
        messages: Annotation<BaseMessage[]>(),
        directives: Annotation<string[]>(),
        results: Annotation<ForkFigures[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      });
      const Fork = Annotation.Root({ messages: Annotation<BaseMessage[]>(), directive: Annotation<string>() });
      const graph = new StateGraph(State)
        .addNode('fork', async (fork: typeof Fork.State) => {
          const reply = await model.invoke([...fork.messages, new HumanMessage(buildChildMessage(fork.directive))]);
          const usage = reply.usage_metadata;
          const figures: ForkFigures = {
            text: typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content),
            promptTokens: usage?.input_tokens ?? 0,
            cachedTokens: usage?.input_token_details?.cache_read ?? null,
            outputTokens: usage?.output_tokens ?? 0,
          };
          return { results: [figures] };
        })
        .addConditionalEdges(START, (state: typeof State.State) =>
          state.directives.map((d) => new Send('fork', { messages: state.messages, directive: d })),
        )
        .addEdge('fork', END)
        .compile();
      return {
        prepare(session, directives) {
          const messages = session.messages
            .map(plain)
            .map((m) =>
              m.role === 'system'
                ? new SystemMessage(m.content)
                : m.role === 'assistant'
                  ? new AIMessage(m.content)
                  : new HumanMessage(m.content),
            );
          return async () => {
            const out = await graph.invoke({ messages, directives: [...directives] }, { maxConcurrency: job.concurrency });
            return { forks: out.results };
          };
        },
        close: async () => {},
      };
    }
    case 'ai-sdk': {
      const { generateText, jsonSchema, tool } = await import('ai');
      const { createOpenAI } = await import('@ai-sdk/openai');
      const model = createOpenAI({ baseURL, apiKey }).chat(MODEL);
      const tools = { [decl.name]: tool({ description: decl.description, inputSchema: jsonSchema(toolSchema) }) };
      return {
        prepare(session, directives) {
          // The system message as the SDK asks for it (`system`; in `messages` it warns on every call).
          const [first, ...rest] = session.messages.map(plain);
          const system = first?.role === 'system' ? first.content : undefined;
          const messages = (system === undefined ? session.messages.map(plain) : rest) as ModelMessage[];
          return async () => ({
            forks: await pooled(directives.length, job.concurrency, async (i) => {
              const result = await generateText({
                model,
                ...(system !== undefined ? { system } : {}),
                messages: [...messages, { role: 'user', content: buildChildMessage(directives[i] as string) }],
                tools,
                temperature: 0,
              });
              return {
                text: result.text,
                promptTokens: result.usage.inputTokens ?? 0,
                cachedTokens: result.usage.inputTokenDetails.cacheReadTokens ?? null,
                outputTokens: result.usage.outputTokens ?? 0,
              };
            }),
          });
        },
        close: async () => {},
      };
    }
    case 'openai-agents': {
      // No trace leaves this process: the SDK's default exporter posts to OpenAI's API.
      process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
      const { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } = await import('@openai/agents');
      setTracingDisabled(true);
      const models = new OpenAIProvider({ apiKey, baseURL, useResponses: false });
      const runner = new Runner({ modelProvider: models, tracingDisabled: true });
      const agent = new Agent({
        name: 'fork',
        model: MODEL,
        modelSettings: { temperature: 0 },
        tools: [
          tool({
            name: decl.name,
            description: decl.description,
            parameters: {
              type: 'object',
              properties: toolSchema.properties as Record<string, never>,
              required: toolSchema.required as string[],
              additionalProperties: true,
            },
            strict: false,
            execute: () => 'unused',
          }),
        ],
      });
      return {
        prepare(session, directives) {
          const items = session.messages
            .map(plain)
            .map(
              (m): AgentInputItem =>
                (m.role === 'assistant'
                  ? { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: m.content }] }
                  : { role: m.role, content: m.content }) as AgentInputItem,
            );
          return async () => ({
            forks: await pooled(directives.length, job.concurrency, async (i) => {
              const result = await runner.run(agent, [
                ...items,
                { role: 'user', content: buildChildMessage(directives[i] as string) } as AgentInputItem,
              ]);
              const usage = result.state.usage;
              const cached = usage.inputTokensDetails.map((d) => d.cached_tokens).filter((v): v is number => typeof v === 'number');
              return {
                text: String(result.finalOutput ?? ''),
                promptTokens: usage.inputTokens,
                cachedTokens: cached.length > 0 ? cached.reduce((a, b) => a + b, 0) : null,
                outputTokens: usage.outputTokens,
              };
            }),
          });
        },
        close: () => models.close(),
      };
    }
  }
}

/**
 * The most each fork's call could have been served from the cache, summed: the engine's maxima
 * (callMaxima) with the first fork cold and every other one a sibling, whose shared tokens are its
 * prompt tokens times the share of its request's characters that come before its directive.
 */
function theoreticalTokens(
  session: OpenAIChatSession,
  directives: readonly string[],
  forks: readonly ForkFigures[],
  rules: CacheRules,
): number {
  // What every fork's request has before its directive: the tools, the parent's messages, the child message's opening.
  const head = JSON.stringify({ tools: session.tools, messages: session.messages }).length + buildChildMessage('').length;
  let total = 0;
  forks.forEach((fork, i) => {
    const share = head / (head + JSON.stringify(directives[i]).length);
    const call = {
      promptTokens: fork.promptTokens,
      outputTokens: fork.outputTokens,
      cachedTokens: fork.cachedTokens,
      sharedTokens: Math.round(fork.promptTokens * share),
    };
    total += callMaxima([call], i === 0 ? 'cold' : 'sibling', rules)[0] ?? 0;
  });
  return total;
}

export async function measurePeers(job: PeersJob): Promise<PeersResult[]> {
  const client = await createClient(job);
  const directives = Array.from({ length: job.n }, (_, i) => directive(i));
  const out: PeersResult[] = [];
  const answered = (got: Fanned): Fanned => {
    const wrong = got.forks.findIndex((f) => f.text !== 'done');
    if (wrong >= 0) throw new Error(`${job.client}: fork ${wrong} answered ${JSON.stringify(got.forks[wrong]?.text)}, not "done"`);
    return got;
  };
  try {
    // Modules, JIT, sockets (and forkpool's workers): a small session of its own, not measured.
    answered(await client.prepare(makeChatSession(8 * 1024, `${job.client} warm-up`), directives.slice(0, job.concurrency))());
    for (const prefixBytes of job.sizes) {
      const runs: PeerRun[] = [];
      let sessionBytes = 0;
      for (let r = 1; r <= job.runs; r++) {
        const session = makeChatSession(prefixBytes, `${job.client} ${prefixBytes} r${r}`);
        sessionBytes = JSON.stringify(session).length;
        const measured = client.prepare(session, directives);
        const monitored = r % 2 === 0;
        gc();
        const probe = monitored ? await probeMainThread() : undefined;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const got = await measured();
        const wallMs = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        const loop = probe?.stop().loopDelay;
        const { forks, report } = answered(got);
        runs.push({
          monitored,
          wallMs,
          cpuMs: (cpu.user + cpu.system) / 1000,
          ...(loop ? { loop: { p50: loop.p50, p99: loop.p99, max: loop.max, weightedP99: loop.weightedP99 } } : {}),
          promptTokens: forks.reduce((a, f) => a + f.promptTokens, 0),
          cachedTokens: forks.reduce((a, f) => a + (f.cachedTokens ?? 0), 0),
          theoreticalTokens: theoreticalTokens(session, directives, forks, job.rules),
          ...(report
            ? {
                report: {
                  cachedTokens: report.cachedTokens,
                  theoreticalCachedTokens: report.theoreticalCachedTokens,
                  efficiency: report.efficiency,
                },
              }
            : {}),
        });
      }
      out.push({
        client: job.client,
        packages: installed(job.client),
        prefixBytes,
        sessionBytes,
        n: job.n,
        concurrency: job.concurrency,
        runs,
      });
    }
  } finally {
    await client.close();
  }
  return out;
}

runIfMain('peers.ts', measurePeers);
