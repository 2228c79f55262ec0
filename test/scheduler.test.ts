// Internal: createScheduler (src/engine/scheduler.ts): a fan-out's order, concurrency and warm-up (ForkEngine's and fanOut's options) are its public face.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createScheduler } from '../src/engine/scheduler.js';

/* The one scheduler of the engine and the benchmark's variants: order, concurrency, warm-up. */

function harness(
  count: number,
  options: { concurrency: number; warmup: boolean; leads?: number; staggerCapMs?: number; cacheBuildMs?: number },
) {
  const sent: { index: number; first: boolean }[] = [];
  const queued = new Set(Array.from({ length: count }, (_, i) => i));
  const scheduler = createScheduler({
    concurrency: options.concurrency,
    warmup: options.warmup,
    staggerCapMs: options.staggerCapMs ?? 5_000,
    ...(options.cacheBuildMs !== undefined ? { cacheBuildMs: options.cacheBuildMs } : {}),
    ...(options.leads !== undefined ? { leads: options.leads } : {}),
    next: () => (queued.size > 0 ? Math.min(...queued) : undefined),
    isQueued: (index) => queued.has(index),
    dispatch(index, order) {
      queued.delete(index);
      sent.push({ index, first: order === 0 });
    },
  });
  return { scheduler, sent, queued, order: () => sent.map((s) => s.index) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the scheduler', () => {
  it('leads with the given task, then goes in order, never past the concurrency', () => {
    const h = harness(5, { concurrency: 2, warmup: false });
    h.scheduler.start(3);
    expect(h.sent).toEqual([
      { index: 3, first: true },
      { index: 0, first: false },
    ]);
    h.scheduler.finished(1);
    expect(h.order()).toEqual([3, 0, 1]);
    h.scheduler.finished(0);
    h.scheduler.finished(1);
    expect(h.order()).toEqual([3, 0, 1, 2, 4]);
    expect(h.scheduler.inFlight).toBe(2);
  });

  it("with warm-up, the siblings wait for the lead's first response", () => {
    const h = harness(4, { concurrency: 8, warmup: true });
    h.scheduler.start(0);
    expect(h.order()).toEqual([0]);
    h.scheduler.responded(1); // not the lead: nothing changes
    expect(h.order()).toEqual([0]);
    h.scheduler.responded(0);
    expect(h.order()).toEqual([0, 1, 2, 3]);
  });

  it('with warm-up, the stagger cap releases the siblings when the lead never answers', () => {
    vi.useFakeTimers();
    const h = harness(3, { concurrency: 8, warmup: true, staggerCapMs: 1_000 });
    h.scheduler.start(0);
    vi.advanceTimersByTime(999);
    expect(h.order()).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([0, 1, 2]);
  });

  it('skips tasks no longer queued (cancelled before they started), a cancelled lead included', () => {
    const h = harness(4, { concurrency: 8, warmup: false });
    h.queued.delete(0);
    h.queued.delete(2);
    h.scheduler.start(0);
    expect(h.sent).toEqual([
      { index: 1, first: true },
      { index: 3, first: false },
    ]);
  });

  it('dispatches nothing before start()', () => {
    const h = harness(2, { concurrency: 8, warmup: false });
    h.scheduler.pump();
    expect(h.sent).toEqual([]);
  });

  it("with a cache build delay (DeepSeek), the siblings go that long after the lead's first response, not at once", () => {
    vi.useFakeTimers();
    const h = harness(3, { concurrency: 8, warmup: true, cacheBuildMs: 2_000 });
    h.scheduler.start(0);
    h.scheduler.responded(0);
    vi.advanceTimersByTime(1_999);
    expect(h.order()).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([0, 1, 2]);
  });

  it("with a cache build delay and no warm-up (parent-warm), every fork waits for the parent's entry to be built, the lead first", () => {
    vi.useFakeTimers();
    const h = harness(3, { concurrency: 8, warmup: false, cacheBuildMs: 2_000 });
    h.scheduler.start(2);
    vi.advanceTimersByTime(1_999);
    expect(h.order()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([2, 0, 1]);
  });

  it('with a build delay longer than the stagger cap, the cap waits for the build too', () => {
    vi.useFakeTimers();
    const h = harness(2, { concurrency: 8, warmup: true, staggerCapMs: 500, cacheBuildMs: 2_000 });
    h.scheduler.start(0);
    vi.advanceTimersByTime(1_999);
    expect(h.order()).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([0, 1]);
  });

  it('with two leads (DeepSeek), the second goes alone once the first is readable, the rest once the second is', () => {
    vi.useFakeTimers();
    const h = harness(5, { concurrency: 8, warmup: true, leads: 2, cacheBuildMs: 2_000 });
    h.scheduler.start(0);
    h.scheduler.responded(0);
    vi.advanceTimersByTime(1_999);
    expect(h.order()).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([0, 1]);
    // The first lead's later reports change nothing; only the second lead's response releases the rest.
    h.scheduler.finished(0);
    h.scheduler.responded(0);
    vi.advanceTimersByTime(4_000); // within the stagger cap (5 s)
    expect(h.order()).toEqual([0, 1]);
    h.scheduler.responded(1);
    vi.advanceTimersByTime(2_000);
    expect(h.order()).toEqual([0, 1, 2, 3, 4]);
  });

  it('with two leads, the stagger cap moves on from a lead that never answers, each in turn', () => {
    vi.useFakeTimers();
    const h = harness(3, { concurrency: 8, warmup: true, leads: 2, staggerCapMs: 1_000 });
    h.scheduler.start(0);
    vi.advanceTimersByTime(1_000);
    expect(h.order()).toEqual([0, 1]);
    vi.advanceTimersByTime(999);
    expect(h.order()).toEqual([0, 1]);
    vi.advanceTimersByTime(1);
    expect(h.order()).toEqual([0, 1, 2]);
  });
});
