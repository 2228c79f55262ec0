/*
 * The figures over time, from the samples: the run's prompt, cached and output tokens so far on
 * the left axis, its efficiency against the theoretical maximum (0 to 100%) on the right, its cost
 * on a scale of its own (dotted, its last value written at its end). A legend gives the last
 * sample's values. Redrawn when samples arrive or the size changes.
 */
import type { Sample } from '../../view.js';
import { niceCeil, timeTicks } from './axis.js';
import { LABEL_FONT, fitCanvas, inkOf, observeWidth } from './canvas.js';
import { h, setAttr, setText } from './dom.js';
import { compact, duration, pct, round, usd } from './format.js';
import type { RunStore } from './store.js';

// CSS pixels.
const HEIGHT = 150;
const LEFT = 46;
const RIGHT = 40;
const TOP = 8;
const AXIS = 16;

interface Series {
  label: string;
  color: string;
  value(s: Sample): number | null | undefined;
  text(s: Sample): string;
  dash: number[];
}

const TOKENS: Series[] = [
  { label: 'prompt', color: '#4c8df6', value: (s) => s.promptTokens, text: (s) => compact(s.promptTokens), dash: [] },
  { label: 'cached', color: '#3ba55c', value: (s) => s.cachedTokens, text: (s) => compact(s.cachedTokens), dash: [] },
  { label: 'output', color: '#e8a33d', value: (s) => s.outputTokens, text: (s) => compact(s.outputTokens), dash: [] },
];
const EFFICIENCY: Series = {
  label: 'efficiency',
  color: '#7c5cd6',
  value: (s) => s.efficiency,
  text: (s) => pct(s.efficiency),
  dash: [5, 3],
};
const COST: Series = { label: 'cost', color: '#d6336c', value: (s) => s.costUsd, text: (s) => usd(s.costUsd), dash: [1, 3] };

export interface FiguresView {
  element: HTMLElement;
  render(store: RunStore): void;
}

/** Draws one series as a line, broken where it has no value; `y` maps a value to a CSS pixel. */
function line(
  ctx: CanvasRenderingContext2D,
  samples: readonly Sample[],
  series: Series,
  x: (at: number) => number,
  y: (v: number) => number,
): void {
  ctx.strokeStyle = series.color;
  ctx.fillStyle = series.color;
  ctx.setLineDash(series.dash);
  ctx.beginPath();
  let drawing = false;
  for (const s of samples) {
    const v = series.value(s);
    if (v === null || v === undefined) {
      drawing = false;
      continue;
    }
    if (drawing) ctx.lineTo(x(s.at), y(v));
    else ctx.moveTo(x(s.at), y(v));
    drawing = true;
  }
  ctx.stroke();
  ctx.setLineDash([]);
  // A single sample is a dot, not a line.
  const only = samples.length === 1 ? samples[0] : undefined;
  const v = only ? series.value(only) : undefined;
  if (only && v !== null && v !== undefined) ctx.fillRect(x(only.at) - 1.5, y(v) - 1.5, 3, 3);
}

export function createFigures(onResize: () => void): FiguresView {
  const values = new Map<Series, HTMLElement>();
  const items = new Map<Series, HTMLElement>();
  for (const series of [...TOKENS, EFFICIENCY, COST]) {
    const swatch = h('span', { class: 'swatch' });
    swatch.style.background = series.color;
    const value = h('span', { class: 'legend-value' });
    values.set(series, value);
    items.set(series, h('span', {}, swatch, `${series.label} `, value));
  }
  const legend = h('span', { class: 'legend' }, ...items.values());
  const note = h('p', { class: 'muted note' });
  const canvas = h('canvas', { 'data-testid': 'figures', 'data-samples': '0' });
  const box = h('div', { class: 'chart-box' }, canvas);
  const element = h(
    'section',
    { class: 'chart-panel figures-panel' },
    h('div', { class: 'chart-head' }, h('h2', {}, 'Over time'), legend),
    note,
    box,
  );

  let width = 0;
  observeWidth(box, (w) => {
    width = w;
    onResize();
  });

  let drawn: { samples: readonly Sample[]; count: number; width: number; ratio: number } | undefined;

  const draw = (samples: readonly Sample[]): void => {
    const plotWidth = width - LEFT - RIGHT;
    if (plotWidth < 20) return;
    const surface = fitCanvas(canvas, width, TOP + HEIGHT + AXIS);
    if (!surface) return;
    const { ctx, ratio } = surface;
    const last = samples[samples.length - 1];
    const span = Math.max(1, last?.at ?? 1);
    let top = 0;
    let topCost = 0;
    for (const s of samples) {
      top = Math.max(top, s.promptTokens, s.cachedTokens, s.outputTokens);
      topCost = Math.max(topCost, s.costUsd ?? 0);
    }
    // A floor, so that a run with no tokens yet reads 0 to 1k rather than fractions of a token.
    const tokenMax = niceCeil(Math.max(top, 1000));
    const x = (at: number): number => LEFT + (at / span) * plotWidth;
    const yOf =
      (max: number) =>
      (v: number): number =>
        TOP + HEIGHT - (Math.min(v, max) / max) * HEIGHT;

    const ink = inkOf(canvas);
    ctx.font = LABEL_FONT;
    ctx.fillStyle = ink;
    ctx.lineWidth = 1;
    // Grid and axes: tokens on the left, efficiency on the right, time below.
    ctx.textBaseline = 'middle';
    for (const f of [0, 0.5, 1]) {
      const y = TOP + HEIGHT - f * HEIGHT;
      ctx.globalAlpha = 0.18;
      ctx.fillRect(LEFT, Math.round(y), plotWidth, 1 / ratio);
      ctx.globalAlpha = 1;
      ctx.textAlign = 'right';
      ctx.fillText(round(tokenMax * f), LEFT - 4, y);
      ctx.textAlign = 'left';
      ctx.fillText(pct(f).replace('.0%', '%'), LEFT + plotWidth + 4, y);
    }
    ctx.textBaseline = 'top';
    ctx.textAlign = 'center';
    for (const t of timeTicks(span, Math.max(2, Math.floor(plotWidth / 80))))
      ctx.fillText(t === 0 ? '0' : duration(t), x(t), TOP + HEIGHT + 3);

    ctx.lineWidth = 1.5;
    ctx.lineJoin = 'round';
    for (const series of TOKENS) line(ctx, samples, series, x, yOf(tokenMax));
    line(ctx, samples, EFFICIENCY, x, yOf(1));
    if (topCost > 0) {
      line(ctx, samples, COST, x, yOf(topCost));
      if (last?.costUsd !== undefined) {
        ctx.fillStyle = COST.color;
        ctx.textAlign = 'right';
        ctx.textBaseline = 'top';
        ctx.fillText(usd(last.costUsd), x(last.at) - 3, yOf(topCost)(last.costUsd) + 3);
      }
    }
  };

  return {
    element,
    render(store) {
      const samples = store.samples;
      const n = samples.length;
      setAttr(canvas, 'data-samples', String(n));
      box.hidden = n === 0;
      legend.hidden = n === 0;
      note.hidden = n > 0;
      if (n === 0) {
        setText(note, store.live ? 'No samples yet.' : 'No samples in this file.');
        drawn = undefined;
        return;
      }
      const last = samples[n - 1];
      if (last) {
        for (const [series, value] of values) setText(value, series.text(last));
        const cost = items.get(COST);
        if (cost) cost.hidden = last.costUsd === undefined;
      }
      if (width === 0) width = Math.floor(box.getBoundingClientRect().width);
      const ratio = window.devicePixelRatio || 1;
      if (drawn && drawn.samples === samples && drawn.count === n && drawn.width === width && drawn.ratio === ratio) return;
      draw(samples);
      drawn = { samples, count: n, width, ratio };
    },
  };
}
