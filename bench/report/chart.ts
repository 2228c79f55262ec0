/**
 * bench/results/chart.svg, written by hand (no dependency): makespan and main-thread event-loop
 * delay p99 against prefix size, one line per variant, from the prefix-size sweep (medians).
 */
import { median } from '../lib/measure.js';
import { sizeLabel } from '../lib/session.js';
import type { VariantName } from '../variants/common.js';
import type { BenchResults, Row } from './markdown.js';

const COLORS: Record<VariantName, string> = {
  inprocess: '#d62728',
  clone: '#ff7f0e',
  sab: '#1f77b4',
  'sab+explicit': '#2ca02c',
};
const ORDER: VariantName[] = ['inprocess', 'clone', 'sab', 'sab+explicit'];

interface Panel {
  title: string;
  yLabel: string;
  series: { variant: VariantName; dashed: boolean; points: { x: number; y: number }[] }[];
}

const W = 1010;
const H = 450;
const PANEL_W = 400;
const PANEL_H = 260;
const TOP = 70;
const LEFTS = [80, 580];

export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function niceTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min * 0.999 && v <= max * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

function label(v: number): string {
  if (v >= 1000) return `${v / 1000} s`;
  return `${v} ms`;
}

function renderPanel(panel: Panel, left: number, xs: number[]): string {
  const values = panel.series.flatMap((s) => s.points.map((p) => p.y)).filter((v) => v > 0 && Number.isFinite(v));
  if (values.length === 0) return '';
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const lx = xs.map((x) => Math.log2(x));
  const x0 = Math.min(...lx);
  const x1 = Math.max(...lx);
  const px = (x: number): number => left + ((Math.log2(x) - x0) / (x1 - x0 || 1)) * PANEL_W;
  const py = (y: number): number =>
    TOP + PANEL_H - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin) || 1)) * PANEL_H;
  const parts: string[] = [];
  parts.push(`<text x="${left + PANEL_W / 2}" y="${TOP - 14}" class="title" text-anchor="middle">${esc(panel.title)}</text>`);
  parts.push(`<rect x="${left}" y="${TOP}" width="${PANEL_W}" height="${PANEL_H}" class="frame"/>`);
  for (const t of niceTicks(yMin, yMax)) {
    const y = py(t);
    parts.push(`<line x1="${left}" x2="${left + PANEL_W}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" class="tick">${esc(label(t))}</text>`);
  }
  for (const x of xs) {
    const X = px(x);
    parts.push(`<line x1="${X.toFixed(1)}" x2="${X.toFixed(1)}" y1="${TOP}" y2="${TOP + PANEL_H}" class="grid"/>`);
    parts.push(`<text x="${X.toFixed(1)}" y="${TOP + PANEL_H + 18}" text-anchor="middle" class="tick">${esc(sizeLabel(x))}</text>`);
  }
  parts.push(`<text x="${left + PANEL_W / 2}" y="${TOP + PANEL_H + 38}" text-anchor="middle" class="axis">prefix size (log scale)</text>`);
  parts.push(
    `<text transform="translate(${left - 58} ${TOP + PANEL_H / 2}) rotate(-90)" text-anchor="middle" class="axis">${esc(panel.yLabel)}</text>`,
  );
  for (const s of panel.series) {
    const pts = s.points.filter((p) => p.y > 0 && Number.isFinite(p.y));
    if (pts.length === 0) continue;
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${COLORS[s.variant]}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const p of pts) {
      parts.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${s.dashed ? 'white' : COLORS[s.variant]}" stroke="${COLORS[s.variant]}"/>`,
      );
    }
  }
  return parts.join('\n');
}

export function renderChart(res: BenchResults): string {
  const rows = res.sweep;
  const xs = [...new Set(rows.map((r) => r.prefixBytes))].sort((a, b) => a - b);
  const series = (pick: (r: Row) => number, dashed: boolean): Panel['series'] =>
    ORDER.filter((v) => rows.some((r) => r.variant === v)).map((variant) => ({
      variant,
      dashed,
      points: xs.map((x) => ({ x, y: median(rows.filter((r) => r.variant === variant && r.prefixBytes === x).map(pick)) })),
    }));
  const m = res.meta;
  const n = m.config.sweep.n;
  const left: Panel = {
    title: `Makespan, ${n} forks (3 model calls, 2 tool calls each)`,
    yLabel: 'makespan',
    series: series((r) => r.makespanMs, false),
  };
  const right: Panel = {
    title: 'Main-thread event-loop delay during the fan-out',
    yLabel: 'event-loop delay',
    series: [...series((r) => r.main.loopDelay.p99, false), ...series((r) => r.main.loopDelay.weightedP99, true)],
  };
  const legend = ORDER.filter((v) => rows.some((r) => r.variant === v))
    .map((v, i) => {
      const x = 80 + i * 170;
      return `<line x1="${x}" x2="${x + 28}" y1="${H - 22}" y2="${H - 22}" stroke="${COLORS[v]}" stroke-width="3"/><text x="${x + 34}" y="${H - 18}" class="legend">${esc(v)}</text>`;
    })
    .join('\n');
  const L = LEFTS[1] as number;
  const styles =
    `<line x1="${L}" x2="${L + 28}" y1="${H - 62}" y2="${H - 62}" stroke="#444" stroke-width="2"/>` +
    `<text x="${L + 34}" y="${H - 58}" class="note">p99 of the monitorEventLoopDelay ticks</text>` +
    `<line x1="${L}" x2="${L + 28}" y1="${H - 44}" y2="${H - 44}" stroke="#444" stroke-width="2" stroke-dasharray="6 4"/>` +
    `<text x="${L + 34}" y="${H - 40}" class="note">time-weighted p99: long blocks count by their length</text>`;
  const caption =
    `forkpool bench ${m.mode}, ${m.date.slice(0, 10)}: ${m.machine.cpus} × ${m.machine.cpuModel}, Node ${m.node}, ${m.config.threads} worker threads; ` +
    `server in its own process, ${m.sweepLatency.overheadMs} ms per call, prefill free; medians`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">
<style>
  .title { font-size: 14px; font-weight: bold; fill: #222; }
  .tick { font-size: 11px; fill: #555; }
  .axis { font-size: 12px; fill: #333; }
  .legend { font-size: 13px; fill: #222; }
  .caption { font-size: 11px; fill: #666; }
  .note { font-size: 11px; fill: #444; }
  .frame { fill: none; stroke: #999; }
  .grid { stroke: #e4e4e4; }
</style>
<rect width="${W}" height="${H}" fill="white"/>
<text x="${W / 2}" y="22" text-anchor="middle" class="caption">${esc(caption)}</text>
${renderPanel(left, LEFTS[0] as number, xs)}
${renderPanel(right, LEFTS[1] as number, xs)}
${legend}
${styles}
</svg>
`;
}
