/**
 * A fork's model call against the physical floor (issue 24): the client CPU per call of one
 * client, in a process of its own, posting Gemini streamGenerateContent requests to the sink
 * (bench/lib/sink.ts, another process), `inFlight` calls at a time. The request is a Gemini-shaped
 * parent session (bench/lib/session.ts) of each prefix size plus one user message: the fork's
 * child message for its directive, as forkpool words it. Clients:
 *   node-http      node:http (keep-alive agent) posting a prepared Buffer of the bytes the SDK sends
 *   fetch          the global fetch posting the same bytes, as the string the SDK hands its fetch
 *   sdk            @google/genai in-process, its default transport (models.generateContentStream)
 *   sdk+transport  the same SDK given forkpool's node:http transport through its `fetch` hook
 *   forkpool       ForkEngine (gemini provider at the sink): freeze, then a fan-out of one-call forks
 * Per prefix size: a warm-up batch, then `runs` measured runs of `calls` calls. Client CPU per
 * call = process.cpuUsage() (user + system: every thread of the process, workers included) over
 * the measured part / calls; the sink's CPU over the same part comes from its GET /cpu. Each run
 * has a session of its own (its system instruction names the run), so forkpool's workers decode
 * each run's prefix as a real run would. Throws when any call fails or when the sink did not see
 * exactly one request per call. Run by `npm run bench` (section `floor`), or alone:
 *   node --import tsx --expose-gc bench/floor.ts '{"client":"sdk","url":"http://127.0.0.1:PORT","sizes":[16384],"calls":48,"warmupCalls":16,"jitWarmupCalls":500,"runs":3,"inFlight":16,"threads":2}'
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { GoogleGenAI, type GenerateContentParameters } from '@google/genai';
import { buildChildMessage } from '../dist/src/protocol.js';
import type { ForkResult, GeminiSession } from '../dist/src/index.js';
import { runIfMain } from './lib/script.js';
import { benchTool, makeSession } from './lib/session.js';
import type { SinkMetrics } from './lib/sink.js';

export const FLOOR_CLIENTS = ['node-http', 'fetch', 'sdk', 'sdk+transport', 'forkpool'] as const;
export type FloorClient = (typeof FLOOR_CLIENTS)[number];

export interface FloorJob {
  client: FloorClient;
  /** What the runs are for: the CPU table, or the throughput rows (more calls per run). Carried into the results. */
  purpose: 'cpu' | 'throughput';
  /** The sink's base URL. */
  url: string;
  sizes: readonly number[];
  /** Calls per measured run. */
  calls: number;
  /** Calls of the warm-up batch before each size's runs. */
  warmupCalls: number;
  /**
   * Calls at the first size before anything is measured: the code compiled. V8 optimizes a path
   * after thousands of calls, and forkpool's fork loop runs in every worker isolate, each compiled
   * on its own (the scaling curve: consecutive fan-outs of 1,000 forks in one process cost 6.0, 3.5,
   * 2.5, 2.9, 2.9 ms per fork). The same for every client, so the table compares warm code.
   */
  jitWarmupCalls: number;
  runs: number;
  inFlight: number;
  /** forkpool's worker threads. */
  threads: number;
}

export interface FloorRun {
  /** Client process CPU over the measured part (user + system, all threads), ms. */
  cpuMs: number;
  systemMs: number;
  wallMs: number;
  /** The sink process's CPU over the same part, ms. */
  sinkCpuMs: number;
  /** Model requests the sink answered during the run (checked: one per call). */
  requests: number;
  /** Mean request body bytes, as the sink counted them. */
  requestBytes: number;
}

export interface FloorResult {
  client: FloorClient;
  purpose: FloorJob['purpose'];
  prefixBytes: number;
  /** The session's JSON bytes. */
  sessionBytes: number;
  calls: number;
  inFlight: number;
  /** The job's compile warm-up (absent in older results). */
  jitWarmupCalls?: number;
  runs: FloorRun[];
}

export const API_KEY = 'bench';
export const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
export const directive = (i: number): string => `Summarize part ${i} of the history in one line.`;

/** The same session with its own system instruction: a prefix of its own (another id), the history shared. */
export function sessionOf(base: GeminiSession, tag: string): GeminiSession {
  const text = base.systemInstruction?.parts?.[0]?.text ?? '';
  return { ...base, systemInstruction: { parts: [{ text: `Run ${tag}. ${text}` }] } };
}

/** What forkpool's fork would ask the SDK for: the session's fields, its history, then the child message. */
function sdkParams(session: GeminiSession, i: number): GenerateContentParameters {
  return {
    model: session.model,
    contents: [...session.history, { role: 'user', parts: [{ text: buildChildMessage(directive(i)) }] }] as never,
    config: {
      ...(session.generationConfig as object | undefined),
      systemInstruction: session.systemInstruction as never,
      tools: session.tools as never,
    },
  };
}

/** Calls the SDK once and reads the stream to its end; throws unless the answer is the sink's. */
export async function sdkCall(ai: GoogleGenAI, session: GeminiSession, i: number): Promise<void> {
  const stream = await ai.models.generateContentStream(sdkParams(session, i));
  let text = '';
  for await (const chunk of stream) text += chunk.text ?? '';
  if (text !== 'done') throw new Error(`sdk: unexpected answer ${JSON.stringify(text)}`);
}

interface Captured {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The request the SDK sends for this session and call: its URL, headers and body, caught at its fetch hook. */
async function sdkRequest(url: string, session: GeminiSession): Promise<Captured> {
  let captured: Captured | undefined;
  const capture: typeof fetch = async (input, init) => {
    captured = { url: String(input), headers: Object.fromEntries(new Headers(init?.headers)), body: String(init?.body) };
    return fetch(input, init);
  };
  await sdkCall(new GoogleGenAI({ vertexai: false, apiKey: API_KEY, httpOptions: { baseUrl: url, fetch: capture } }), session, 0);
  if (captured === undefined) throw new Error('sdk: its fetch hook was not called');
  return captured;
}

/** `calls` calls, `inFlight` at a time (a promise pool). */
export async function inPool(calls: number, inFlight: number, call: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < calls) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, calls) }, lane));
}

/**
 * POSTs `parts` (written in order, one body) and reads the response to its end; throws unless it is
 * a 200 with a body. `onChunk` sees the response's chunks (bench/plain-client.ts checks the answers).
 */
export function postBuffers(
  agent: http.Agent,
  target: URL,
  headers: Record<string, string>,
  parts: readonly Buffer[],
  onChunk?: (chunk: Buffer) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const length = parts.reduce((n, part) => n + part.length, 0);
    const request = http.request(target, { method: 'POST', agent, headers: { ...headers, 'content-length': length } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        onChunk?.(chunk);
      });
      response.on('end', () =>
        response.statusCode === 200 && bytes > 0
          ? resolve()
          : reject(new Error(`node:http: status ${response.statusCode}, ${bytes} bytes`)),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    for (const part of parts.slice(0, -1)) request.write(part);
    request.end(parts.at(-1));
  });
}

export function sinkMetrics(url: string): Promise<SinkMetrics> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/cpu`, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(JSON.parse(text) as SinkMetrics));
      })
      .on('error', reject);
  });
}

/** Throws unless every fork completed in one model call. */
export function expectOneCallEach(results: readonly ForkResult[]): void {
  const wrong = results.filter((r) => r.status !== 'completed' || r.calls.length !== 1);
  if (wrong.length === 0) return;
  const first = wrong[0];
  const why =
    first?.status === 'completed'
      ? `${first.calls.length} calls`
      : `${first?.status}: ${first && 'error' in first ? first.error.message : ''}`;
  throw new Error(`forkpool: ${wrong.length} of ${results.length} forks did not complete in one call (${first?.id}: ${why})`);
}

interface Client {
  /** Makes what precedes the measured part (request bytes, tasks); returns the measured part. */
  prepare(session: GeminiSession, calls: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

async function createClient(job: FloorJob): Promise<Client> {
  const { url, inFlight } = job;
  switch (job.client) {
    case 'node-http': {
      const agent = new http.Agent({ keepAlive: true });
      return {
        async prepare(session, calls) {
          const req = await sdkRequest(url, session);
          const target = new URL(req.url);
          const body = Buffer.from(req.body);
          const parts = [body];
          return () => inPool(calls, inFlight, () => postBuffers(agent, target, req.headers, parts));
        },
        close: async () => agent.destroy(),
      };
    }
    case 'fetch':
      return {
        async prepare(session, calls) {
          const req = await sdkRequest(url, session);
          return () =>
            inPool(calls, inFlight, async () => {
              const response = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body });
              const text = await response.text();
              if (!response.ok || text.length === 0) throw new Error(`fetch: status ${response.status}, ${text.length} characters`);
            });
        },
        close: async () => {},
      };
    case 'sdk':
    case 'sdk+transport': {
      // Loaded here: the other clients do not need forkpool's transport.
      const transport =
        job.client === 'sdk+transport' ? (await import('../dist/src/transport/node-fetch.js')).createNodeTransport() : undefined;
      const ai = new GoogleGenAI({
        vertexai: false,
        apiKey: API_KEY,
        httpOptions: { baseUrl: url, ...(transport ? { fetch: transport.fetch } : {}) },
      });
      return {
        prepare: async (session, calls) => () => inPool(calls, inFlight, (i) => sdkCall(ai, session, i)),
        close: async () => transport?.close(),
      };
    }
    case 'forkpool': {
      // Loaded here, as the transport above: half a second of start-up the other clients do not need.
      const { ForkEngine } = await import('../dist/src/index.js');
      const engine = await ForkEngine.create({
        provider: { kind: 'gemini', apiKey: API_KEY, baseUrl: url },
        threads: job.threads,
        concurrency: inFlight,
        warmup: 'none',
        tools: [benchTool],
      });
      const fanOut = async (session: GeminiSession, tasks: { id: string; directive: string }[]): Promise<void> =>
        expectOneCallEach(await engine.fanOut(engine.freeze(session), tasks).results());
      const tasks = (n: number): { id: string; directive: string }[] =>
        Array.from({ length: n }, (_, i) => ({ id: `f${i}`, directive: directive(i) }));
      // Worker threads started, the SDK loaded in each: a small session of its own, not measured.
      await fanOut(sessionOf(makeSession(4 * 1024) as GeminiSession, 'engine warm-up'), tasks(2 * inFlight));
      return {
        async prepare(session, calls) {
          const mine = tasks(calls); // the caller's input: made before the measured part
          return () => fanOut(session, mine);
        },
        close: () => engine.close(),
      };
    }
  }
}

export async function measureFloor(job: FloorJob): Promise<FloorResult[]> {
  const client = await createClient(job);
  const out: FloorResult[] = [];
  try {
    const first = job.sizes[0];
    if (first !== undefined && job.jitWarmupCalls > 0) {
      await (await client.prepare(sessionOf(makeSession(first) as GeminiSession, 'jit'), job.jitWarmupCalls))();
    }
    for (const prefixBytes of job.sizes) {
      const base = makeSession(prefixBytes) as GeminiSession;
      // JIT, sockets, the SDK's first calls: a batch of its own before the measured runs.
      await (await client.prepare(sessionOf(base, 'warm-up'), job.warmupCalls))();
      const runs: FloorRun[] = [];
      for (let r = 1; r <= job.runs; r++) {
        const measured = await client.prepare(sessionOf(base, `r${r}`), job.calls);
        runs.push(await measureCalls(job, measured));
      }
      out.push({
        client: job.client,
        purpose: job.purpose,
        prefixBytes,
        sessionBytes: JSON.stringify(base).length,
        calls: job.calls,
        inFlight: job.inFlight,
        jitWarmupCalls: job.jitWarmupCalls,
        runs,
      });
    }
  } finally {
    await client.close();
  }
  return out;
}

runIfMain('floor.ts', measureFloor);

/** One measured run of `job.calls` calls: the client's CPU and wall time and the sink's CPU over it; throws unless the sink saw one request per call. */
export async function measureCalls(job: Pick<FloorJob, 'client' | 'url' | 'calls'>, run: () => Promise<void>): Promise<FloorRun> {
  gc();
  const sink0 = await sinkMetrics(job.url);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const sink1 = await sinkMetrics(job.url);
  const requests = sink1.requests - sink0.requests;
  if (requests !== job.calls) throw new Error(`${job.client}: the sink saw ${requests} requests for ${job.calls} calls`);
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    systemMs: cpu.system / 1000,
    wallMs,
    sinkCpuMs: sink1.cpuMs - sink0.cpuMs,
    requests,
    requestBytes: (sink1.bytes - sink0.bytes) / requests,
  };
}
