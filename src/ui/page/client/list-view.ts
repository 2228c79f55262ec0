/*
 * The fork list, virtualized: a spacer as tall as every row, and a small pool of fixed-height row
 * elements placed over the visible part. Only those rows are in the DOM, so 10,000 forks cost what
 * 40 do. A row's slot is its index modulo the pool's size, so a scroll rewrites only the rows that
 * came into view.
 */
import type { ForkRow } from '../../view.js';
import { h, setAttr, setText } from './dom.js';
import { compact, DASH, duration } from './format.js';
import { createSpanCanvas, drawSpan } from './span-bar.js';

const ROW_HEIGHT = 30;
// Rows drawn beyond each edge, so a fast scroll does not show blank space before the next frame.
const OVERSCAN = 6;

interface Column {
  title: string;
  className: string;
  text(row: ForkRow, now: number): string;
  tip?(row: ForkRow): string;
}

const COLUMNS: Column[] = [
  { title: 'Fork', className: 'c-id', text: (r) => r.id, tip: (r) => r.id },
  // A completed fork whose answer was cut or refused says so in place of its state (its tip says both).
  {
    title: 'State',
    className: 'c-state',
    text: (r) => (r.cut ? 'cut' : r.state),
    tip: (r) => (r.cut ? `completed, the answer not whole: ${r.cut.reason} (${r.cut.raw})` : r.state),
  },
  { title: 'Agent', className: 'c-agent', text: (r) => r.agent, tip: (r) => r.agent },
  { title: 'Turns', className: 'c-num', text: (r) => String(r.turns) },
  { title: 'Tools', className: 'c-num', text: (r) => String(r.toolCalls) },
  {
    title: 'Tokens p · c · o',
    className: 'c-tokens',
    text: (r) => `${compact(r.promptTokens)} · ${r.cachedTokens === null ? 'n/a' : compact(r.cachedTokens)} · ${compact(r.outputTokens)}`,
    tip: (r) => tokensTip(r),
  },
  {
    title: 'Duration',
    className: 'c-num',
    text: (r, now) => (r.startedAt === undefined ? DASH : duration((r.endedAt ?? now) - r.startedAt)),
  },
  {
    title: 'Cache miss',
    className: 'c-miss',
    text: (r) => r.cacheMiss?.reason ?? '',
    tip: (r) => (r.cacheMiss ? `${r.cacheMiss.reason}: ${r.cacheMiss.tokens} tokens short. ${r.cacheMiss.detail}` : ''),
  },
  {
    title: 'Error',
    className: 'c-error',
    text: (r) => (r.error ? `${r.error.kind}: ${r.error.message}` : ''),
    tip: (r) => (r.error ? `${r.error.kind}: ${r.error.message}` : ''),
  },
];
// The span bar sits between the duration and the cache miss.
const BAR_AFTER = 6;

/** Every figure of a fork's tokens, the cache writes and reasoning among them where the provider reports them. */
function tokensTip(r: ForkRow): string {
  const parts = [`${r.promptTokens} prompt`, `${r.cachedTokens === null ? 'n/a' : r.cachedTokens} cached`];
  if (r.cacheWriteTokens !== undefined) parts.push(`${r.cacheWriteTokens} written to the cache`);
  parts.push(`${r.outputTokens} output${r.reasoningTokens !== undefined ? ` (${r.reasoningTokens} reasoning)` : ''}`);
  return parts.join(' · ');
}

interface Slot {
  element: HTMLElement;
  cells: HTMLElement[];
  canvas: HTMLCanvasElement;
  row?: ForkRow;
  drawnScale?: number;
}

export interface ListView {
  element: HTMLElement;
  render(rows: readonly ForkRow[], total: number, now: number, selected: string | null): void;
}

function headCells(): HTMLElement[] {
  const cells = COLUMNS.map((c) => h('div', { class: `cell ${c.className}`, role: 'columnheader' }, c.title));
  cells.splice(BAR_AFTER + 1, 0, h('div', { class: 'cell c-bar', role: 'columnheader' }, 'Span'));
  return cells;
}

function createSlot(): Slot {
  const cells = COLUMNS.map((c) => h('div', { class: `cell ${c.className}`, role: 'cell' }));
  const canvas = createSpanCanvas();
  const bar = h('div', { class: 'cell c-bar', role: 'cell' }, canvas);
  const element = h(
    'div',
    { class: 'row', role: 'row', tabindex: '0', 'data-testid': 'fork-row' },
    ...cells.slice(0, BAR_AFTER + 1),
    bar,
    ...cells.slice(BAR_AFTER + 1),
  );
  return { element, cells, canvas };
}

function fill(slot: Slot, row: ForkRow, index: number, total: number, now: number, selected: boolean): void {
  const el = slot.element;
  el.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
  setAttr(el, 'data-fork-id', row.id);
  setAttr(el, 'data-state', row.state);
  setAttr(el, 'data-cut', row.cut?.reason ?? '');
  // The exact figures (the cell shows them rounded): the header's tokens are their sum.
  setAttr(el, 'data-tokens', `${row.promptTokens} ${row.cachedTokens ?? 'n/a'} ${row.outputTokens}`);
  el.classList.toggle('selected', selected);
  COLUMNS.forEach((column, i) => {
    const cell = slot.cells[i];
    if (!cell) return;
    setText(cell, column.text(row, now));
    if (column.tip) setAttr(cell, 'title', column.tip(row));
  });
  // Redraw only when the row or the scale changed (a quarter of a second of the run's time).
  const scale = Math.round(total / 250);
  if (slot.row !== row || slot.drawnScale !== scale) {
    drawSpan(slot.canvas, row, total, now);
    slot.drawnScale = scale;
  }
  slot.row = row;
}

export function createList(onOpen: (id: string) => void, onScroll: () => void): ListView {
  const head = h('div', { class: 'list-head', role: 'row' }, ...headCells());
  const spacer = h('div', { class: 'list-spacer', role: 'rowgroup' });
  const empty = h('p', { class: 'muted empty' }, 'No forks to show.');
  const viewport = h('div', { class: 'list', role: 'table', 'aria-label': 'Forks', 'data-testid': 'fork-list' }, head, spacer, empty);
  const element = h('section', { class: 'list-section' }, viewport);
  const slots: Slot[] = [];

  viewport.addEventListener('scroll', onScroll, { passive: true });
  new ResizeObserver(onScroll).observe(viewport);
  const open = (event: Event): void => {
    const target = event.target instanceof Element ? event.target.closest('[data-fork-id]') : null;
    const id = target?.getAttribute('data-fork-id');
    if (id) onOpen(id);
  };
  spacer.addEventListener('click', open);
  spacer.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') open(event);
  });

  return {
    element,
    render(rows, total, now, selected) {
      // Reads first, then writes: one layout per frame.
      const top = Math.max(0, viewport.scrollTop - head.offsetHeight);
      const height = viewport.clientHeight;
      spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
      empty.hidden = rows.length > 0;
      const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
      const last = Math.min(rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
      const needed = last - first;
      while (slots.length < needed) slots.push(createSlot());
      const used = new Set<Slot>();
      for (let i = first; i < last; i++) {
        const slot = slots[i % slots.length];
        const row = rows[i];
        if (!slot || !row) continue;
        used.add(slot);
        fill(slot, row, i, total, now, row.id === selected);
        if (!slot.element.isConnected) spacer.append(slot.element);
      }
      // Slots out of view leave the DOM, so that every fork-row element is a fork in view.
      for (const slot of slots) {
        if (!used.has(slot) && slot.element.isConnected) {
          slot.element.remove();
          slot.row = undefined;
        }
      }
    },
  };
}
