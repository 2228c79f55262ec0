/**
 * A fan-out's client CPU per call, fresh and warm (issue 44): `calls` one-call forks (or SDK calls)
 * of one Gemini-shaped session of `prefixBytes`, `inFlight` at a time, in a process of its own
 * against the sink (bench/lib/sink.ts, another process).
 *   fresh  the process's first fan-out. Before the clock: forkpool's import, ForkEngine.create and the
 *          session frozen; the SDK's import and its client. Inside it: everything the fan-out does
 *          the first time, the worker threads' start included while ForkEngine.create does not
 *          start them ahead.
 *   warm   (with `warm`) a second fan-out in the same process, of a session of its own (another
 *          prefix, frozen before the clock).
 *   warm code  (with `warmCodeCalls`) after more fan-outs, unmeasured, until the process has made
 *          that many calls in all: one more fan-out, measured. V8 optimizes a path after thousands of
 *          calls, in each isolate on its own: forkpool's forks run in every worker thread, each of
 *          which has run only its share of the calls by the second fan-out, while the SDK's one
 *          thread has run them all. The same calls for both clients, as bench/floor.ts does.
 * Client CPU per call = process.cpuUsage() (user + system: every thread of the process) over the
 * fan-out / calls. Throws when any call fails or when the sink did not see one request per call.
 * Run by `npm run bench` (section `fanout`), or alone:
 *   node --import tsx --expose-gc bench/fanout-cpu.ts '{"client":"forkpool","url":"http://127.0.0.1:PORT","prefixBytes":16384,"calls":200,"inFlight":16,"threads":2,"warm":true,"warmCodeCalls":3000,"run":0}'
 */
import type { GeminiSession } from '../dist/src/index.js';
import { API_KEY, directive, expectOneCallEach, inPool, measureCalls, sdkCall, sessionOf } from './floor.js';
import { runIfMain } from './lib/script.js';
import { benchTool, makeSession } from './lib/session.js';

export const FANOUT_CLIENTS = ['sdk', 'forkpool'] as const;
export type FanoutClient = (typeof FANOUT_CLIENTS)[number];

export interface FanoutCpuJob {
  client: FanoutClient;
  /** The sink's base URL. */
  url: string;
  prefixBytes: number;
  calls: number;
  inFlight: number;
  /** forkpool's worker threads. */
  threads: number;
  /** Also measure a second fan-out in the same process. */
  warm: boolean;
  /** With `warm`: also measure a fan-out once the process has made this many calls (0: not measured). */
  warmCodeCalls: number;
  /** Which of the section's runs this process is (the report pairs each run's two clients by it). */
  run: number;
}

export interface FanoutCpuFigures {
  /** Client process CPU over the fan-out (user + system, all threads), ms. */
  cpuMs: number;
  wallMs: number;
  /** The sink process's CPU over the same fan-out, ms. */
  sinkCpuMs: number;
}

export interface FanoutCpuResult {
  client: FanoutClient;
  /** The job's run (absent in older results). */
  run?: number;
  prefixBytes: number;
  calls: number;
  inFlight: number;
  fresh: FanoutCpuFigures;
  warm?: FanoutCpuFigures;
  /** The fan-out measured once the process had made `warmCodeCalls` calls (absent in older results). */
  warmCode?: FanoutCpuFigures;
  warmCodeCalls?: number;
}

/** One fan-out, what precedes it done by `prepare`: returns the measured part. */
type Prepare = (session: GeminiSession) => () => Promise<void>;

async function client(job: FanoutCpuJob): Promise<{ prepare: Prepare; close: () => Promise<void> }> {
  const { url, calls, inFlight } = job;
  if (job.client === 'sdk') {
    const { GoogleGenAI } = await import('@google/genai');
    const ai = new GoogleGenAI({ vertexai: false, apiKey: API_KEY, httpOptions: { baseUrl: url } });
    return { prepare: (session) => () => inPool(calls, inFlight, (i) => sdkCall(ai, session, i)), close: async () => {} };
  }
  const { ForkEngine } = await import('../dist/src/index.js');
  const engine = await ForkEngine.create({
    provider: { kind: 'gemini', apiKey: API_KEY, baseUrl: url },
    threads: job.threads,
    concurrency: inFlight,
    warmup: 'none',
    tools: [benchTool],
  });
  const tasks = Array.from({ length: calls }, (_, i) => ({ id: `f${i}`, directive: directive(i) }));
  return {
    prepare: (session) => {
      const frozen = engine.freeze(session);
      return async () => expectOneCallEach(await engine.fanOut(frozen, tasks).results());
    },
    close: () => engine.close(),
  };
}

async function measure(job: FanoutCpuJob, run: () => Promise<void>): Promise<FanoutCpuFigures> {
  const { cpuMs, wallMs, sinkCpuMs } = await measureCalls(job, run);
  return { cpuMs, wallMs, sinkCpuMs };
}

export async function measureFanoutCpu(job: FanoutCpuJob): Promise<FanoutCpuResult> {
  const base = makeSession(job.prefixBytes) as GeminiSession;
  const c = await client(job);
  try {
    const fresh = await measure(job, c.prepare(sessionOf(base, 'fresh')));
    const warm = job.warm ? await measure(job, c.prepare(sessionOf(base, 'warm'))) : undefined;
    let warmCode: FanoutCpuFigures | undefined;
    if (job.warm && job.warmCodeCalls > 0) {
      // Fan-outs of sessions of their own, as a long-lived process runs them, until the calls are made.
      for (let made = 2 * job.calls, i = 0; made < job.warmCodeCalls; made += job.calls, i++)
        await c.prepare(sessionOf(base, `jit ${i}`))();
      warmCode = await measure(job, c.prepare(sessionOf(base, 'warm code')));
    }
    return {
      client: job.client,
      run: job.run,
      prefixBytes: job.prefixBytes,
      calls: job.calls,
      inFlight: job.inFlight,
      fresh,
      ...(warm ? { warm } : {}),
      ...(warmCode ? { warmCode, warmCodeCalls: job.warmCodeCalls } : {}),
    };
  } finally {
    await c.close();
  }
}

runIfMain('fanout-cpu.ts', measureFanoutCpu);
