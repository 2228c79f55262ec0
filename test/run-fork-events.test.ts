// Internal: forkHooksOf (src/engine/run/fork-events.ts), where a fan-out's fork's reports go; the run's events, spans, metrics, budget and warm-up are its public face.
import { describe, expect, it } from 'vitest';
import { forkHooksOf, startedEvent, type ForkInRun, type RunListeners } from '../src/engine/run/fork-events.js';
import type { ForkEvent } from '../src/engine/events.js';
import type { TokenUsage } from '../src/model/types.js';
import type { ForkTrace } from '../src/telemetry/fan-out-trace.js';
import { fail, succeed } from '../src/tools/outcome.js';

/* A fork's reports, routed: warm-up and first responses, events, spans, metrics and the budget. */

const usage: TokenUsage = { promptTokens: 100, cachedTokens: 80, outputTokens: 5 };

/** A run's listeners and one dispatched fork, recording where each report went. */
function harness(readableAfter: RunListeners['readableAfter'], order = 0) {
  const seen: string[] = [];
  const events: ForkEvent[] = [];
  const state = { running: true, spent: false };
  const run: RunListeners = {
    readableAfter,
    firstResponses: new Map(),
    accounting: {
      responded: (task) => seen.push(`accounting.responded ${task.id}`),
      called: (task) => seen.push(`accounting.called ${task.id}`),
    },
    responded: (o) => seen.push(`scheduler.responded ${o}`),
    log: { push: (event) => events.push(event) },
    callMetrics: {
      answered: (u, model, seconds) => seen.push(`metrics.answered ${u.promptTokens} ${model} ${seconds}`),
      failed: (type, seconds) => seen.push(`metrics.failed ${type} ${seconds}`),
    },
    spending: {
      get spent() {
        return state.spent;
      },
      called: (fork, u) => seen.push(`spending.called ${fork} ${u.promptTokens}`),
    },
    onResponseStart: (id, turn) => seen.push(`onResponseStart ${id} ${turn}`),
  };
  const trace = {
    modelCall: (e) => seen.push(`trace.modelCall ${e.turn}`),
    failedCall: (e) => seen.push(`trace.failedCall ${e.errorType}`),
    tool: (call, outcome) => seen.push(`trace.tool ${call.name} ${outcome.status}`),
    attempt: (status, retried) => seen.push(`trace.attempt ${status} ${retried}`),
    end: () => {},
    carrier: () => undefined,
  } satisfies ForkTrace;
  const fork: ForkInRun = {
    index: 4,
    order,
    task: { id: 'f', directive: 'go' },
    window: 'inherit|all',
    trace,
    running: () => state.running,
    tools: [],
  };
  return { hooks: forkHooksOf(run, fork), run, seen, events, state, fork };
}

describe("a fork's reports", () => {
  it("a response's first bytes: told to the caller and the accounting, its id the window's first, and the warm-up released where the prefix is readable then", () => {
    const h = harness('response-start', 0);
    h.hooks.onEvent({ type: 'response_start', turn: 1, responseId: 'msg_1' });
    h.hooks.onEvent({ type: 'response_start', turn: 1, responseId: 'msg_2' });
    expect(h.run.firstResponses.get('inherit|all')).toBe('msg_1');
    expect(h.seen.slice(0, 3)).toEqual(['onResponseStart f 1', 'accounting.responded f', 'scheduler.responded 0']);
    const later = harness('response-end');
    later.hooks.onEvent({ type: 'response_start', turn: 1 });
    expect(later.seen).toEqual(['onResponseStart f 1', 'accounting.responded f']);
    expect(later.run.firstResponses.size).toBe(0);
  });

  it("a call's end: the warm-up released where the entry is written after the response, then the span, the metrics, the event and the budget", () => {
    const h = harness('response-end', 2);
    h.hooks.onEvent({
      type: 'turn',
      turn: 1,
      usage,
      functionCalls: 1,
      startedAt: 1_000,
      endedAt: 3_500,
      responseId: 'resp_1',
      responseModel: 'm-1',
      finish: { reason: 'stop', raw: 'stop' },
    });
    expect(h.seen).toEqual([
      'scheduler.responded 2',
      'accounting.called f',
      'trace.modelCall 1',
      'metrics.answered 100 m-1 2.5',
      'spending.called 4 100',
    ]);
    expect(h.events).toEqual([{ type: 'turn', forkId: 'f', turn: 1, usage, functionCalls: 1, finish: { reason: 'stop', raw: 'stop' } }]);
    expect(h.run.firstResponses.get('inherit|all')).toBe('resp_1');
    // A second turn releases nothing more.
    h.hooks.onEvent({ type: 'turn', turn: 2, usage, functionCalls: 0 });
    expect(h.seen.filter((s) => s.startsWith('scheduler'))).toHaveLength(1);
  });

  it("reports that trail the fork's result reach only the accounting: it was settled and counted", () => {
    const h = harness('response-start');
    h.state.running = false;
    h.hooks.onEvent({ type: 'turn', turn: 3, usage, functionCalls: 0 });
    h.hooks.onEvent({ type: 'call_failed', turn: 4, startedAt: 0, endedAt: 1, errorType: '500', message: 'boom' });
    h.hooks.onEvent({ type: 'transcript', entry: { type: 'message', turn: 3, role: 'model', message: { text: 'late' } } });
    h.hooks.onToolCall({ name: 'lookup' }, fail('aborted', 'the fork ended'), 0);
    h.hooks.onAttempt?.('rate_limited', true);
    expect(h.seen).toEqual(['accounting.called f']);
    expect(h.events).toEqual([]);
  });

  it('a failed call goes to the span and, unless it was cancelled, to the metrics with its duration', () => {
    const h = harness('response-start');
    h.hooks.onEvent({ type: 'call_failed', turn: 1, startedAt: 1_000, endedAt: 2_000, errorType: '429', message: 'slow down' });
    h.hooks.onEvent({ type: 'call_failed', turn: 2, startedAt: 1_000, endedAt: 2_000, errorType: 'aborted', message: 'cancelled' });
    expect(h.seen).toEqual(['trace.failedCall 429', 'metrics.failed 429 1', 'trace.failedCall aborted']);
  });

  it("a transcript's messages become the run's message events, their usage without the response id", () => {
    const h = harness('response-start');
    h.hooks.onEvent({
      type: 'transcript',
      entry: { type: 'message', turn: 1, role: 'model', message: { text: 'hi' }, usage: { ...usage, responseId: 'r1' } },
    });
    h.hooks.onEvent({ type: 'transcript', entry: { type: 'message', turn: 0, role: 'seed', message: { text: 'seed' } } });
    expect(h.events).toEqual([
      { type: 'message', forkId: 'f', turn: 1, role: 'model', message: { text: 'hi' }, usage },
      { type: 'message', forkId: 'f', turn: 0, role: 'seed', message: { text: 'seed' } },
    ]);
  });

  it('tool calls and attempts go to the span, the events and the fork’s record; no call is admitted once the budget is spent', () => {
    const h = harness('response-start');
    h.hooks.onToolCall({ name: 'lookup' }, succeed('lookup', { ok: true }), 0);
    h.hooks.onToolCall({ name: 'explode' }, fail('threw', 'kaboom'), 0);
    h.hooks.onAttempt?.('rate_limited', true);
    expect(h.seen).toEqual(['trace.tool lookup ok', 'trace.tool explode failed', 'trace.attempt rate_limited true']);
    expect(h.fork.tools).toEqual([
      { tool: 'lookup', status: 'ok' },
      { tool: 'explode', status: 'failed', error: 'kaboom' },
    ]);
    expect(h.events).toEqual([
      { type: 'tool_call', forkId: 'f', tool: 'lookup', status: 'ok' },
      { type: 'tool_call', forkId: 'f', tool: 'explode', status: 'failed', error: { kind: 'threw', message: 'kaboom' } },
    ]);
    expect(h.hooks.admit()).toBe(true);
    h.state.spent = true;
    expect(h.hooks.admit()).toBe(false);
  });

  it("a fork's first event names it by its directive's first line, cut at 60 characters, and carries the whole directive", () => {
    expect(startedEvent({ id: 'a', directive: 'Summarize the file.\nThen stop.', subagentType: 'fork' })).toEqual({
      type: 'task_started',
      forkId: 'a',
      description: 'Summarize the file.',
      directive: 'Summarize the file.\nThen stop.',
      subagentType: 'fork',
    });
    expect(startedEvent({ id: 'b', directive: 'x'.repeat(80) })).toEqual({
      type: 'task_started',
      forkId: 'b',
      description: `${'x'.repeat(57)}...`,
      directive: 'x'.repeat(80),
    });
  });
});
