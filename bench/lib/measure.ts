/** Measuring helpers: this thread's CPU, event-loop delay, memory peaks, and summary statistics. */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';

const TICK_MS = 10; // Linux USER_HZ is 100 on every kernel this runs on (getconf CLK_TCK)

/** This thread's user and system CPU, ms. */
function threadCpu(): { user: number; system: number } {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * TICK_MS, system: Number(fields[12]) * TICK_MS };
  } catch {
    const u = process.cpuUsage();
    return { user: u.user / 1000, system: u.system / 1000 };
  }
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface MainThreadProbe {
  stop(): MainThreadFigures;
}

export interface MainThreadFigures {
  wallMs: number;
  /** CPU of this thread (10 ms resolution), and its system (kernel) part. */
  threadCpuMs: number;
  threadSysMs: number;
  /**
   * Time this thread's event loop was busy (event-loop utilization, µs resolution), the probe's
   * own timers included (see calibrateProbe). Counts time the thread waited for a core while busy.
   */
  busyMs: number;
  /** busyMs / wallMs. */
  utilization: number;
  /** CPU of the whole process: this thread, the fork workers, GC helpers. */
  processCpuMs: number;
  /**
   * monitorEventLoopDelay at 1 ms resolution (the interval between its ticks, so an idle loop reads
   * ~1.1 ms). Its percentiles count ticks: a loop blocked for 600 ms gives one slow tick among
   * thousands of fast ones, so p99 hides long blocks. `weightedP99` weights each interval by its
   * length (the delay a callback arriving at a random moment would see, 99th percentile), and
   * `blockedShare` is the share of the wall time spent in intervals over 20 ms.
   */
  loopDelay: { p50: number; p99: number; max: number; mean: number; weightedP99: number; blockedShare: number };
  memory: {
    peakRssMiB: number;
    peakHeapUsedMiB: number;
    peakExternalMiB: number;
    startRssMiB: number;
    startHeapUsedMiB: number;
    startExternalMiB: number;
  };
}

const MiB = 1024 * 1024;

/**
 * Starts measuring this thread: event-loop delay (monitorEventLoopDelay, 1 ms resolution, in ms),
 * event-loop utilization, CPU, and memory sampled every 50 ms (a sample the main thread was too
 * busy to take is taken late: RSS rarely drops right after a peak, so peaks are seen).
 */
/**
 * The probe's own cost: with its timers running, an idle event loop reads ~1–1.5% busy on this
 * machine (any JS timer costs about that here). The idle figure is recorded next to every
 * measurement as its floor; nothing is subtracted (under load the timers coalesce and cost less,
 * so a subtraction would take off too much).
 */
export async function calibrateProbe(ms = 250): Promise<number> {
  const probe = await probeMainThread();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return probe.stop().utilization;
}

export async function probeMainThread(): Promise<MainThreadProbe> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // Our own ticker, for the time-weighted figures (intervals between consecutive ticks).
  const intervals: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const t = performance.now();
    intervals.push(t - last);
    last = t;
  }, 1);
  // Let both take their first sample: the histogram drops its first tick (and reset() makes it drop
  // the next one again), so a block right at the start (a synchronous dispatch) would go unseen.
  // The ~10 idle ticks of this wait stay in the histogram.
  await new Promise((resolve) => setTimeout(resolve, 10));
  intervals.length = 0;
  last = performance.now();
  const start = {
    wall: performance.now(),
    thread: threadCpu(),
    process: processCpuMs(),
    elu: performance.eventLoopUtilization(),
    memory: process.memoryUsage(),
  };
  const peak = { rss: start.memory.rss, heap: start.memory.heapUsed, external: start.memory.external };
  const sample = (): void => {
    const m = process.memoryUsage();
    if (m.rss > peak.rss) peak.rss = m.rss;
    if (m.heapUsed > peak.heap) peak.heap = m.heapUsed;
    if (m.external > peak.external) peak.external = m.external;
  };
  const sampler = setInterval(sample, 50);
  return {
    stop() {
      histogram.disable();
      clearInterval(sampler);
      clearInterval(ticker);
      intervals.push(performance.now() - last);
      sample();
      const elu: EventLoopUtilization = performance.eventLoopUtilization(start.elu);
      const ms = (ns: number): number => ns / 1e6;
      return {
        wallMs: performance.now() - start.wall,
        ...((): { threadCpuMs: number; threadSysMs: number } => {
          const end = threadCpu();
          return {
            threadCpuMs: end.user + end.system - start.thread.user - start.thread.system,
            threadSysMs: end.system - start.thread.system,
          };
        })(),
        busyMs: elu.active,
        utilization: elu.utilization,
        processCpuMs: processCpuMs() - start.process,
        loopDelay: {
          p50: ms(histogram.percentile(50)),
          p99: ms(histogram.percentile(99)),
          max: ms(histogram.max),
          mean: ms(histogram.mean),
          ...weighted(intervals, 20),
        },
        memory: {
          peakRssMiB: peak.rss / MiB,
          peakHeapUsedMiB: peak.heap / MiB,
          peakExternalMiB: peak.external / MiB,
          startRssMiB: start.memory.rss / MiB,
          startHeapUsedMiB: start.memory.heapUsed / MiB,
          startExternalMiB: start.memory.external / MiB,
        },
      };
    },
  };
}

/** Time-weighted 99th percentile of the intervals, and the share of time in intervals over `blockedMs`. */
function weighted(intervals: readonly number[], blockedMs: number): { weightedP99: number; blockedShare: number } {
  const total = intervals.reduce((a, b) => a + b, 0);
  if (total <= 0) return { weightedP99: 0, blockedShare: 0 };
  const sorted = [...intervals].sort((a, b) => a - b);
  let acc = 0;
  let p99 = sorted[sorted.length - 1] as number;
  for (const v of sorted) {
    acc += v;
    if (acc >= 0.99 * total) {
      p99 = v;
      break;
    }
  }
  const blocked = intervals.filter((v) => v > blockedMs).reduce((a, b) => a + b, 0);
  return { weightedP99: p99, blockedShare: blocked / total };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}
