import { SpanKind, SpanStatusCode, context, metrics, trace } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_DEFAULTS, ForkEngine } from '../src/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { anthropicSession, openAIChatSession, parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * The application's tracer provider (sdk-trace-base's, registered globally, an in-memory exporter)
 * gets a fan-out's spans as the GenAI conventions shape them (src/telemetry/conventions.ts), though
 * every fork's loop runs in a worker thread, against forkpool serve in another process.
 */

const exporter = new InMemorySpanExporter();
let server: ServeProcess;
let engine: ForkEngine;
const log: ToolLog = { calls: [] };
const tools = testTools(log);

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  server = await startServe();
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, tools, warmup: 'none' });
});
afterAll(async () => {
  await engine.close();
  await server.stop();
  trace.disable();
});

const attr = (span: ReadableSpan, key: string): unknown => span.attributes[key];
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const ms = (time: readonly [number, number]): number => time[0] * 1000 + time[1] / 1e6;

describe('OpenTelemetry GenAI spans of a fan-out', () => {
  it('one trace: the fan-out, an invoke_agent per fork, its model calls and tools under it, a 429 as an event', async () => {
    exporter.reset();
    const prefix = engine.freeze(parentSession(tools, { marker: 'MARKER-5151' }));
    const run = engine.fanOut(prefix, [
      { id: 'tooled', directive: 'FAIL 429\nCALL lookup {"key":"k7"}\nREPLY looked' },
      { id: 'plain', directive: 'REPLY plain' },
      { id: 'broken', directive: 'CALL explode {}\nREPLY after' },
    ]);
    const results = await run.results();
    await run.settled();
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    const spans = exporter.getFinishedSpans();

    // One trace, rooted at the fan-out's span.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const root = spans.filter((s) => s.name === 'invoke_workflow fan-out');
    expect(root).toHaveLength(1);
    const fanOut = root[0] as ReadableSpan;
    expect(parentOf(fanOut)).toBeUndefined();
    expect(fanOut.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': prefix.id,
      'forkpool.fan_out.forks': 3,
    });

    const agents = spans.filter((s) => s.name === 'invoke_agent fork');
    expect(agents.map((a) => attr(a, 'gen_ai.agent.id')).sort()).toEqual(['broken', 'plain', 'tooled']);
    for (const agent of agents) {
      expect(agent.kind).toBe(SpanKind.INTERNAL);
      expect(parentOf(agent)).toBe(fanOut.spanContext().spanId);
      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'fork',
        'gen_ai.conversation.id': prefix.id,
        'gen_ai.provider.name': 'forkpool.local',
      });
    }
    const agentOf = (id: string): ReadableSpan => agents.find((a) => attr(a, 'gen_ai.agent.id') === id) as ReadableSpan;

    // Each fork's model calls, recorded on the main thread from the times its worker reported, under its span.
    for (const result of results) {
      const agent = agentOf(result.id);
      const calls = spans.filter((s) => parentOf(s) === agent.spanContext().spanId && s.name.startsWith('generate_content '));
      expect(calls).toHaveLength(result.calls.length);
      calls.sort((a, b) => ms(a.startTime) - ms(b.startTime));
      for (const [i, span] of calls.entries()) {
        const call = result.calls[i];
        expect(span.kind).toBe(SpanKind.CLIENT);
        expect(span.attributes).toMatchObject({
          'gen_ai.operation.name': 'generate_content',
          'gen_ai.request.model': prefix.session.model,
          'gen_ai.usage.input_tokens': call?.promptTokens,
          'gen_ai.usage.output_tokens': call?.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': call?.cachedTokens,
          // The simulator names the model that answered as Gemini does (modelVersion).
          'gen_ai.response.model': prefix.session.model,
        });
        expect(attr(span, 'gen_ai.response.finish_reasons')).toEqual(['STOP']);
        // Inside the fork's span, though another thread timed it.
        expect(ms(span.startTime)).toBeGreaterThanOrEqual(ms(agent.startTime) - 1);
        expect(ms(span.endTime)).toBeLessThanOrEqual(ms(agent.endTime) + 1);
      }
    }

    // Tools run on the main thread, as children of the fork that called them; a failure says so.
    const tooled = agentOf('tooled');
    const lookup = spans.find((s) => s.name === 'execute_tool lookup') as ReadableSpan;
    expect(parentOf(lookup)).toBe(tooled.spanContext().spanId);
    expect(lookup.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.type': 'function',
    });
    expect(typeof attr(lookup, 'gen_ai.tool.call.id')).toBe('string');
    const explode = spans.find((s) => s.name === 'execute_tool explode') as ReadableSpan;
    expect(parentOf(explode)).toBe(agentOf('broken').spanContext().spanId);
    expect(explode.status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(explode, 'error.type')).toBe('threw');

    // The injected 429s: each an event on the fork's span, each followed by a retry that succeeded.
    const retries = results.find((r) => r.id === 'tooled')?.retries ?? 0;
    expect(retries).toBeGreaterThanOrEqual(1);
    expect(tooled.events.map((e) => [e.name, e.attributes?.['forkpool.attempt.status']])).toEqual(
      Array(retries).fill(['forkpool.retry', 'rate_limited']),
    );
    for (const id of ['plain', 'broken']) expect(agentOf(id).events).toEqual([]);

    // The spans add up to the report.
    const report = run.report();
    const modelSpans = spans.filter((s) => s.name.startsWith('generate_content '));
    const sum = (key: string): number => modelSpans.reduce((n, s) => n + Number(attr(s, key)), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(report.promptTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(report.outputTokens);
    expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(report.cachedTokens);
    expect(modelSpans).toHaveLength(report.modelCalls);
    // And roll up: each fork's span holds its calls' usage, the fan-out's the run's.
    for (const result of results) {
      expect(agentOf(result.id).attributes).toMatchObject({
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
      });
    }
    expect(fanOut.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': report.promptTokens,
      'gen_ai.usage.output_tokens': report.outputTokens,
      'gen_ai.usage.cache_read.input_tokens': report.cachedTokens,
    });
  });

  it('a fork cancelled before it started has its span too, not an error', async () => {
    exporter.reset();
    const run = engine.fanOut(engine.freeze(parentSession(tools)), [
      { id: 'runs', directive: 'REPLY ran' },
      { id: 'never', directive: 'REPLY never' },
    ]);
    run.cancel('never');
    const results = await run.results();
    await run.settled();
    expect(results.map((r) => r.status)).toEqual(['completed', 'cancelled']);
    const agents = exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent fork');
    const never = agents.find((a) => attr(a, 'gen_ai.agent.id') === 'never') as ReadableSpan;
    expect(agents).toHaveLength(2);
    expect(never.status.code).toBe(SpanStatusCode.UNSET);
    expect(attr(never, 'forkpool.cancelled')).toBe('cancelled');
  });

  it('a parent loop: invoke_agent main, its own model calls, and its fan-outs under it, their forks naming it', async () => {
    exporter.reset();
    const outcome = await engine.runParentAgent(parentSession(tools, { marker: 'MARKER-6262' }), 'FORK RECALL MARKER-\\d{4}');
    expect(outcome.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const main = spans.find((s) => s.name === 'invoke_agent main') as ReadableSpan;
    expect(parentOf(main)).toBeUndefined();
    const mainId = main.spanContext().spanId;
    const agentId = attr(main, 'gen_ai.agent.id');
    expect(typeof agentId).toBe('string');
    // Its own model calls: one per turn, under it.
    const ownCalls = spans.filter((s) => s.name.startsWith('generate_content ') && parentOf(s) === mainId);
    expect(ownCalls).toHaveLength(outcome.turns);
    expect(ownCalls.reduce((n, s) => n + Number(attr(s, 'gen_ai.usage.input_tokens')), 0)).toBe(outcome.usage.promptTokens);
    // Its fan-out under it, the fork under that, naming the parent agent.
    const fanOut = spans.find((s) => s.name === 'invoke_workflow fan-out') as ReadableSpan;
    expect(parentOf(fanOut)).toBe(mainId);
    const fork = spans.find((s) => s.name === 'invoke_agent fork') as ReadableSpan;
    expect(parentOf(fork)).toBe(fanOut.spanContext().spanId);
    expect(attr(fork, 'forkpool.parent_agent.id')).toBe(agentId);
    expect(outcome.forks[0]?.text).toContain('MARKER-6262');
    // The parent's span rolls up its own calls and its forks'.
    const forksInput = outcome.forks.reduce((n, f) => n + f.usage.promptTokens, 0);
    expect(forksInput).toBeGreaterThan(0);
    expect(attr(main, 'gen_ai.usage.input_tokens')).toBe(outcome.usage.promptTokens + forksInput);
    expect(attr(fanOut, 'gen_ai.usage.input_tokens')).toBe(forksInput);
  });

  it('a parent loop’s own 429 is an event on its span, as a fork’s is', async () => {
    exporter.reset();
    const outcome = await engine.runParentAgent(parentSession(tools), 'FAIL 429\nREPLY answered');
    expect(outcome.status).toBe('completed');
    const main = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent main') as ReadableSpan;
    expect(main.events.map((e) => [e.name, e.attributes?.['forkpool.attempt.status']])).toEqual([['forkpool.retry', 'rate_limited']]);
  });

  it('options.traceParent puts the fan-out under the caller’s span (a tool call’s, say), checked once', async () => {
    exporter.reset();
    const caller = trace.getTracer('test').startSpan('caller');
    const prefix = engine.freeze(parentSession(tools));
    const run = engine.fanOut(prefix, [{ id: 'under', directive: 'REPLY under' }], {
      traceParent: trace.setSpan(context.active(), caller),
      parentAgentId: 'agent-7',
    });
    await run.results();
    await run.settled();
    caller.end();
    const spans = exporter.getFinishedSpans();
    const fanOut = spans.find((s) => s.name === 'invoke_workflow fan-out') as ReadableSpan;
    expect(parentOf(fanOut)).toBe(caller.spanContext().spanId);
    expect(attr(spans.find((s) => s.name === 'invoke_agent fork') as ReadableSpan, 'forkpool.parent_agent.id')).toBe('agent-7');
    expect(() => engine.fanOut(prefix, [], { traceParent: {} as never })).toThrow('options.traceParent must be an OpenTelemetry Context');
    expect(() => engine.fanOut(prefix, [], { parentAgentId: '' })).toThrow('options.parentAgentId must be a non-empty string');
  });

  it('a failed fork sets its span’s status and error.type', async () => {
    exporter.reset();
    const run = engine.fanOut(engine.freeze(parentSession(tools)), [{ id: 'refused', directive: 'FAIL 400\nREPLY never' }]);
    const [result] = await run.results();
    await run.settled();
    expect(result?.status).toBe('failed');
    const agent = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent fork') as ReadableSpan;
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(agent, 'error.type')).toBe('model_error');
    // The call that failed has its span under the fork's, with the provider's status as its error.type.
    const call = exporter.getFinishedSpans().find((s) => s.name.startsWith('generate_content ')) as ReadableSpan;
    expect(parentOf(call)).toBe(agent.spanContext().spanId);
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(call, 'error.type')).toBe('400');
  });
});

describe('what is billed and what was cut, on the spans', () => {
  it('Anthropic: each call’s cache writes and finish; a fork cut at max_tokens says so on its agent span', async () => {
    const anthropic = await ForkEngine.create({
      provider: { kind: 'anthropic', baseUrl: server.url, apiKey: 'fp-telemetry-anthropic' },
      threads: 1,
      tools,
      warmup: 'none',
    });
    try {
      exporter.reset();
      const run = anthropic.fanOut(anthropic.freeze({ ...anthropicSession(tools, { marker: 'MARKER-CUT1' }), max_tokens: 20 }), [
        { id: 'long', directive: 'TOKENS 200' },
        { id: 'whole', directive: 'REPLY whole' },
      ]);
      const results = await run.results();
      await run.settled();
      const spans = exporter.getFinishedSpans();
      const agentOf = (id: string) =>
        spans.find((s) => s.name === 'invoke_agent fork' && attr(s, 'gen_ai.agent.id') === id) as ReadableSpan;
      const calls = spans.filter((s) => s.name.startsWith('chat '));
      expect(calls).toHaveLength(2);
      for (const call of calls) expect(attr(call, 'gen_ai.usage.cache_write.input_tokens')).toBeTypeOf('number');
      expect(calls.map((c) => attr(c, 'gen_ai.response.finish_reasons')).sort()).toEqual([['end_turn'], ['max_tokens']]);
      expect(attr(agentOf('long'), 'forkpool.answer.cut')).toBe('length');
      expect(attr(agentOf('whole'), 'forkpool.answer.cut')).toBeUndefined();
      // The fan-out's span: the writes of every call, as the report counts them.
      const fanOut = spans.find((s) => s.name.startsWith('invoke_workflow')) as ReadableSpan;
      expect(attr(fanOut, 'gen_ai.usage.cache_write.input_tokens')).toBe(run.report().cacheWriteTokens);
      expect(results.reduce((n, r) => n + (r.usage.cacheWriteTokens ?? 0), 0)).toBe(run.report().cacheWriteTokens);
    } finally {
      await anthropic.close();
    }
  });

  it('OpenAI: reasoning tokens, where the provider reports them, beside the output they are part of', async () => {
    const openai = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: 'fp-telemetry-openai' },
      threads: 1,
      tools,
      warmup: 'none',
    });
    try {
      exporter.reset();
      const run = openai.fanOut(openai.freeze(openAIChatSession(tools, { marker: 'MARKER-RSN1' })), [
        { id: 'plain', directive: 'REPLY plain' },
      ]);
      const [result] = await run.results();
      await run.settled();
      const call = exporter.getFinishedSpans().find((s) => s.name.startsWith('chat ')) as ReadableSpan;
      // The simulator reports completion_tokens_details.reasoning_tokens (0): the attribute is there, as the provider said it.
      expect(result?.usage.reasoningTokens).toBe(0);
      expect(attr(call, 'gen_ai.usage.reasoning.output_tokens')).toBe(0);
      expect(attr(call, 'gen_ai.usage.output_tokens')).toBe(result?.usage.outputTokens);
    } finally {
      await openai.close();
    }
  });
});

describe('content on the spans, opt-in (telemetry.captureContent)', () => {
  it('is absent by default; with the option, each call’s messages, the reply and the tool’s arguments and result are there', async () => {
    const none = exporter
      .getFinishedSpans()
      .filter((s) =>
        Object.keys(s.attributes).some(
          (k) => k.startsWith('gen_ai.input') || k.startsWith('gen_ai.output') || k.startsWith('gen_ai.tool.call.a'),
        ),
      );
    expect(none).toEqual([]);
    exporter.reset();
    const capturing = await ForkEngine.create({
      provider: { kind: 'local', url: server.url },
      threads: 1,
      tools,
      warmup: 'none',
      telemetry: { captureContent: true },
    });
    try {
      const prefix = capturing.freeze(parentSession(tools, { marker: 'MARKER-9191' }));
      const run = capturing.fanOut(prefix, [{ id: 'told', directive: 'CALL lookup {"key":"k9"}\nREPLY found it' }]);
      const [result] = await run.results();
      expect(result?.status).toBe('completed');
      const spans = exporter.getFinishedSpans();
      const calls = spans.filter((s) => s.name.startsWith('generate_content ')).sort((a, b) => ms(a.startTime) - ms(b.startTime));
      expect(calls).toHaveLength(2);
      const input = JSON.parse(String(attr(calls[0] as ReadableSpan, 'gen_ai.input.messages'))) as {
        role: string;
        parts: { type: string; content?: string }[];
      }[];
      // The parent's conversation, then the fork's directive as the last user message.
      expect(JSON.stringify(input)).toContain('MARKER-9191');
      expect(input.at(-1)?.role).toBe('user');
      expect(JSON.stringify(input.at(-1))).toContain('CALL lookup');
      const firstReply = JSON.parse(String(attr(calls[0] as ReadableSpan, 'gen_ai.output.messages'))) as {
        role: string;
        parts: { type: string; name?: string; arguments?: unknown }[];
        finish_reason?: string;
      }[];
      expect(firstReply[0]?.role).toBe('assistant');
      expect(firstReply[0]?.parts).toContainEqual(expect.objectContaining({ type: 'tool_call', name: 'lookup', arguments: { key: 'k9' } }));
      const secondInput = String(attr(calls[1] as ReadableSpan, 'gen_ai.input.messages'));
      expect(secondInput).toContain('tool_call_response');
      expect(String(attr(calls[1] as ReadableSpan, 'gen_ai.output.messages'))).toContain('found it');
      const system = attr(calls[0] as ReadableSpan, 'gen_ai.system_instructions');
      expect(JSON.parse(String(system))).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'text' })]));
      const lookup = spans.find((s) => s.name === 'execute_tool lookup') as ReadableSpan;
      expect(JSON.parse(String(attr(lookup, 'gen_ai.tool.call.arguments')))).toEqual({ key: 'k9' });
      expect(JSON.parse(String(attr(lookup, 'gen_ai.tool.call.result')))).toEqual({ output: expect.anything() });
    } finally {
      await capturing.close();
    }
  });

  it('the option is checked once, naming it', async () => {
    await expect(
      ForkEngine.create({ provider: { kind: 'local', url: server.url }, telemetry: { captureContent: 'yes' as never } }),
    ).rejects.toThrow('options.telemetry.captureContent must be true or false');
    await expect(
      ForkEngine.create({ provider: { kind: 'local', url: server.url }, telemetry: { capture: true } as never }),
    ).rejects.toThrow('options.telemetry.capture');
  });
});

/** A reader the test collects from when it wants (the SDK's base class, with nothing to flush). */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
  async metricsNamed(): Promise<Map<string, MetricData>> {
    const { resourceMetrics } = await this.collect();
    const all = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === 'forkpool').flatMap((s) => s.metrics);
    return new Map(all.map((m) => [m.descriptor.name, m]));
  }
}

/** A counter's or gauge's points, or a histogram's sums, added up over the points whose attributes match. */
function total(metric: MetricData | undefined, match: Record<string, unknown> = {}): number {
  if (metric === undefined) return Number.NaN;
  const points = metric.dataPoints.filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v));
  return points.reduce(
    (n, p) => n + (metric.dataPointType === DataPointType.HISTOGRAM ? (p.value as { sum: number }).sum : (p.value as number)),
    0,
  );
}

describe('OpenTelemetry metrics of a fan-out and a parent loop', () => {
  let reader: CollectingReader;
  let metered: ForkEngine;
  beforeAll(async () => {
    reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    // Made after the provider is registered, as an application does: the engine's gate gauges are its.
    metered = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, tools, warmup: 'none', concurrency: 3 });
  });
  afterAll(async () => {
    await metered.close();
    metrics.disable();
  });

  it('the conventions’ token usage and duration, forkpool’s forks, retries and cache figures: they add up to the report', async () => {
    const prefix = metered.freeze(parentSession(tools, { marker: 'MARKER-7373' }));
    const run = metered.fanOut(prefix, [
      { id: 'tooled', directive: 'FAIL 429\nCALL lookup {"key":"k1"}\nREPLY looked' },
      { id: 'plain', directive: 'REPLY plain' },
      { id: 'refused', directive: 'FAIL 400\nREPLY never' },
    ]);
    await run.results();
    await run.settled();
    const report = run.report();
    const named = await reader.metricsNamed();
    const usage = named.get('gen_ai.client.token.usage');
    expect(usage?.descriptor.unit).toBe('{token}');
    expect(
      total(usage, { 'gen_ai.token.type': 'input', 'gen_ai.operation.name': 'generate_content', 'gen_ai.provider.name': 'forkpool.local' }),
    ).toBe(report.promptTokens);
    expect(total(usage, { 'gen_ai.token.type': 'output' })).toBe(report.outputTokens);
    expect(total(named.get('forkpool.cache.read_tokens'))).toBe(report.cachedTokens);
    expect(total(named.get('forkpool.cache.max_tokens'))).toBe(report.theoreticalCachedTokens);
    expect(total(named.get('forkpool.cache.efficiency'))).toBe(report.efficiency);
    // Every call timed: the answered ones, and the one that failed with its status as error.type.
    const duration = named.get('gen_ai.client.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    const counts = (match: Record<string, unknown>): number =>
      (duration?.dataPoints ?? [])
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((n, p) => n + (p.value as { count: number }).count, 0);
    expect(counts({}) - counts({ 'error.type': '400' })).toBe(report.modelCalls);
    expect(counts({ 'error.type': '400' })).toBe(1);
    const forks = named.get('forkpool.forks');
    expect(total(forks, { 'forkpool.fork.status': 'completed' })).toBe(report.forks.completed);
    expect(total(forks, { 'forkpool.fork.status': 'failed' })).toBe(1);
    expect(total(named.get('forkpool.retries'))).toBe(report.retries);
    expect(report.retries).toBeGreaterThanOrEqual(1);
    // The call gates, observed at collection and summed over the process's engines (this one's 3 and
    // the first describe's, still open, at the default): nothing in flight once the run is over.
    expect(total(named.get('forkpool.call_gate.limit'))).toBe(3 + ENGINE_DEFAULTS.concurrency);
    expect(total(named.get('forkpool.call_gate.in_flight'))).toBe(0);
  });

  it('a parent loop’s own calls and its forks’ add up to what the metrics counted', async () => {
    const before = total((await reader.metricsNamed()).get('gen_ai.client.token.usage'), { 'gen_ai.token.type': 'input' });
    const outcome = await metered.runParentAgent(parentSession(tools, { marker: 'MARKER-8484' }), 'FORK RECALL MARKER-\\d{4}');
    expect(outcome.status).toBe('completed');
    const after = total((await reader.metricsNamed()).get('gen_ai.client.token.usage'), { 'gen_ai.token.type': 'input' });
    const forks = outcome.forks.reduce((n, f) => n + f.usage.promptTokens, 0);
    expect(forks).toBeGreaterThan(0);
    expect(after - before).toBe(outcome.usage.promptTokens + forks);
  });
});
