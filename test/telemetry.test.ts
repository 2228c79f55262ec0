import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

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
    expect(fanOut.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.conversation.id': prefix.id, 'forkpool.fan_out.forks': 3 });

    const agents = spans.filter((s) => s.name === 'invoke_agent fork');
    expect(agents.map((a) => attr(a, 'gen_ai.agent.id')).sort()).toEqual(['broken', 'plain', 'tooled']);
    for (const agent of agents) {
      expect(agent.kind).toBe(SpanKind.INTERNAL);
      expect(parentOf(agent)).toBe(fanOut.spanContext().spanId);
      expect(agent.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'fork', 'gen_ai.conversation.id': prefix.id, 'gen_ai.provider.name': 'forkpool.local' });
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
    expect(lookup.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.type': 'function' });
    expect(typeof attr(lookup, 'gen_ai.tool.call.id')).toBe('string');
    const explode = spans.find((s) => s.name === 'execute_tool explode') as ReadableSpan;
    expect(parentOf(explode)).toBe(agentOf('broken').spanContext().spanId);
    expect(explode.status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(explode, 'error.type')).toBe('threw');

    // The injected 429s: each an event on the fork's span, each followed by a retry that succeeded.
    const retries = results.find((r) => r.id === 'tooled')?.retries ?? 0;
    expect(retries).toBeGreaterThanOrEqual(1);
    expect(tooled.events.map((e) => [e.name, e.attributes?.['forkpool.attempt.status']])).toEqual(Array(retries).fill(['forkpool.retry', 'rate_limited']));
    for (const id of ['plain', 'broken']) expect(agentOf(id).events).toEqual([]);

    // The spans add up to the report.
    const report = run.report();
    const modelSpans = spans.filter((s) => s.name.startsWith('generate_content '));
    const sum = (key: string): number => modelSpans.reduce((n, s) => n + Number(attr(s, key)), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(report.promptTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(report.outputTokens);
    expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(report.cachedTokens);
    expect(modelSpans).toHaveLength(report.modelCalls);
  });

  it('a fork cancelled before it started has its span too, not an error', async () => {
    exporter.reset();
    const run = engine.fanOut(engine.freeze(parentSession(tools)), [{ id: 'runs', directive: 'REPLY ran' }, { id: 'never', directive: 'REPLY never' }]);
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
  });

  it('options.traceParent puts the fan-out under the caller’s span (a tool call’s, say), checked once', async () => {
    exporter.reset();
    const caller = trace.getTracer('test').startSpan('caller');
    const prefix = engine.freeze(parentSession(tools));
    const run = engine.fanOut(prefix, [{ id: 'under', directive: 'REPLY under' }], { traceParent: trace.setSpan(context.active(), caller), parentAgentId: 'agent-7' });
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
  });
});
