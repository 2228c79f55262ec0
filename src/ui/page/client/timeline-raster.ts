/*
 * The timeline's bars as pixels. Forks in task order, one to a row of pixels or, when they outnumber
 * the rows, `perRow` of them sharing one: a row draws its forks' spans united, each column in the
 * colour of the state most of the forks there are in (more opaque where more of them ran at once),
 * and their marks, fainter the fewer of its forks made them: model calls full height, tool calls
 * the lower half, failed tools red. One pass over the forks and one over the pixels: 10,000 forks
 * cost what 200 rows of pixels do.
 */
import type { ForkRow } from '../../view.js';
import { MARK_COLOR, type Rgb, rgb, STATE_COLOR } from './palette.js';
import { STATES } from './store.js';

export interface Raster {
  /** RGBA, not premultiplied (an ImageData's). */
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

/** How many forks share a row of pixels, and how many rows they fill. */
export function bucketsFor(forks: number, height: number): { perRow: number; rows: number } {
  const perRow = Math.max(1, Math.ceil(forks / Math.max(1, height)));
  return { perRow, rows: Math.ceil(forks / perRow) };
}

/** The first pixel row of a row of forks (the next row's top is its end). */
export function rowTop(row: number, rows: number, height: number): number {
  return Math.floor((row * height) / rows);
}

/** How many of each row's forks failed, and were cancelled: the view flags those rows. */
export interface RowCounts {
  failed: Int32Array;
  cancelled: Int32Array;
}

const STATE_RGB = STATES.map((s) => rgb(STATE_COLOR[s]));
const CALL_RGB = rgb(MARK_COLOR.call);
const TOOL_RGB = rgb(MARK_COLOR.tool);
const FAILED_RGB = rgb(MARK_COLOR.tool_failed);

/** A pixel being composed: r, g, b (0..255), a (0..1). */
type Pixel = [number, number, number, number];

function over(px: Pixel, color: Rgb, alpha: number): void {
  const a = alpha + px[3] * (1 - alpha);
  if (a <= 0) return;
  const below = px[3] * (1 - alpha);
  px[0] = (color[0] * alpha + px[0] * below) / a;
  px[1] = (color[1] * alpha + px[1] * below) / a;
  px[2] = (color[2] * alpha + px[2] * below) / a;
  px[3] = a;
}

function bump(counts: Int32Array, i: number, by: number): void {
  counts[i] = (counts[i] ?? 0) + by;
}

function paint(out: Raster, x: number, y0: number, y1: number, px: Pixel): void {
  const { data, width } = out;
  const a = Math.round(px[3] * 255);
  for (let y = y0; y < y1; y++) {
    const i = (y * width + x) * 4;
    data[i] = px[0];
    data[i + 1] = px[1];
    data[i + 2] = px[2];
    data[i + 3] = a;
  }
}

/**
 * Draws `forks` (each with a startedAt) on [0, extent] ms into `out`, cleared first; a fork still
 * running ends at `now`. `ratio` is device pixels per CSS pixel (rows tall enough get a gap).
 */
export function rasterize(out: Raster, forks: readonly ForkRow[], perRow: number, extent: number, now: number, ratio: number): RowCounts {
  const { width, height } = out;
  out.data.fill(0);
  const rows = Math.ceil(forks.length / perRow);
  const counts: RowCounts = { failed: new Int32Array(rows), cancelled: new Int32Array(rows) };
  const nStates = STATES.length;
  // Per row: each state's spans as +1 at their start and -1 after their end (a running sum gives
  // how many forks in that state cover a column), and the marks counted by column.
  const cover = new Int32Array((width + 1) * nStates);
  const covering = new Int32Array(nStates);
  const calls = new Int32Array(width);
  const tools = new Int32Array(width);
  const failedTools = new Int32Array(width);
  const scale = extent > 0 ? width / extent : 0;
  const col = (at: number): number => Math.min(width - 1, Math.max(0, Math.floor(at * scale)));
  const gap = Math.round(ratio);
  const bar: Pixel = [0, 0, 0, 0];
  const top: Pixel = [0, 0, 0, 0];
  const bottom: Pixel = [0, 0, 0, 0];

  for (let r = 0; r < rows; r++) {
    // The columns this row's forks reach: only those are counted, painted and cleared again.
    let lo = width;
    let hi = -1;
    const first = r * perRow;
    const last = Math.min(forks.length, first + perRow);
    for (let i = first; i < last; i++) {
      const fork = forks[i];
      if (!fork || fork.startedAt === undefined) continue;
      const x0 = col(fork.startedAt);
      const x1 = Math.max(x0, col(fork.endedAt ?? now));
      lo = Math.min(lo, x0);
      hi = Math.max(hi, x1);
      const state = STATES.indexOf(fork.state);
      bump(cover, x0 * nStates + state, 1);
      bump(cover, (x1 + 1) * nStates + state, -1);
      if (fork.state === 'failed') bump(counts.failed, r, 1);
      if (fork.state === 'cancelled') bump(counts.cancelled, r, 1);
      // Indexed loops here and below: cold (a first draw), an iterator per fork costs more than the rest.
      const marks = fork.marks;
      for (let j = 0; j < marks.length; j++) {
        const mark = marks[j];
        if (!mark) continue;
        const x = col(mark.at);
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
        if (mark.kind === 'call') bump(calls, x, 1);
        else if (mark.kind === 'tool') bump(tools, x, 1);
        else bump(failedTools, x, 1);
      }
    }
    const n = last - first;

    const y0 = rowTop(r, rows, height);
    const y1 = rowTop(r + 1, rows, height);
    // Rows of six CSS pixels or more keep a gap above and below, so the bars read as bars.
    const inset = y1 - y0 >= 6 * ratio ? gap : 0;
    const barTop = y0 + inset;
    const barEnd = y1 - inset;
    const mid = barTop + Math.ceil((barEnd - barTop) / 2);
    const markAlpha = (count: number): number => (count >= n ? 1 : 0.25 + (0.75 * count) / n);

    covering.fill(0);
    for (let x = lo; x <= hi; x++) {
      let total = 0;
      let most = 0;
      let mostCount = 0;
      const at = x * nStates;
      for (let k = 0; k < nStates; k++) {
        const c = (covering[k] as number) + (cover[at + k] as number);
        covering[k] = c;
        total += c;
        if (c > mostCount) {
          most = k;
          mostCount = c;
        }
      }
      const c = calls[x] as number;
      const t = tools[x] as number;
      const f = failedTools[x] as number;
      if (total <= 0 && c === 0 && t === 0 && f === 0) continue;
      bar[3] = 0;
      if (total > 0) over(bar, STATE_RGB[most] ?? CALL_RGB, n === 1 ? 0.45 : 0.2 + (0.6 * total) / n);
      top[0] = bar[0];
      top[1] = bar[1];
      top[2] = bar[2];
      top[3] = bar[3];
      if (c > 0) over(top, CALL_RGB, markAlpha(c));
      bottom[0] = top[0];
      bottom[1] = top[1];
      bottom[2] = top[2];
      bottom[3] = top[3];
      if (t > 0) over(bottom, TOOL_RGB, markAlpha(t));
      if (f > 0) {
        // Rarer and worse than the rest: never fainter than half.
        const a = Math.max(0.5, markAlpha(f));
        over(top, FAILED_RGB, a);
        over(bottom, FAILED_RGB, a);
      }
      paint(out, x, barTop, mid, top);
      paint(out, x, mid, barEnd, bottom);
    }
    if (hi >= lo) {
      cover.fill(0, lo * nStates, (hi + 2) * nStates);
      calls.fill(0, lo, hi + 1);
      tools.fill(0, lo, hi + 1);
      failedTools.fill(0, lo, hi + 1);
    }
  }
  return counts;
}
