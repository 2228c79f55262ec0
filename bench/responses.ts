/**
 * Forks of an OpenAI Responses API session two ways (issue 30), each way in a process of its own
 * against the local server in another (the `openai` usage preset: cache from 1,024 tokens in blocks
 * of 128), through OpenAI's own provider (the openai SDK's responses.create, the run's
 * prompt_cache_key). The session (`"format": "openai-responses"`): instructions of
 * `INSTRUCTIONS_BYTES` (salted per run: every run starts on a cold cache), the bench tool, and user
 * and assistant turns up to `prefixBytes`, then a user message the scripted model answers. That
 * parent call is made first in every run, by the openai SDK with `store: true` (an agent on OpenAI's
 * defaults stores its responses), not measured; the session the forks fork is its input + its output.
 * Each fork: `CALL t {"i":i}` then `REPLY fork i done`, two model calls. Ways:
 *   re-send  a ForkEngine on its default cache ('implicit'): each fork's requests carry the parent's
 *            conversation, byte for byte up to its last item, then the fork's own items.
 *   stored   a ForkEngine with `cache: 'explicit'`, fanOut's `storedResponse` naming the parent's
 *            response: each fork's requests carry `previous_response_id` and only its own items, with
 *            the instructions, tools and settings a named response does not carry over.
 * Both ways: the engine's other defaults (warm-up auto), `concurrency` = the largest n (every fork in
 * flight at once). A warm-up run on a small session comes first (modules, JIT, sockets, workers),
 * not measured. Measured per run, from fanOut to the last result: makespan, the process's CPU
 * (process.cpuUsage: user + system, every thread), the request body bytes the server read (asked of
 * the runner, which holds the server: bench/lib/script.ts askRunner), the forks' first calls'
 * prompt and cached tokens, and the run report's efficiency. Runs alternate as in bench/peers.ts:
 * odd runs measure makespan and CPU alone, even runs put monitorEventLoopDelay over the same run.
 * Run by `npm run bench` (section `responses`; `--only responses`): not alone, since the request
 * bytes come from the runner, which holds the server.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { ForkEngine, type ForkResult, type OpenAIResponsesSession } from '../dist/src/index.js';
import type { LatencyPreset } from '../dist/src/local-server/index.js';
import { chatProvider } from './lib/chat.js';
import { probeMainThread } from './lib/measure.js';
import { askRunner, runIfMain } from './lib/script.js';
import { benchTool, KIB, makeChatSession, prose } from './lib/session.js';

export const RESPONSES_WAYS = ['re-send', 'stored'] as const;
export type ResponsesWay = (typeof RESPONSES_WAYS)[number];

/** The section's settings: what `npm run bench` and `--quick` run. */
interface ResponsesSettings {
  /** The session's JSON bytes (instructions, tools, conversation). */
  sizes: readonly number[];
  /** Forks per fan-out. */
  ns: readonly number[];
  /** Measured runs per size and n: odd ones without the loop monitor, even ones with it. */
  runs: number;
  latency: Extract<LatencyPreset, 'fast' | 'realistic'>;
}

/**
 * Quick: 32 KiB, 16 forks, one run of each kind (CPU alone, then the loop monitor) a way: two
 * processes of ~2 s. Full: 32 KiB and 320 KiB × 16 and 128 forks, 3 runs each, realistic latency
 * (every run's parent prefills its session cold: 20 s at 320 KiB).
 */
export const RESPONSES_SETTINGS: Readonly<Record<'quick' | 'full', ResponsesSettings>> = {
  quick: { sizes: [32 * KIB], ns: [16], runs: 2, latency: 'fast' },
  full: { sizes: [32 * KIB, 320 * KIB], ns: [16, 128], runs: 3, latency: 'realistic' },
};

export interface ResponsesJob extends ResponsesSettings {
  way: ResponsesWay;
  /** The local server's base URL (its Responses route is `<url>/v1/responses`). */
  url: string;
  threads: number;
  /** forkpool's per-fork bound. */
  timeoutMs: number;
}

/** What the runner answers an ask with: its server's counters so far. */
export interface ServerCounters {
  requestBytes: number;
  requests: number;
}

export interface ResponsesRun {
  /** monitorEventLoopDelay ran over this run (its loop figures are set; its CPU is not the client's alone). */
  monitored: boolean;
  /** From fanOut to the last result, ms. */
  wallMs: number;
  /** The process's CPU over it (user + system, every thread), ms. */
  cpuMs: number;
  /** Request body bytes the server read over it, and its requests (the forks' model calls). */
  requestBytes: number;
  requests: number;
  loop?: { p50: number; p99: number; max: number; weightedP99: number };
  /** The forks' first calls, summed. */
  firstPromptTokens: number;
  firstCachedTokens: number;
  /** run.report().efficiency. */
  efficiency: number | null;
  /** stored: the items each fork's first request sent (ForkResult.sent.items), the first fork's. */
  sentItems?: number;
}

export interface ResponsesResult {
  way: ResponsesWay;
  packages: Record<string, string>;
  /** The local server's latency preset. */
  latency: ResponsesSettings['latency'];
  prefixBytes: number;
  /** The session's JSON bytes, its parent's output included. */
  sessionBytes: number;
  instructionsBytes: number;
  n: number;
  runs: ResponsesRun[];
}

/** The instructions' share of the session, at most: a coding agent's system prompt is several KiB. */
const INSTRUCTIONS_BYTES = 8 * KIB;
const PARENT_ASK = 'REPLY parent done';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/**
 * The parent's session before its last call, about `prefixBytes` of JSON. The salt opens the
 * instructions and the tool's description (tools are rendered first), so no two runs share a cache entry.
 */
function parentSession(prefixBytes: number, salt: string): OpenAIResponsesSession {
  const instructionsBytes = Math.min(INSTRUCTIONS_BYTES, Math.floor(prefixBytes / 4));
  const opening = `Run ${salt}. You are the main agent: fork yourself for independent pieces of work, then answer.\n`;
  const chat = makeChatSession(prefixBytes - instructionsBytes, salt);
  const decl = benchTool.declaration;
  return {
    format: 'openai-responses',
    model: chat.model,
    instructions: opening + prose(3_000, instructionsBytes - opening.length),
    // The chat session's turns after its system message: plain user and assistant messages are Responses input items as they are.
    input: [...chat.messages.slice(1), { role: 'user', content: PARENT_ASK }] as OpenAIResponsesSession['input'],
    tools: [
      {
        type: 'function',
        name: decl.name,
        description: `${salt}: ${decl.description}`,
        parameters: decl.parametersJsonSchema,
        strict: false,
      },
    ],
    temperature: 0,
  };
}

interface Parent {
  session: OpenAIResponsesSession;
  responseId: string;
}

/** The parent's last call, stored by the API; the session the forks fork is its input + its output. */
async function callParent(url: string, prefixBytes: number, salt: string): Promise<Parent> {
  const { apiKey, baseUrl } = chatProvider(url, 'openai');
  const asked = parentSession(prefixBytes, salt);
  const { format: _format, ...body } = asked;
  const response = await new OpenAI({ baseURL: baseUrl, apiKey }).responses.create({ ...body, stream: false, store: true });
  if (response.output_text !== 'parent done')
    throw new Error(`the parent answered ${JSON.stringify(response.output_text)}, not "parent done"`);
  return {
    session: { ...asked, input: [...(asked.input as object[]), ...response.output] as OpenAIResponsesSession['input'] },
    responseId: response.id,
  };
}

const tasksOf = (n: number): { id: string; directive: string }[] =>
  Array.from({ length: n }, (_, i) => ({ id: `f${i}`, directive: `Part ${i} of the work.\nCALL t {"i":${i}}\nREPLY fork ${i} done` }));

/** Throws unless every fork answered its directive after its tool call, and sent what its way sends. */
function check(way: ResponsesWay, results: readonly ForkResult[], parent: Parent): void {
  for (const [i, r] of results.entries()) {
    const why = r.status === 'completed' ? `answered ${JSON.stringify(r.text)} in ${r.turns} turns` : `${r.status}: ${r.error.message}`;
    if (r.status !== 'completed' || r.text !== `fork ${i} done` || r.turns !== 2) throw new Error(`${way}: fork ${r.id} ${why}`);
    const named = r.sent?.storedResponse;
    if (way === 'stored' ? named !== parent.responseId : named !== undefined)
      throw new Error(`${way}: fork ${r.id} named the stored response ${String(named)}`);
  }
}

const ms = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

/** One fan-out of `n` forks over a fresh parent's session: its figures (the parent's call not among them). */
async function measureRun(
  engine: ForkEngine,
  job: ResponsesJob,
  prefixBytes: number,
  n: number,
  salt: string,
  monitored: boolean,
): Promise<{ run: ResponsesRun; parent: Parent }> {
  const parent = await callParent(job.url, prefixBytes, salt);
  const prefix = engine.freeze(parent.session);
  const tasks = tasksOf(n);
  const before = await askRunner<ServerCounters>();
  gc();
  const probe = monitored ? await probeMainThread() : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const run = engine.fanOut(prefix, tasks, job.way === 'stored' ? { storedResponse: parent.responseId } : {});
  const results = await run.results();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const loop = probe?.stop().loopDelay;
  const after = await askRunner<ServerCounters>();
  const ordered = tasks.map(({ id }) => results.find((r) => r.id === id) as ForkResult);
  check(job.way, ordered, parent);
  const first = ordered.map((r) => r.calls[0]);
  const sentItems = ordered[0]?.sent?.items;
  return {
    parent,
    run: {
      monitored,
      wallMs,
      cpuMs: ms(cpu),
      requestBytes: after.requestBytes - before.requestBytes,
      requests: after.requests - before.requests,
      ...(loop ? { loop: { p50: loop.p50, p99: loop.p99, max: loop.max, weightedP99: loop.weightedP99 } } : {}),
      firstPromptTokens: first.reduce((a, c) => a + (c?.promptTokens ?? 0), 0),
      firstCachedTokens: first.reduce((a, c) => a + (c?.cachedTokens ?? 0), 0),
      efficiency: run.report().efficiency,
      ...(sentItems !== undefined ? { sentItems } : {}),
    },
  };
}

/** Installed versions, read from node_modules. */
function installed(): Record<string, string> {
  const root = new URL('../', import.meta.url);
  const version = (path: string): string =>
    (JSON.parse(readFileSync(new URL(`${path}/package.json`, root), 'utf8')) as { version: string }).version;
  return { forkpool: version('.'), openai: version('node_modules/openai') };
}

export async function measureResponses(job: ResponsesJob): Promise<ResponsesResult[]> {
  const engine = await ForkEngine.create({
    provider: chatProvider(job.url, 'openai'),
    ...(job.way === 'stored' ? { cache: 'explicit' as const } : {}),
    threads: job.threads,
    concurrency: Math.max(...job.ns),
    tools: [benchTool],
    timeoutMs: job.timeoutMs,
  });
  const out: ResponsesResult[] = [];
  try {
    // Modules, JIT, sockets and the workers: a small session of its own, not measured.
    await measureRun(engine, job, 8 * KIB, Math.min(4, ...job.ns), `${job.way} warm-up`, false);
    for (const prefixBytes of job.sizes) {
      for (const n of job.ns) {
        const runs: ResponsesRun[] = [];
        let parent: Parent | undefined;
        for (let r = 1; r <= job.runs; r++) {
          const got = await measureRun(engine, job, prefixBytes, n, `${job.way} ${prefixBytes} n${n} r${r}`, r % 2 === 0);
          runs.push(got.run);
          parent = got.parent;
        }
        const session = parent?.session;
        out.push({
          way: job.way,
          packages: installed(),
          latency: job.latency,
          prefixBytes,
          sessionBytes: Buffer.byteLength(JSON.stringify(session)),
          instructionsBytes: Buffer.byteLength(session?.instructions ?? ''),
          n,
          runs,
        });
      }
    }
  } finally {
    await engine.close();
  }
  return out;
}

runIfMain('responses.ts', measureResponses);
