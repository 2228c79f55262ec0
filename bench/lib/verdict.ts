/**
 * The verdict of a base-against-change comparison (bench/compare.ts): a figure is "no worse" when
 * the change's median is worse than the base's by no more than 5 % of the base's median or the
 * run-to-run spread (max − min) of either build's runs, whichever is larger.
 */
import { spread, type Spread } from './measure.js';

/** Which way a figure improves: CPU, time and memory go down, forks per second up. */
export type Better = 'lower' | 'higher';

type VerdictWord = 'no worse' | 'worse' | 'not measured';

export interface Verdict {
  base: Spread;
  change: Spread;
  /** change median / base median. */
  ratio: number;
  /** How much worse the change's median may be: max(tolerance × base median, the larger spread). */
  allowance: number;
  verdict: VerdictWord;
}

/** The share of the base's median a change may lose whatever the spread. */
export const TOLERANCE = 0.05;

export function judge(base: readonly number[], change: readonly number[], better: Better, tolerance = TOLERANCE): Verdict {
  const b = spread(base);
  const c = spread(change);
  const ratio = c.median / b.median;
  if (b.n === 0 || c.n === 0) return { base: b, change: c, ratio, allowance: Number.NaN, verdict: 'not measured' };
  const allowance = Math.max(tolerance * Math.abs(b.median), b.max - b.min, c.max - c.min);
  const worseBy = better === 'lower' ? c.median - b.median : b.median - c.median;
  return { base: b, change: c, ratio, allowance, verdict: worseBy <= allowance ? 'no worse' : 'worse' };
}
