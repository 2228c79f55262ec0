/*
 * A fork's time span within the run, drawn on a small canvas per visible row: the bar from its
 * start to its end (or now), its model calls as full ticks, its tool calls as half ticks, failed
 * tools in red. A canvas costs one draw per visible row, whatever the number of marks.
 */
import type { ForkRow } from '../../view.js';
import { MARK_COLOR, STATE_COLOR } from './palette.js';

const BAR_WIDTH = 150;
const BAR_HEIGHT = 14;

export function createSpanCanvas(): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(BAR_WIDTH * ratio);
  canvas.height = Math.round(BAR_HEIGHT * ratio);
  canvas.style.width = `${BAR_WIDTH}px`;
  canvas.style.height = `${BAR_HEIGHT}px`;
  canvas.className = 'span-bar';
  return canvas;
}

/** Draws row's span on a scale of [0, total] ms; `now` ends a span still running. */
export function drawSpan(canvas: HTMLCanvasElement, row: ForkRow, total: number, now: number): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const ratio = canvas.width / BAR_WIDTH;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, BAR_WIDTH, BAR_HEIGHT);
  ctx.fillStyle = 'rgba(128,128,128,0.12)';
  ctx.fillRect(0, 0, BAR_WIDTH, BAR_HEIGHT);
  if (row.startedAt === undefined || total <= 0) return;
  const x = (at: number): number => Math.min(BAR_WIDTH, Math.max(0, (at / total) * BAR_WIDTH));
  const x0 = x(row.startedAt);
  const x1 = Math.max(x0 + 1, x(row.endedAt ?? now));
  ctx.globalAlpha = 0.45;
  ctx.fillStyle = STATE_COLOR[row.state];
  ctx.fillRect(x0, 2, x1 - x0, BAR_HEIGHT - 4);
  ctx.globalAlpha = 1;
  for (const mark of row.marks) {
    const mx = Math.floor(x(mark.at));
    ctx.fillStyle = MARK_COLOR[mark.kind];
    if (mark.kind === 'tool') ctx.fillRect(mx, BAR_HEIGHT / 2, 1, BAR_HEIGHT / 2);
    else ctx.fillRect(mx, 0, 1, BAR_HEIGHT);
  }
}
