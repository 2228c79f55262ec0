/**
 * Micro benchmarks (tinybench) of the parts a fan-out is made of, at each prefix size:
 *   freeze          freezePrefix: validate, JSON in the session's own order, UTF-8 into a SharedArrayBuffer, sha256, parse back, deep-freeze (main thread, once per prefix)
 *   SAB decode      decodePrefix: TextDecoder over the shared bytes, JSON.parse, deep-freeze (sab: once per worker per prefix)
 *   v8 serialize    the main thread's half of a structured clone (clone: once per fork, on the main thread)
 *   structured clone serialize + deserialize (clone: per fork, the worker pays the second half)
 *   seedFork        a fork's seed with the default deep copy of the history (what the loop did before `copy: false`)
 *   seedFork copy:false  the seed sharing the frozen prefix's messages (what the fork loop does now)
 *   SDK call        one model call through the @google/genai client with the network stubbed (per model call, in the thread that runs the loop)
 * and once, independent of size: one round trip on a fork's channel to another thread (a tool call), and
 * a fork's telemetry (its spans and metrics) with no OpenTelemetry provider and with the SDK's.
 * Can be run alone: npx tsx bench/micro.ts [--quick]
 */
import { setFlagsFromString, serialize } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MessageChannel, Worker } from 'node:worker_threads';
import { connectHost } from '../dist/src/wire/fork-end.js';
import { Bench } from 'tinybench';
import { openConversation } from '../dist/src/fork-thread/conversation.js';
import { seedFork } from '../dist/src/fork/index.js';
import { GoogleGenAI } from '@google/genai';
import type { GeminiRequest } from '../dist/src/model/types.js';
import { decodePrefix, freezePrefix } from '../dist/src/prefix/index.js';
import { makeSession, sizeLabel } from './lib/session.js';
import { undecorated } from './lib/plan.js';
import { telemetryCost, type TelemetryCostRow } from './telemetry-cost.js';

export interface MicroRow {
  task: string;
  prefixBytes: number | null;
  samples: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
}

export interface MicroResult {
  rows: MicroRow[];
  /** A fork's spans and metrics on the main thread, without and with the SDK registered (bench/telemetry-cost.ts). */
  telemetry?: TelemetryCostRow[];
  /** V8 heap taken by one parsed copy of the session, per prefix size (MiB). */
  parsedCopyMiB: { prefixBytes: number; mib: number }[];
}

function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function budget(bytes: number, quick: boolean): { time: number; iterations: number } {
  if (bytes >= 8 * 1024 * 1024) return { time: quick ? 60 : 500, iterations: quick ? 4 : 10 };
  if (bytes >= 1024 * 1024) return { time: quick ? 100 : 500, iterations: quick ? 8 : 20 };
  return { time: quick ? 100 : 500, iterations: quick ? 20 : 50 };
}

/** An SSE body like the local server's, for the stubbed network. */
function sseBody(): string {
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'done' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'micro',
  };
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}

function rowsOf(bench: Bench, prefixBytes: number | null): MicroRow[] {
  return bench.tasks.map((task) => {
    const r = task.result as unknown as {
      latency?: { mean: number; p50: number; p99: number; min: number; max: number; samplesCount?: number; samples?: number[] };
      error?: unknown;
    };
    if (!r.latency) throw new Error(`micro ${task.name}: ${String(r.error ?? 'no result')}`);
    return {
      task: task.name,
      prefixBytes,
      samples: r.latency.samplesCount ?? r.latency.samples?.length ?? 0,
      meanMs: r.latency.mean,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      minMs: r.latency.min,
      maxMs: r.latency.max,
    };
  });
}

/** The micro row of one call on a fork's channel (the report finds it by this name). */
export const CHANNEL_ROUND_TRIP = 'Channel round trip';

/** One call on a fork's channel (src/wire): the fork's end (connectHost) asks a thread that answers as the main thread's end does. */
async function channelRoundTrip(quick: boolean): Promise<MicroRow[]> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.once('message', (port) => port.on('message', (m) => {
       if (m.type === 'call') port.postMessage({ type: 'answer', id: m.id, value: { status: 'ok', response: { output: { ok: true, fork: m.call.args.i } } } });
     }));`,
    { eval: true },
  );
  const { port1, port2 } = new MessageChannel();
  worker.postMessage(port2, [port2]);
  const host = connectHost(port1, () => undefined);
  const signal = new AbortController().signal;
  await host.execTool({ name: 't', args: { i: 0 } }, signal, 10_000);
  const bench = new Bench({ time: quick ? 300 : 1000, iterations: quick ? 200 : 1000, warmupIterations: 50 });
  bench.add(CHANNEL_ROUND_TRIP, async () => {
    await host.execTool({ name: 't', args: { i: 1 } }, signal, 10_000);
  });
  await bench.run();
  host.close();
  await worker.terminate();
  return rowsOf(bench, null);
}

export async function runMicro(
  sizes: readonly number[],
  quick: boolean,
  log: (line: string) => void = () => undefined,
): Promise<MicroResult> {
  const gc = gcFunction();
  const rows: MicroRow[] = [];
  const parsedCopyMiB: MicroResult['parsedCopyMiB'] = [];
  const body = sseBody();
  // The SDK's network stubbed through its fetch hook: the call's CPU is the client's alone (build, serialize, parse the stream).
  const stub = (async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })) as typeof fetch;
  const sdk = new GoogleGenAI({ vertexai: false, apiKey: 'bench', httpOptions: { baseUrl: 'http://127.0.0.1:9', fetch: stub } });
  for (const bytes of sizes) {
    const session = makeSession(bytes);
    const prefix = freezePrefix(session);
    const text = new TextDecoder().decode(new Uint8Array(prefix.buffer));
    gc();
    const before = process.memoryUsage().heapUsed;
    const copy = JSON.parse(text) as unknown;
    gc();
    parsedCopyMiB.push({ prefixBytes: prefix.byteLength, mib: (process.memoryUsage().heapUsed - before) / 1024 / 1024 });
    void copy;
    const request = openConversation(seedFork(prefix.session, 'Probe.\nREPLY done'), undecorated).request() as GeminiRequest;
    const config = {
      ...request.generationConfig,
      ...(request.systemInstruction !== undefined ? { systemInstruction: request.systemInstruction as never } : {}),
      ...(request.tools !== undefined ? { tools: request.tools as never } : {}),
    };
    const b = budget(bytes, quick);
    const bench = new Bench({ ...b, warmupIterations: 2, warmupTime: 0 });
    bench
      .add('freeze', () => {
        freezePrefix(session);
      })
      .add('SAB decode', () => {
        decodePrefix(prefix.buffer, prefix.byteLength);
      })
      .add('v8 serialize', () => {
        serialize(prefix.session);
      })
      .add('structured clone', () => {
        structuredClone(prefix.session);
      })
      .add('seedFork', () => {
        seedFork(prefix.session, 'Probe.\nREPLY done');
      })
      .add('seedFork copy:false', () => {
        seedFork(prefix.session, 'Probe.\nREPLY done', { copy: false });
      })
      .add('SDK call', async () => {
        const stream = await sdk.models.generateContentStream({ model: request.model, contents: request.contents as never, config });
        for await (const _chunk of stream);
      });
    await bench.run();
    const got = rowsOf(bench, prefix.byteLength);
    rows.push(...got);
    log(`  micro ${sizeLabel(prefix.byteLength)}: ${got.map((r) => `${r.task} ${r.p50Ms.toFixed(r.p50Ms < 1 ? 3 : 1)} ms`).join(', ')}`);
    gc();
  }
  const rt = await channelRoundTrip(quick);
  rows.push(...rt);
  log(`  micro channel round trip: p50 ${(rt[0]?.p50Ms ?? NaN).toFixed(3)} ms`);
  const telemetry = await telemetryCost(quick);
  log(`  micro ${telemetry.map((r) => `${r.task}: p50 ${r.p50Us.toFixed(1)} µs`).join(', ')}`);
  return { rows, parsedCopyMiB, telemetry };
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith('/bench/micro.ts') && process.argv[1].endsWith('micro.ts');
if (isMain) {
  const quick = process.argv.includes('--quick');
  const result = await runMicro([16 * 1024, 256 * 1024, 1024 * 1024, 8 * 1024 * 1024], quick, (l) => console.log(l));
  console.table(result.rows.map((r) => ({ ...r, prefix: r.prefixBytes === null ? '-' : sizeLabel(r.prefixBytes) })));
  console.table(result.parsedCopyMiB);
}
