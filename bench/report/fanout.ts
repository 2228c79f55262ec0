/**
 * The fan-out's client CPU per call, fresh and warm (bench/fanout-cpu.ts): forkpool against the
 * in-process @google/genai SDK, per row the median over the runs (a process each) and the ratio
 * beside the issue's target.
 */
import type { FanoutCpuFigures, FanoutCpuResult } from '../fanout-cpu.js';
import { median } from '../lib/measure.js';
import { sizeLabel } from '../lib/session.js';

type Phase = 'fresh' | 'warm' | 'warmCode';

/**
 * The issue's targets: forkpool's client CPU per call at most this many times the SDK's. Its warm
 * target stands beside both readings of warm: the second fan-out, and the fan-out once the code is
 * compiled.
 */
const FANOUT_TARGETS: readonly { prefixBytes: number; calls: number; phase: Phase; ratio: number }[] = [
  { prefixBytes: 16 * 1024, calls: 200, phase: 'fresh', ratio: 1.5 },
  { prefixBytes: 256 * 1024, calls: 200, phase: 'fresh', ratio: 1.0 },
  { prefixBytes: 1024 * 1024, calls: 200, phase: 'fresh', ratio: 0.6 },
  { prefixBytes: 4 * 1024 * 1024, calls: 48, phase: 'fresh', ratio: 0.5 },
  { prefixBytes: 16 * 1024, calls: 200, phase: 'warm', ratio: 1.2 },
  { prefixBytes: 16 * 1024, calls: 200, phase: 'warmCode', ratio: 1.2 },
];

interface FanoutRow {
  label: string;
  phase: Phase;
  prefixBytes: number;
  calls: number;
  runs: number;
  /** The SDK's runs of the row (a failed process makes them differ from forkpool's). */
  sdkRuns: number;
  forkpoolMsPerCall: number;
  sdkMsPerCall: number;
  ratio: number;
  /**
   * The lowest and highest ratio of one run's pair (its SDK process and the forkpool process run
   * right after it): the machine's speed drifts between runs, so this is the ratio's spread.
   */
  pairRange: readonly [number, number] | undefined;
  /** Absent for rows without a target (forkpool's one-fork run). */
  target?: number;
}

const perCall = (rs: readonly FanoutCpuResult[], pick: (r: FanoutCpuResult) => FanoutCpuFigures | undefined): number =>
  median(rs.flatMap((r) => (pick(r) === undefined ? [] : [(pick(r) as FanoutCpuFigures).cpuMs / r.calls])));

function phaseLabel(phase: Phase, warmCodeCalls: number | undefined): string {
  if (phase === 'warmCode') return `warm code (after ${(warmCodeCalls ?? 0).toLocaleString('en-US')} calls)`;
  return phase === 'warm' ? 'warm (second fan-out)' : 'fresh';
}

/** One row per size, call count and phase measured: medians over the runs. */
function fanoutRows(results: readonly FanoutCpuResult[]): FanoutRow[] {
  const keys = [...new Set(results.map((r) => `${r.prefixBytes}:${r.calls}`))];
  return keys.flatMap((key) => {
    const rs = results.filter((r) => `${r.prefixBytes}:${r.calls}` === key);
    const first = rs[0] as FanoutCpuResult;
    const fp = rs.filter((r) => r.client === 'forkpool');
    const sdk = rs.filter((r) => r.client === 'sdk');
    return (['fresh', 'warm', 'warmCode'] as const).flatMap((phase) => {
      const pick = (r: FanoutCpuResult) => r[phase];
      if (!fp.some(pick)) return [];
      const f = perCall(fp, pick);
      const s = perCall(sdk, pick);
      // Each run's two processes, by the run they name (one that failed leaves its run unpaired, not another mispaired);
      // older results name none: then by order.
      const partner = (r: FanoutCpuResult, i: number): FanoutCpuResult | undefined =>
        r.run === undefined ? sdk[i] : sdk.find((s) => s.run === r.run);
      const pairs = fp.flatMap((r, i) => {
        const mine = pick(r);
        const other = partner(r, i);
        const theirs = other === undefined ? undefined : pick(other);
        return mine === undefined || theirs === undefined ? [] : [mine.cpuMs / theirs.cpuMs];
      });
      const target = FANOUT_TARGETS.find((t) => t.prefixBytes === first.prefixBytes && t.calls === first.calls && t.phase === phase)?.ratio;
      return [
        {
          label: `${phaseLabel(phase, fp[0]?.warmCodeCalls)} ${sizeLabel(first.prefixBytes)} × ${first.calls}`,
          phase,
          prefixBytes: first.prefixBytes,
          calls: first.calls,
          runs: fp.length,
          sdkRuns: sdk.length,
          forkpoolMsPerCall: f,
          sdkMsPerCall: s,
          ratio: f / s,
          pairRange: pairs.length === 0 ? undefined : [Math.min(...pairs), Math.max(...pairs)],
          ...(target === undefined ? {} : { target }),
        },
      ];
    });
  });
}

export function fanoutTable(results: readonly FanoutCpuResult[]): string[] {
  const rows = fanoutRows(results);
  return [
    '| fan-out | runs | forkpool ms/call | sdk ms/call | forkpool / sdk | per run | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.sdkRuns === r.runs || r.sdkRuns === 0 ? r.runs : `${r.runs} (SDK ${r.sdkRuns})`} | ${r.forkpoolMsPerCall.toFixed(2)} | ${Number.isNaN(r.sdkMsPerCall) ? '–' : r.sdkMsPerCall.toFixed(2)} | ` +
        `${Number.isNaN(r.ratio) ? '–' : `${r.ratio.toFixed(2)}×`} | ${r.pairRange === undefined ? '–' : `${r.pairRange[0].toFixed(2)}–${r.pairRange[1].toFixed(2)}×`} | ${r.target === undefined ? '–' : `≤ ${r.target}× ${r.ratio <= r.target ? 'met' : 'missed'}`} |`,
    ),
  ];
}

/** The markdown report's section. */
export function fanoutSection(results: readonly FanoutCpuResult[]): string[] {
  const r0 = results[0];
  if (r0 === undefined) return [];
  return [
    '',
    `## A fan-out's client CPU per call, fresh and warm (issue 44): ${r0.inFlight} in flight, median of the runs (a process each)`,
    '',
    "fresh = the process's first fan-out, the clock started after forkpool's import, ForkEngine.create and the freeze (the SDK: its import and client); " +
      'warm = a second fan-out of another session in the same process; warm code = one more once the process has made the calls named, ' +
      "the same for both clients (V8 compiles each worker thread's code on its own: by the second fan-out each of forkpool's threads has run its share of the calls, the SDK's one thread all of them). " +
      'Client CPU = the whole process (every thread) over the fan-out, per call. ' +
      "A row of one fork shows forkpool's fixed cost of a fresh run (its worker threads' start while the engine does not start them ahead). " +
      "per run = the lowest and highest ratio of one run's two processes (the SDK's, then forkpool's right after it): the machine's speed drifts between runs, so a ratio's spread is this wide.",
    '',
    ...fanoutTable(results),
  ];
}
