/* Where an axis puts its ticks: round times for the time axes, round numbers for the values. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const TIME_STEPS = [
  1,
  2,
  5,
  10,
  20,
  50,
  100,
  200,
  250,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];

/** Ticks on [0, extent] ms, at most maxTicks of them (0 included), at a round step. */
export function timeTicks(extent: number, maxTicks: number): number[] {
  if (!(extent > 0)) return [0];
  const wanted = extent / Math.max(1, maxTicks - 1);
  const step = TIME_STEPS.find((s) => s >= wanted) ?? Math.ceil(wanted / (24 * HOUR)) * 24 * HOUR;
  const ticks: number[] = [];
  for (let t = 0; t <= extent; t += step) ticks.push(t);
  return ticks;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k that is at least n (1 for n <= 0). */
export function niceCeil(n: number): number {
  if (!(n > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= n) return m * power;
  return 10 * power;
}
