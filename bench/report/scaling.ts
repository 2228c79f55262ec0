/**
 * The scaling curve (issue 24): its tables, and bench/results/scaling.svg, one panel per axis
 * (forks, worker threads, concurrency, prefix size) with forks/s above and CPU per fork below.
 */
import { median, spread } from '../lib/measure.js';
import { sizeLabel } from '../lib/session.js';
import { esc, niceTicks } from './chart.js';
import { range, table, type BenchResults, type Row } from './markdown.js';

export type ScalingAxis = 'forks' | 'threads' | 'concurrency' | 'prefix';

/** A point of the curve: its axis, the pool's threads, and the server process's CPU per fork over it. */
export type ScalingRow = Row & { axis: ScalingAxis; threads: number; serverCpuPerForkMs: number };

/** `tick`: the chart's short label (4 MiB and 8 MiB sit 24 px apart on its log scale). */
const AXES: readonly {
  axis: ScalingAxis;
  title: string;
  x: (r: ScalingRow) => number;
  label: (x: number) => string;
  tick: (x: number) => string;
}[] = [
  { axis: 'forks', title: 'forks', x: (r) => r.n, label: String, tick: (x) => (x >= 1000 ? `${x / 1000}k` : String(x)) },
  { axis: 'threads', title: 'worker threads', x: (r) => r.threads, label: String, tick: String },
  { axis: 'concurrency', title: 'concurrency', x: (r) => r.concurrency, label: String, tick: String },
  {
    axis: 'prefix',
    title: 'prefix size',
    x: (r) => r.prefixBytes,
    label: sizeLabel,
    tick: (x) => sizeLabel(x).replace(/ ([KM])iB$/, '$1'),
  },
];

/** Share of the machine's cores the client and the server kept busy over the fan-out. */
function machineBusy(r: ScalingRow, cpus: number): number {
  return ((r.processCpuPerForkMs + r.serverCpuPerForkMs) * r.n) / (r.makespanMs * cpus);
}

/** An axis's points in order, each with its repeats. */
function pointsOf(rows: readonly ScalingRow[], a: (typeof AXES)[number]): { x: number; rows: ScalingRow[] }[] {
  const on = rows.filter((r) => r.axis === a.axis);
  return [...new Set(on.map(a.x))].sort((x, y) => x - y).map((x) => ({ x, rows: on.filter((r) => a.x(r) === x) }));
}

export function scalingSection(res: BenchResults): string[] {
  const rows = res.scaling ?? [];
  const c = res.meta.config.scaling;
  const cpus = res.meta.machine.cpus;
  const out = [
    '',
    '## Scaling curve (issue 24)',
    '',
    `\`sab\`, each fork 3 model calls and 2 tool calls; one dimension moves at a time from ${c.base.n} forks, ${c.base.threads} threads, ` +
      `concurrency ${c.base.concurrency}, ${sizeLabel(c.base.prefixBytes)}${c.prefixes.length > 0 ? ` (the prefix axis: ${c.prefixN} forks)` : ''}. Zero latency except the concurrency ` +
      `axis (${res.meta.sweepLatency.overheadMs} ms per call, ${c.concurrencyWaves} × concurrency forks), so elsewhere the limit is CPU: the client's ` +
      `and the server's share the ${cpus} cores ("machine busy"). Medians${c.repeats > 1 ? ` of ${c.repeats} runs (min–max), fan-outs of 10,000 forks or more once` : ' of one run each'}. Server CPU is the server process's from the fan-out's start (after the job's warm-up) to the job's end. Chart: bench/results/scaling.svg.`,
  ];
  for (const a of AXES) {
    const groups = pointsOf(rows, a);
    if (groups.length === 0) continue;
    out.push('', `### ${a.title}`, '');
    const header = [
      a.title,
      ...(a.axis === 'forks' ? [] : ['forks']),
      'forks/s',
      'makespan ms',
      'ideal ms',
      'client CPU ms/fork',
      'server CPU ms/fork',
      'machine busy %',
      'main busy %',
      'loop p99 ms',
      'peak RSS MiB',
      'failed',
    ];
    const cell = (g: readonly ScalingRow[], pick: (r: ScalingRow) => number, digits?: number): string => range(spread(g.map(pick)), digits);
    out.push(
      table(
        header,
        groups.map(({ x, rows: g }) => [
          a.label(x),
          ...(a.axis === 'forks' ? [] : [String((g[0] as ScalingRow).n)]),
          cell(g, (r) => r.forksPerSecond),
          cell(g, (r) => r.makespanMs, 0),
          (g[0] as ScalingRow).idealMs > 0 ? cell(g, (r) => r.idealMs, 0) : '–',
          cell(g, (r) => r.processCpuPerForkMs),
          cell(g, (r) => r.serverCpuPerForkMs),
          cell(g, (r) => machineBusy(r, cpus) * 100, 0),
          cell(g, (r) => r.main.utilization * 100, 0),
          cell(g, (r) => r.main.loopDelay.p99, 1),
          cell(g, (r) => r.main.memory.peakRssMiB, 0),
          String(g.reduce((sum, r) => sum + r.failed, 0)),
        ]),
      ),
    );
  }
  return out;
}

const W = 1220;
const H = 560;
const PANEL_W = 220;
const PANEL_H = 170;
const LEFTS = [75, 375, 675, 975];
const TOPS = [60, 320];

interface Series {
  color: string;
  dashed: boolean;
  points: { x: number; y: number }[];
}

function panel(
  title: string,
  yUnit: string,
  series: readonly Series[],
  xs: readonly number[],
  xLabel: (x: number) => string,
  left: number,
  top: number,
): string {
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter((v) => v > 0 && Number.isFinite(v));
  if (ys.length === 0 || xs.length === 0) return '';
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const lx = xs.map(Math.log10);
  const x0 = Math.min(...lx);
  const x1 = Math.max(...lx);
  const px = (x: number): number => left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * PANEL_W;
  const py = (y: number): number =>
    top + PANEL_H - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin) || 1)) * PANEL_H;
  const parts = [
    `<text x="${left + PANEL_W / 2}" y="${top - 10}" class="title" text-anchor="middle">${esc(title)}</text>`,
    `<rect x="${left}" y="${top}" width="${PANEL_W}" height="${PANEL_H}" class="frame"/>`,
  ];
  for (const t of niceTicks(yMin, yMax)) {
    const y = py(t).toFixed(1);
    parts.push(`<line x1="${left}" x2="${left + PANEL_W}" y1="${y}" y2="${y}" class="grid"/>`);
    parts.push(`<text x="${left - 5}" y="${Number(y) + 4}" text-anchor="end" class="tick">${esc(`${t} ${yUnit}`)}</text>`);
  }
  for (const x of xs) {
    const X = px(x).toFixed(1);
    parts.push(`<line x1="${X}" x2="${X}" y1="${top}" y2="${top + PANEL_H}" class="grid"/>`);
    parts.push(`<text x="${X}" y="${top + PANEL_H + 16}" text-anchor="middle" class="tick">${esc(xLabel(x))}</text>`);
  }
  for (const s of series) {
    const pts = s.points.filter((p) => p.y > 0 && Number.isFinite(p.y));
    if (pts.length === 0) continue;
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const p of pts)
      parts.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${s.dashed ? 'white' : s.color}" stroke="${s.color}"/>`,
      );
  }
  return parts.join('\n');
}

const CLIENT = '#1f77b4';
const SERVER = '#ff7f0e';
const IDEAL = '#7f7f7f';

export function renderScalingChart(res: BenchResults): string {
  const rows = res.scaling ?? [];
  const m = res.meta;
  const parts: string[] = [];
  AXES.forEach((a, i) => {
    const groups = pointsOf(rows, a);
    const xs = groups.map((g) => g.x);
    const line = (color: string, dashed: boolean, y: (r: ScalingRow) => number): Series => ({
      color,
      dashed,
      points: groups.map((g) => ({ x: g.x, y: median(g.rows.map(y)) })),
    });
    const left = LEFTS[i] as number;
    const rate = [line(CLIENT, false, (r) => r.forksPerSecond)];
    if (groups.some((g) => g.rows.some((r) => r.idealMs > 0)))
      rate.push(line(IDEAL, true, (r) => (r.idealMs > 0 ? (r.n * 1000) / r.idealMs : Number.NaN)));
    parts.push(panel(`forks/s by ${a.title}`, '', rate, xs, a.tick, left, TOPS[0] as number));
    parts.push(
      panel(
        `CPU per fork by ${a.title}`,
        'ms',
        [line(CLIENT, false, (r) => r.processCpuPerForkMs), line(SERVER, true, (r) => r.serverCpuPerForkMs)],
        xs,
        a.tick,
        left,
        TOPS[1] as number,
      ),
    );
  });
  const legend = [
    [CLIENT, false, 'forkpool (forks/s; client process CPU per fork)'],
    [SERVER, true, 'local server process CPU per fork'],
    [IDEAL, true, 'ideal forks/s from the latency model (concurrency axis)'],
  ] as const;
  const legendSvg = legend
    .map(([color, dashed, text], i) => {
      const x = 70 + i * 380;
      return `<line x1="${x}" x2="${x + 28}" y1="${H - 20}" y2="${H - 20}" stroke="${color}" stroke-width="3"${dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="${x + 34}" y="${H - 16}" class="legend">${esc(text)}</text>`;
    })
    .join('\n');
  const caption =
    `forkpool bench ${m.mode}, ${m.date.slice(0, 10)}: ${m.machine.cpus} × ${m.machine.cpuModel}, Node ${m.node}; sab, 3 model calls and 2 tool calls per fork; ` +
    'zero latency except the concurrency axis; server in its own process; log scales';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">
<style>
  .title { font-size: 13px; font-weight: bold; fill: #222; }
  .tick { font-size: 10px; fill: #555; }
  .legend { font-size: 12px; fill: #222; }
  .caption { font-size: 11px; fill: #666; }
  .frame { fill: none; stroke: #999; }
  .grid { stroke: #e4e4e4; }
</style>
<rect width="${W}" height="${H}" fill="white"/>
<text x="${W / 2}" y="20" text-anchor="middle" class="caption">${esc(caption)}</text>
${parts.join('\n')}
${legendSvg}
</svg>
`;
}
