/*
 * The timeline: one bar per fork, in task order, on the run's time (0 to now, or to its last end):
 * its span coloured by its state, its model calls and tool calls marked, so that the warm-up shows
 * as one fork alone before the rest start. Forks that outnumber the rows of pixels share rows
 * (timeline-raster.ts); a strip left of the bars flags the rows with a failed or cancelled fork,
 * more opaque the more of the row's forks it is.
 * Drawn only when the rows, the time scale or the size changed, and only from the page's frame.
 * It follows the list's filter and search: it draws the forks the list shows. A fork without a
 * start (queued, or from a results file without times) is left out. A click opens the fork under
 * the pointer. Its legend names every colour drawn: the bars' states and the marks' kinds of the
 * forks drawn (a fork cancelled before it started is a thin bar in the cancelled colour).
 */
import type { ForkRow, Mark } from '../../view.js';
import { timeTicks } from './axis.js';
import { LABEL_FONT, fitCanvas, inkOf, observeWidth } from './canvas.js';
import { h, setAttr, setText } from './dom.js';
import { duration, int } from './format.js';
import { MARK_COLOR, STATE_COLOR } from './palette.js';
import { STATES, type RunStore } from './store.js';
import { bucketsFor, rasterize, rowTop } from './timeline-raster.js';

// CSS pixels.
const ROW = 14;
const MIN_PLOT = 28;
const MAX_PLOT = 180;
const GUTTER = 112;
const STRIP = 3;
const TOP = 2;
const RIGHT = 12;
const AXIS = 16;

export interface TimelineView {
  element: HTMLElement;
  /** `forks`: the list's forks as filtered (a new array whenever they change). */
  render(store: RunStore, forks: readonly ForkRow[]): void;
}

/** What was drawn last, to skip a redraw that would change nothing and to find a clicked fork. */
interface Drawn {
  source: readonly ForkRow[];
  width: number;
  ratio: number;
  extent: number;
  now: number;
  forks: readonly ForkRow[];
  perRow: number;
  rows: number;
  plotWidth: number;
  plotHeight: number;
}

function legendItem(color: string, label: string, key: string): HTMLElement {
  const swatch = h('span', { class: 'swatch' });
  swatch.style.background = color;
  return h('span', { 'data-legend': key }, swatch, label);
}

const MARK_LABEL: Record<Mark['kind'], string> = { call: 'model call', tool: 'tool call', tool_failed: 'failed tool' };

/** The colours the forks' bars and marks take: their states and their marks' kinds. */
function drawnKeys(forks: readonly ForkRow[]): Set<string> {
  const keys = new Set<string>();
  for (const fork of forks) {
    keys.add(fork.state);
    for (const mark of fork.marks) keys.add(mark.kind);
  }
  return keys;
}

/** The last thing the forks did (an end or a mark), in ms since the run began. */
function lastEvent(forks: readonly ForkRow[]): number {
  let end = 0;
  for (const fork of forks) {
    if (fork.endedAt !== undefined && fork.endedAt > end) end = fork.endedAt;
    const last = fork.marks[fork.marks.length - 1];
    if (last && last.at > end) end = last.at;
  }
  return end;
}

/** The plot's height in CSS pixels: a row a fork while they fit, then what MAX_PLOT holds. */
function plotHeightFor(forks: number): number {
  return Math.min(MAX_PLOT, Math.max(MIN_PLOT, forks * ROW));
}

function ellipsize(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  if (ctx.measureText(text).width <= width) return text;
  let n = text.length;
  while (n > 1 && ctx.measureText(`${text.slice(0, n)}…`).width > width) n--;
  return `${text.slice(0, n)}…`;
}

export function createTimeline(onOpen: (id: string) => void, onResize: () => void): TimelineView {
  const caption = h('span', { class: 'muted' });
  const legendItems = new Map<string, HTMLElement>([
    ...STATES.map((state): [string, HTMLElement] => [state, legendItem(STATE_COLOR[state], state, state)]),
    ...(Object.keys(MARK_COLOR) as Mark['kind'][]).map((kind): [string, HTMLElement] => [
      kind,
      legendItem(MARK_COLOR[kind], MARK_LABEL[kind], kind),
    ]),
  ]);
  const legend = h('span', { class: 'legend', 'data-testid': 'timeline-legend' }, ...legendItems.values());
  const note = h('p', { class: 'muted note' });
  const canvas = h('canvas', { 'data-testid': 'timeline', 'data-forks': '0' });
  const box = h('div', { class: 'chart-box' }, canvas);
  const element = h(
    'section',
    { class: 'chart-panel timeline-panel' },
    h('div', { class: 'chart-head' }, h('h2', {}, 'Timeline'), caption, legend),
    note,
    box,
  );

  let width = 0;
  observeWidth(box, (w) => {
    width = w;
    onResize();
  });

  let timed: ForkRow[] = [];
  let timedSource: readonly ForkRow[] | undefined;
  let timedEnd = 0;
  let drawn: Drawn | undefined;
  let image: ImageData | undefined;

  const pick = (event: MouseEvent): ForkRow | undefined => {
    const d = drawn;
    if (!d) return undefined;
    const y = (event.offsetY - TOP) / d.plotHeight;
    const x = (event.offsetX - GUTTER) / d.plotWidth;
    if (y < 0 || y >= 1 || x < 0 || x > 1) return undefined;
    const first = Math.floor(y * d.rows) * d.perRow;
    const at = x * d.extent;
    // The fork of the row whose span is nearest the pointer's time.
    let best: ForkRow | undefined;
    let bestGap = Number.POSITIVE_INFINITY;
    for (let i = first; i < Math.min(d.forks.length, first + d.perRow); i++) {
      const fork = d.forks[i];
      if (!fork || fork.startedAt === undefined) continue;
      const end = fork.endedAt ?? d.now;
      const gapMs = at < fork.startedAt ? fork.startedAt - at : at > end ? at - end : 0;
      if (gapMs < bestGap) {
        best = fork;
        bestGap = gapMs;
      }
    }
    return best;
  };
  canvas.addEventListener('click', (event) => {
    const fork = pick(event);
    if (fork) onOpen(fork.id);
  });
  canvas.addEventListener('mousemove', (event) => {
    const fork = pick(event);
    setAttr(canvas, 'title', fork ? `${fork.id} · ${fork.state}` : '');
  });

  const draw = (extent: number, now: number, ratio: number): void => {
    const n = timed.length;
    const plotHeight = plotHeightFor(n);
    const plotWidth = width - GUTTER - RIGHT;
    if (plotWidth < 20) return;
    const surface = fitCanvas(canvas, width, TOP + plotHeight + AXIS);
    if (!surface) return;
    const { ctx } = surface;
    const pw = Math.round(plotWidth * ratio);
    const ph = Math.round(plotHeight * ratio);
    if (!image || image.width !== pw || image.height !== ph) image = ctx.createImageData(pw, ph);
    const { perRow, rows } = bucketsFor(n, ph);
    const counts = rasterize(image, timed, perRow, extent, now, ratio);
    ctx.putImageData(image, Math.round(GUTTER * ratio), Math.round(TOP * ratio));

    const ink = inkOf(canvas);
    ctx.font = LABEL_FONT;
    ctx.fillStyle = ink;
    // The time axis: round ticks, a faint line up through the bars at each.
    ctx.textBaseline = 'top';
    ctx.textAlign = 'center';
    for (const t of timeTicks(extent, Math.max(2, Math.floor(plotWidth / 90)))) {
      const x = GUTTER + (t / extent) * plotWidth;
      ctx.globalAlpha = 0.18;
      ctx.fillRect(Math.round(x), TOP, 1 / ratio, plotHeight);
      ctx.globalAlpha = 1;
      ctx.fillText(t === 0 ? '0' : duration(t), x, TOP + plotHeight + 3);
    }
    // The rows with a failed or cancelled fork.
    const strip = GUTTER - STRIP - 2;
    for (let r = 0; r < rows; r++) {
      const failed = counts.failed[r] ?? 0;
      const cancelled = counts.cancelled[r] ?? 0;
      if (failed === 0 && cancelled === 0) continue;
      const share = (failed > 0 ? failed : cancelled) / Math.min(perRow, n - r * perRow);
      const y0 = rowTop(r, rows, ph);
      const y1 = rowTop(r + 1, rows, ph);
      ctx.globalAlpha = 0.3 + 0.7 * share;
      ctx.fillStyle = failed > 0 ? STATE_COLOR.failed : STATE_COLOR.cancelled;
      ctx.fillRect(strip, TOP + y0 / ratio, STRIP, Math.max(1 / ratio, (y1 - y0) / ratio));
    }
    ctx.globalAlpha = 1;
    // The forks' ids: every row's while they fit, else some rows' first fork's.
    ctx.fillStyle = ink;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const rowHeight = plotHeight / rows;
    const every = rowHeight >= 11 ? 1 : Math.ceil(24 / rowHeight);
    for (let r = 0; r < rows; r += every) {
      const fork = timed[r * perRow];
      if (!fork) continue;
      const y = TOP + (every === 1 ? (r + 0.5) * rowHeight : r * rowHeight + 5);
      ctx.fillText(ellipsize(ctx, fork.id, strip - 6), strip - 4, Math.min(y, TOP + plotHeight - 5));
    }
    drawn = { source: timedSource ?? [], width, ratio, extent, now, forks: timed, perRow, rows, plotWidth, plotHeight };
  };

  return {
    element,
    render(store, forks) {
      if (timedSource !== forks) {
        timed = forks.filter((r) => r.startedAt !== undefined);
        timedEnd = lastEvent(timed);
        timedSource = forks;
        const keys = drawnKeys(timed);
        for (const [key, item] of legendItems) item.hidden = !keys.has(key);
        setAttr(canvas, 'data-drawn', [...keys].sort().join(' '));
      }
      const n = timed.length;
      setAttr(canvas, 'data-forks', String(n));
      box.hidden = n === 0;
      note.hidden = n > 0;
      legend.hidden = n === 0;
      element.classList.toggle('untimed', n === 0);
      if (n === 0) {
        setText(note, store.live ? 'No fork has started yet.' : 'No timing in this file.');
        setText(caption, '');
        drawn = undefined;
        return;
      }
      const ratio = window.devicePixelRatio || 1;
      const { perRow } = bucketsFor(n, Math.round(plotHeightFor(n) * ratio));
      const left = forks.length - n;
      const hidden = store.rows().length - forks.length;
      setText(
        caption,
        `${int(n)} forks${perRow > 1 ? ` · ${perRow} to a row` : ''}${left > 0 ? ` · ${int(left)} ${store.live ? 'not started' : 'without times'}` : ''}${hidden > 0 ? ` · ${int(hidden)} filtered out` : ''}`,
      );
      if (width === 0) width = Math.floor(box.getBoundingClientRect().width);
      const now = store.elapsedNow();
      const extent = Math.max(1, now, timedEnd);
      const d = drawn;
      // Unchanged rows, size and scale: nothing would move by a pixel.
      if (d && d.source === forks && d.width === width && d.ratio === ratio) {
        const pixelMs = d.extent / Math.max(1, d.plotWidth * ratio);
        if (Math.abs(extent - d.extent) < pixelMs && Math.abs(now - d.now) < pixelMs) return;
      }
      draw(extent, now, ratio);
    },
  };
}
