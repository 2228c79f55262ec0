// Internal: RunTally (src/engine/run/tally.ts), what a fan-out's report is made of; FanOutRun.report() is its public face.
import { describe, expect, it } from 'vitest';
import { RunTally, type RunView } from '../src/engine/run/tally.js';
import { planOf, resolveOptions } from '../src/engine/options.js';
import { freezePrefix } from '../src/prefix/index.js';
import { emptyCancelled, emptyFailure } from '../src/result/results.js';
import type { CallRecord, ForkResult } from '../src/result/fork-result.js';
import type { ForkCacheFigures } from '../src/engine/report.js';
import { anthropicSession } from './support/engine-fixtures.js';

/* The report: running sums of every settled fork, the forks kept with retainResults, and the notes a reader needs. */

const session = anthropicSession([], { words: 50 });
const prefix = freezePrefix(session);
const planFor = (cacheTtl: '5m' | '1h') =>
  planOf(resolveOptions({ provider: { kind: 'anthropic' }, cacheTtl }), prefix.session, {
    cacheKey: prefix.id,
    role: 'forks',
    parentWarm: false,
  });

function completed(id: string, calls: CallRecord[], extra: Partial<ForkResult> = {}): ForkResult {
  return {
    id,
    status: 'completed',
    text: 'done',
    turns: calls.length,
    toolCalls: 1,
    usage: {
      promptTokens: calls.reduce((s, c) => s + c.promptTokens, 0),
      cachedTokens: calls.reduce((s, c) => s + (c.cachedTokens ?? 0), 0),
      outputTokens: calls.reduce((s, c) => s + c.outputTokens, 0),
    },
    durationMs: 5,
    retries: 1,
    calls,
    worker: { threadId: 1, decodedPrefix: true },
    ...extra,
  } as ForkResult;
}

const figures = (id: string, status: ForkCacheFigures['status'], theoretical: number): ForkCacheFigures => ({
  id,
  status,
  promptTokens: 1_000,
  cachedTokens: theoretical,
  theoreticalCachedTokens: theoretical,
  preexistingCachedTokens: 0,
  efficiency: theoretical > 0 ? 1 : null,
});

/** The run as the report reads it: ended after `wallMs`, three tasks taken of three, nothing stopped. */
function view(over: Partial<RunView> = {}): RunView {
  return {
    prefix,
    plan: planFor('5m'),
    corrections: [],
    wallMs: 2_000,
    ended: true,
    forks: { total: 3, taken: 3, running: 0, waiting: 0 },
    stoppedEarly: false,
    tasksError: undefined,
    trimmedTurns: false,
    warmup: 'auto',
    cache: { requested: 'implicit', explicit: false, note: undefined, storage: undefined },
    cost: undefined,
    budget: () => undefined,
    ...over,
  };
}

const call = (promptTokens: number, cachedTokens: number, outputTokens: number): CallRecord => ({
  promptTokens,
  cachedTokens,
  outputTokens,
});

describe("a run's tally and report", () => {
  it('sums every settled fork: statuses, calls made by this run, tokens, failures by kind, forks a budget stopped and cut answers', () => {
    const tally = new RunTally(true);
    tally.add(
      0,
      { id: 'a', directive: 'a' },
      completed('a', [call(1_000, 800, 50), { ...call(9_000, 0, 9), restored: true }]),
      figures('a', 'completed', 800),
      { reason: 'cold-start', tokens: 200, detail: 'x' },
      undefined,
    );
    tally.add(
      1,
      { id: 'b', directive: 'b' },
      completed('b', [call(1_000, 900, 50)], { finish: { reason: 'length', raw: 'max_tokens' } }),
      figures('b', 'completed', 900),
      undefined,
      undefined,
    );
    tally.add(
      2,
      { id: 'c', directive: 'c' },
      emptyCancelled('c', 'the budget was spent', 'budget'),
      figures('c', 'cancelled', 0),
      undefined,
      undefined,
    );
    expect(tally.settled).toBe(3);
    const report = tally.report(view());
    expect(report.forks).toEqual({ total: 3, totalKnown: true, taken: 3, completed: 2, failed: 0, cancelled: 1, running: 0, queued: 0 });
    // The restored call was an earlier run's: neither its call nor its tokens count here.
    expect(report).toMatchObject({
      modelCalls: 2,
      toolCalls: 2,
      retries: 2,
      promptTokens: 2_000,
      cachedTokens: 1_700,
      outputTokens: 100,
      theoreticalCachedTokens: 1_700,
      forksPerSecond: 1.5,
    });
    expect(report.cutAnswers).toEqual([{ reason: 'length', forks: 1, raw: ['max_tokens'] }]);
    expect(report.cacheMisses).toEqual([{ reason: 'cold-start', forks: 1, tokens: 200 }]);
    expect(report.failures).toEqual([{ id: 'c', status: 'cancelled', kind: 'budget', message: 'the budget was spent' }]);
    expect(report.perFork.map((f) => f.id)).toEqual(['a', 'b', 'c']);
    expect(tally.kept.map((k) => k.task.id)).toEqual(['a', 'b', 'c']);
    expect(tally.usage()).toEqual({ promptTokens: 2_000, cachedTokens: 1_700, outputTokens: 100 });
    // What budget() is given: the forks a budget ended.
    let stopped = -1;
    tally.report(
      view({
        budget: (n) => {
          stopped = n;
          return undefined;
        },
      }),
    );
    expect(stopped).toBe(1);
  });

  it("applies the opening wave's corrections to the maximum and to the per-fork rows", () => {
    const tally = new RunTally(true);
    tally.add(0, { id: 'a', directive: 'a' }, completed('a', [call(1_000, 0, 10)]), figures('a', 'completed', 0), undefined, undefined);
    tally.add(1, { id: 'b', directive: 'b' }, completed('b', [call(1_000, 900, 10)]), figures('b', 'completed', 900), undefined, undefined);
    const report = tally.report(view({ corrections: [{ before: figures('a', 'completed', 0), after: figures('a', 'completed', 100) }] }));
    expect(report.theoreticalCachedTokens).toBe(1_000);
    expect(report.perFork[0]?.theoreticalCachedTokens).toBe(100);
    expect(report.efficiency).toBeCloseTo(0.9, 12);
  });

  it('without retainResults: no rows, at most 100 failures listed, and a note says so', () => {
    const tally = new RunTally(false);
    for (let i = 0; i < 120; i++)
      tally.add(
        i,
        { id: `f${i}`, directive: 'x' },
        emptyFailure(`f${i}`, 'error', 'boom'),
        figures(`f${i}`, 'failed', 0),
        undefined,
        undefined,
      );
    const report = tally.report(view({ forks: { total: 120, taken: 120, running: 0, waiting: 0 } }));
    expect(report.forks.failed).toBe(120);
    expect(report.failures).toHaveLength(100);
    expect(report.perFork).toEqual([]);
    expect(tally.kept).toEqual([]);
    expect(report.notes).toEqual(['results were not retained (retainResults: false): no per-fork rows; totals cover every fork.']);
  });

  it('counts the tasks not taken yet of a source of known length as queued; of a stream, says its total is not known', () => {
    const tally = new RunTally(true);
    expect(tally.report(view({ forks: { total: 10, taken: 4, running: 2, waiting: 2 } })).forks).toMatchObject({
      total: 10,
      totalKnown: true,
      queued: 8,
      running: 2,
    });
    expect(tally.report(view({ forks: { total: undefined, taken: 4, running: 2, waiting: 2 } })).forks).toMatchObject({
      total: 4,
      totalKnown: false,
      queued: 2,
    });
  });

  it('notes a stream stopped early, a bad task, an explicit cache and a trimmed history', () => {
    const tally = new RunTally(true);
    const stopped = tally.report(
      view({
        stoppedEarly: true,
        forks: { total: undefined, taken: 7, running: 0, waiting: 0 },
        cache: { requested: 'explicit', explicit: true, note: 'made 1', storage: undefined },
        trimmedTurns: true,
      }),
    );
    expect(stopped.notes[0]).toMatch(/^the run stopped taking tasks after 7 \(cancelled, or its budget spent\)/);
    expect(stopped.notes[1]).toMatch(/^explicit cache: every call is served from the cachedContent/);
    expect(stopped.notes[2]).toMatch(/^forkTurns trimmed the history/);
    expect(stopped.cache).toEqual({ requested: 'explicit', effective: 'explicit', note: 'made 1' });
    const bad = tally.report(view({ stoppedEarly: true, tasksError: new Error('tasks[3].directive: is required') }));
    expect(bad.notes).toEqual(['tasks stopped at a bad one (the forks before it ran): tasks[3].directive: is required']);
  });

  it("Anthropic's 1-hour breakpoints: a run that ended within 5 minutes is told the 5-minute TTL would have cost less", () => {
    const tally = new RunTally(true);
    const hourPlan = planFor('1h');
    expect(hourPlan.request).toMatchObject({ mechanism: 'breakpoints', ttl: '1h' });
    const note = (v: Partial<RunView>) =>
      tally.report(view({ plan: hourPlan, ...v })).notes.filter((n) => n.startsWith('1-hour cache breakpoints'));
    expect(note({ wallMs: 42_400 })).toEqual([
      "1-hour cache breakpoints: their writes cost 2× input where 5-minute ones cost 1.25×, and this run ended in 42 s, within 5 minutes: cacheTtl '5m' (--cache-ttl 5m) would have served it for less, unless the prefix is reused later",
    ]);
    // Not while it runs, not past 5 minutes, not with 5-minute breakpoints.
    expect(note({ wallMs: 42_400, ended: false })).toEqual([]);
    expect(note({ wallMs: 5 * 60_000 })).toEqual([]);
    expect(tally.report(view({ plan: planFor('5m'), wallMs: 42_400 })).notes).toEqual([]);
    // Anthropic prices cache reads and writes apart: the report has the input cost.
    expect(tally.report(view({ plan: hourPlan })).inputCost?.pricing).toEqual(hourPlan.pricing);
  });
});
