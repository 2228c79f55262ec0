// Internal: QueueDispatcher, startQueueWorker and parseJobData (src/queue): `forkpool run --queue` and `forkpool worker` are their public face, and no entry point exports the queue. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
import { randomBytes } from 'node:crypto';
import { metrics, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, defineTool, type Tool } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { parseQueueAddress, type QueueAddress } from '../src/queue/address.js';
import { QueueDispatcher } from '../src/queue/dispatcher.js';
import { parseJobData } from '../src/queue/redis-wire.js';
import { startQueueWorker, type QueueWorker } from '../src/queue/worker.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';
import { within } from './support/queue-harness.js';
import { startRedis, type TestRedis } from './support/redis.js';

/*
 * A distributed run's telemetry: the coordinator's fork span travels in the job (W3C trace context),
 * so the tool spans a worker records join the coordinator's trace under the right fork; and the
 * dispatcher's queue depth gauge counts the run's jobs no worker has taken. Coordinator and worker
 * share this process (one tracer provider), but the worker's only link to the fork's span is the
 * job's data in a real redis-server; the model is `forkpool serve` in a process of its own.
 */

const KEY = 'fp-otel-key-4be19a27';
const WAIT_MS = 45_000;
const exporter = new InMemorySpanExporter();
/** Collected on demand; delta, so that a run no longer observed reports no point (cumulative repeats the last one). */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}
const reader = new OnDemandReader({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
const log: ToolLog = { calls: [] };
let releaseHold: () => void = () => undefined;
let holdCalls = 0;
/** A tool that waits for the test: its fork stays in flight, its job taken, while the test reads the gauge. */
const hold = defineTool({
  name: 'hold',
  description: 'Waits until released.',
  parameters: z.object({}),
  execute: async () => {
    holdCalls++;
    await new Promise<void>((resolve) => (releaseHold = resolve));
    return { held: true };
  },
});
const tools: Tool[] = [...testTools(log), hold];

let redis: TestRedis;
let server: ServeProcess;
let address: QueueAddress;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  redis = await startRedis();
  address = parseQueueAddress(`${redis.url}/1`);
  server = await startServe(['--require-api-key', KEY]);
});
afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  trace.disable();
  propagation.disable();
  metrics.disable();
});

describe('OpenTelemetry in a distributed run', () => {
  it("a worker's tool spans join the coordinator's trace under their fork's span; the queue depth counts the jobs no worker holds", async () => {
    const prefix = freezePrefix(parentSession(tools, { marker: 'MARKER-2727' }));
    const dispatcher = await QueueDispatcher.open({ address, runId: randomBytes(8).toString('hex'), prefix, settings: {} });
    const coordinator = await ForkEngine.createRemote({ provider: { kind: 'gemini' }, warmup: 'none' }, dispatcher);
    let worker: QueueWorker | undefined;
    try {
      const run = coordinator.fanOut(prefix, [
        { id: 'held', directive: 'CALL hold {}\nREPLY held' },
        { id: 'tooled', directive: 'CALL lookup {"key":"k27"}\nREPLY looked' },
      ]);
      // No worker yet: both jobs wait in the queue.
      await eventually('the queue depth to be 2', async () => (await queueDepth(prefix.id)) === 2);

      worker = await startQueueWorker({
        address,
        engine: { provider: { kind: 'gemini', apiKey: KEY, baseUrl: server.url }, threads: 1, tools },
        concurrency: 2,
      });
      // The held fork is still running: its job is taken, so it no longer counts.
      await eventually('the held fork to call its tool', async () => holdCalls === 1);
      await eventually('the queue depth to be 0', async () => (await queueDepth(prefix.id)) === 0);
      releaseHold();
      const results = await within('the run to end', run.results());
      await run.settled();
      expect(results.map((r) => [r.id, r.status])).toEqual([
        ['held', 'completed'],
        ['tooled', 'completed'],
      ]);
      expect(log.calls.map((c) => c.tool)).toEqual(['lookup']);
    } finally {
      releaseHold();
      await worker?.close();
      await coordinator.close();
    }
    // Closed: the dispatcher's callback is gone, so its run is no longer observed.
    expect(await queueDepth(prefix.id)).toBeUndefined();

    const spans = exporter.getFinishedSpans();
    const fanOut = only(spans, 'invoke_workflow fan-out');
    const traceId = fanOut.spanContext().traceId;
    for (const [taskId, tool] of [
      ['held', 'hold'],
      ['tooled', 'lookup'],
    ] as const) {
      const agent = spans.find((s) => s.name === 'invoke_agent fork' && s.attributes['gen_ai.agent.id'] === taskId) as ReadableSpan;
      expect(agent.parentSpanContext?.spanId).toBe(fanOut.spanContext().spanId);
      // Recorded on the worker's side from the context the job carried: same trace, under its own fork.
      const toolSpan = only(spans, `execute_tool ${tool}`);
      expect(toolSpan.spanContext().traceId).toBe(traceId);
      expect(toolSpan.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
      expect(toolSpan.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool });
    }
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    // The worker's key is in no span's name, attribute, status or event.
    const recorded = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]));
    expect(recorded).not.toContain(KEY);
  });

  it('a job whose trace context is malformed runs without it (only tracing is lost)', () => {
    const job = { runId: '0123456789abcdef', prefixId: 'a'.repeat(64), task: { id: 't', directive: 'd' } };
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(parseJobData({ ...job, traceContext: { traceparent } }).traceContext).toEqual({ traceparent });
    for (const traceContext of [null, 'traceparent', [traceparent], { traceparent: 7 }, { traceparent: 'x'.repeat(9000) }]) {
      const data = parseJobData({ ...job, traceContext });
      expect(data).not.toHaveProperty('traceContext');
      expect(data.task.id).toBe('t');
    }
    // A malformed field is dropped, not the context: the fork stays in its trace.
    expect(parseJobData({ ...job, traceContext: { traceparent, baggage: 'x'.repeat(9000), n: 7 } }).traceContext).toEqual({ traceparent });
    expect(
      Object.keys(
        parseJobData({ ...job, traceContext: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'])) }).traceContext ?? {},
      ),
    ).toHaveLength(16);
  });
});

function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const named = spans.filter((s) => s.name === name);
  expect(named, name).toHaveLength(1);
  return named[0] as ReadableSpan;
}

/** Polls an async check until it holds; fails naming `what` after WAIT_MS. */
async function eventually(what: string, ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** forkpool.queue.depth of the run of this conversation (prefix id), as the meter provider collects it now; undefined when not observed. */
async function queueDepth(conversationId: string): Promise<number | undefined> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const depth = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'forkpool.queue.depth');
  const point = depth?.dataPoints.find((p) => p.attributes['gen_ai.conversation.id'] === conversationId);
  return point === undefined ? undefined : Number(point.value);
}
