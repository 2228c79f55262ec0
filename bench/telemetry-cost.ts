/**
 * What a fork's telemetry costs the main thread, per fork of 3 model calls and 2 tool calls: every
 * span and metric call the engine makes for it (src/telemetry), first with no provider registered
 * (the API's no-ops: what every user without OpenTelemetry pays), then with the SDK's tracer and
 * meter providers registered (spans recorded and dropped, metrics aggregated), in one run.
 */
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { Bench } from 'tinybench';
import type { WorkerEvent } from '../dist/src/result/fork-events.js';
import type { ForkResult } from '../dist/src/result/fork-result.js';
import { traceFanOut } from '../dist/src/telemetry/fan-out-trace.js';
import { fanOutMetrics, modelCallMetrics } from '../dist/src/telemetry/metrics.js';

class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const info = { prefixId: 'a'.repeat(64), provider: 'openai', shape: 'openai-chat', model: 'gpt-5-mini' };
const usage = { promptTokens: 40_000, cachedTokens: 38_000, outputTokens: 300 };
const now = Date.now();
const turns: Extract<WorkerEvent, { type: 'turn' }>[] = [1, 2, 3].map((n) => ({
  type: 'turn',
  turn: n,
  usage,
  functionCalls: 1,
  startedAt: now + n * 10,
  endedAt: now + n * 10 + 5,
  finish: { reason: 'stop', raw: 'stop' },
}));
const tools = [0, 1].map((n) => ({ id: `c${n}`, name: 'lookup', args: { key: 'k' } }));
const task = { id: 'f', directive: 'd' };
const result: ForkResult = {
  id: 'f',
  status: 'completed',
  text: 'done',
  turns: 3,
  toolCalls: 2,
  usage,
  durationMs: 10,
  retries: 0,
  calls: [],
  worker: { threadId: 1, decodedPrefix: false },
};
const outcome = { status: 'ok', response: { output: { ok: true } } } as const;

/** One fan-out's instruments, then per iteration one fork's worth of calls into them. */
function oneFork(): () => void {
  const fanOut = traceFanOut(info);
  const calls = modelCallMetrics(info);
  const forks = fanOutMetrics(info);
  return () => {
    const fork = fanOut.fork(task);
    for (const event of turns) {
      fork.modelCall(event);
      calls.answered(usage, 'gpt-5-mini-2025-08-07', 0.005);
    }
    for (const call of tools) fork.tool(call, outcome, now);
    fork.end(result);
    forks.settled({ status: 'completed', retries: 0, maxCachedTokens: 38_000 });
  };
}

export interface TelemetryCostRow {
  task: string;
  samples: number;
  p50Us: number;
  p99Us: number;
}

export async function telemetryCost(quick: boolean): Promise<TelemetryCostRow[]> {
  const bench = new Bench({ time: quick ? 200 : 1000, iterations: quick ? 500 : 5000, warmupIterations: 200 });
  const noProvider = oneFork();
  bench.add('telemetry per fork, no provider', noProvider);
  await bench.run();
  const tracerProvider = new BasicTracerProvider();
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  try {
    const sdk = new Bench({ time: quick ? 200 : 1000, iterations: quick ? 500 : 5000, warmupIterations: 200 });
    sdk.add('telemetry per fork, SDK providers', oneFork());
    await sdk.run();
    return [...bench.tasks, ...sdk.tasks].map((task) => {
      const latency = (task.result as unknown as { latency?: { p50: number; p99: number; samplesCount?: number; samples?: number[] } })
        .latency;
      if (!latency) throw new Error(`micro ${task.name}: no result`);
      return {
        task: task.name,
        samples: latency.samplesCount ?? latency.samples?.length ?? 0,
        p50Us: latency.p50 * 1000,
        p99Us: latency.p99 * 1000,
      };
    });
  } finally {
    trace.disable();
    metrics.disable();
    await meterProvider.shutdown();
    await tracerProvider.shutdown();
  }
}
