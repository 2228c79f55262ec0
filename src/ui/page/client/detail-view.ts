/*
 * A fork's detail, opened from the list: its row's figures at once, then its directive, turns,
 * tool calls and final text or error: a report's from the report itself, a live run's from
 * GET /fork, fetched again as the fork moves on. A "Stop" button while it is queued or running
 * (live only).
 */
import { cutWords } from '../../../model/finish.js';
import type { ForkDetail, ForkRow } from '../../view.js';
import type { Api } from './api.js';
import { h, setText } from './dom.js';
import { cached, compact, DASH, duration, int, pct, usd } from './format.js';
import type { RunStore } from './store.js';

// A running fork's detail is fetched again at most this often.
const REFRESH_MS = 1000;

export interface DetailView {
  element: HTMLElement;
  open(id: string, store: RunStore): void;
  /** After a patch: the open fork's row may have changed. */
  sync(store: RunStore): void;
}

function facts(row: ForkRow): HTMLElement {
  const items: [string, string][] = [
    ['State', row.state],
    ['Agent', row.agent],
    ['Started', row.startedAt === undefined ? DASH : `+${duration(row.startedAt)}`],
    ['Ended', row.endedAt === undefined ? DASH : `+${duration(row.endedAt)}`],
    ['Turns', String(row.turns)],
    ['Tool calls', String(row.toolCalls)],
    ['Tokens', tokensText(row)],
  ];
  if (row.cut) items.push(['Answer', `not whole: ${cutWords(row.cut.reason)} (${row.cut.raw}); the text below is what came`]);
  if (row.costUsd !== undefined) items.push(['Cost', usd(row.costUsd)]);
  if (row.cacheMiss)
    items.push(['Cache miss', `${row.cacheMiss.reason}: ${int(row.cacheMiss.tokens)} tokens short. ${row.cacheMiss.detail}`]);
  const list = h('dl', { class: 'facts' }, ...items.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  if (!row.error) return list;
  return h('div', {}, list, h('pre', { class: 'text error', 'data-testid': 'detail-error' }, `${row.error.kind}: ${row.error.message}`));
}

function tokensText(row: ForkRow): string {
  const parts = [`${int(row.promptTokens)} prompt`, `${row.cachedTokens === null ? 'n/a' : int(row.cachedTokens)} cached`];
  if (row.cacheWriteTokens !== undefined) parts.push(`${int(row.cacheWriteTokens)} written to the cache`);
  parts.push(`${int(row.outputTokens)} output${row.reasoningTokens !== undefined ? ` (${int(row.reasoningTokens)} reasoning)` : ''}`);
  return parts.join(' · ');
}

function table(head: string[], rows: string[][], numeric: boolean[], testid: string): HTMLElement {
  const cls = (i: number): Record<string, string> => (numeric[i] ? { class: 'num' } : {});
  return h(
    'table',
    { 'data-testid': testid },
    h('thead', {}, h('tr', {}, ...head.map((t, i) => h('th', cls(i), t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((t, i) => h('td', cls(i), t))))),
  );
}

function detailBody(detail: ForkDetail, row: ForkRow | undefined): Node[] {
  const out: Node[] = [];
  // A report's line of an older forkpool: what it does not carry, said once, instead of empty tables.
  if (detail.lacks)
    out.push(h('p', { class: 'muted lacks', 'data-testid': 'detail-lacks' }, `Its result line does not carry ${detail.lacks.join(', ')}.`));
  if (detail.cache)
    out.push(
      h(
        'p',
        { 'data-testid': 'detail-efficiency' },
        `Efficiency ${pct(detail.cache.efficiency)} of the ${int(detail.cache.maxCachedTokens)} tokens its calls could be served from cache at most.`,
      ),
    );
  // The whole directive: the list and the timeline show only the id.
  if (detail.directive !== '' || !detail.lacks)
    out.push(h('h3', {}, 'Directive'), h('pre', { class: 'text', 'data-testid': 'detail-directive' }, detail.directive));
  const hasTurns = detail.turns.length > 0 || !detail.lacks?.some((l) => l.includes('turns'));
  if (hasTurns) {
    out.push(h('h3', {}, `Turns (${detail.turns.length})`));
    // Written and reasoning columns only where the provider reports them; times and calls only where known (not in a report).
    const written = detail.turns.some((t) => t.cacheWriteTokens !== undefined);
    const reasoning = detail.turns.some((t) => t.reasoningTokens !== undefined);
    const timed = detail.turns.some((t) => t.at !== undefined);
    const calls = detail.turns.some((t) => t.functionCalls !== undefined);
    const opt = (n: number | undefined): string => (n === undefined ? DASH : compact(n));
    out.push(
      table(
        [
          'Turn',
          ...(timed ? ['At'] : []),
          'Prompt',
          'Cached',
          ...(written ? ['Written'] : []),
          'Output',
          ...(reasoning ? ['Reasoning'] : []),
          ...(calls ? ['Calls'] : []),
          'Finish',
        ],
        detail.turns.map((t) => [
          String(t.turn),
          ...(timed ? [t.at === undefined ? DASH : `+${duration(t.at)}`] : []),
          compact(t.promptTokens),
          cached(t.cachedTokens),
          ...(written ? [opt(t.cacheWriteTokens)] : []),
          compact(t.outputTokens),
          ...(reasoning ? [opt(t.reasoningTokens)] : []),
          ...(calls ? [t.functionCalls === undefined ? DASH : String(t.functionCalls)] : []),
          t.finish ? (t.finish.reason === t.finish.raw ? t.finish.reason : `${t.finish.reason} (${t.finish.raw})`) : DASH,
        ]),
        [
          true,
          ...(timed ? [true] : []),
          true,
          true,
          ...(written ? [true] : []),
          true,
          ...(reasoning ? [true] : []),
          ...(calls ? [true] : []),
          false,
        ],
        'detail-turns',
      ),
    );
  }
  const hasTools = detail.tools.length > 0 || !detail.lacks?.some((l) => l.includes('tool calls'));
  if (hasTools) {
    const timed = detail.tools.some((t) => t.at !== undefined);
    out.push(h('h3', {}, `Tool calls (${detail.tools.length})`));
    out.push(
      table(
        [...(timed ? ['At'] : []), 'Tool', 'Status', 'Error'],
        detail.tools.map((t) => [...(timed ? [t.at === undefined ? DASH : `+${duration(t.at)}`] : []), t.tool, t.status, t.error ?? '']),
        [...(timed ? [true] : []), false, false, false],
        'detail-tools',
      ),
    );
  }
  // The row's error is shown above already; the detail's only when it says more.
  if (detail.error && detail.error.message !== row?.error?.message)
    out.push(h('h3', {}, 'Error'), h('pre', { class: 'text error' }, `${detail.error.kind}: ${detail.error.message}`));
  if (detail.text !== undefined)
    out.push(h('h3', {}, 'Final text'), h('pre', { class: 'text', 'data-testid': 'detail-text' }, detail.text));
  return out;
}

export function createDetail(api: Api | null, onClose: () => void): DetailView {
  const title = h('h2', {});
  const stop = h('button', { type: 'button', class: 'danger', 'data-testid': 'detail-stop' }, 'Stop');
  const answer = h('span', { class: 'answer', 'data-testid': 'detail-stop-answer' });
  const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Close' }, '×');
  const factsBox = h('div', {});
  const body = h('div', { class: 'detail-body' });
  const element = h(
    'aside',
    { class: 'detail', 'data-testid': 'detail' },
    h('div', { class: 'detail-head' }, title, h('span', { class: 'spacer' }), answer, stop, close),
    factsBox,
    body,
  );
  element.hidden = true;

  let id: string | null = null;
  let shownRow: ForkRow | undefined;
  let request = 0;
  let fetchedAt = 0;
  let refreshTimer: number | undefined;

  const load = (forkId: string): void => {
    if (!api) return;
    const mine = ++request;
    fetchedAt = performance.now();
    api.fork(forkId).then(
      (detail) => {
        if (mine !== request) return;
        body.replaceChildren(
          ...(detail ? detailBody(detail, shownRow) : [h('p', { class: 'muted' }, 'This fork is not known to the server.')]),
        );
      },
      (err: unknown) => {
        if (mine === request) body.replaceChildren(h('p', { class: 'error' }, `Could not load the detail: ${String(err)}`));
      },
    );
  };

  const showRow = (store: RunStore, row: ForkRow): void => {
    shownRow = row;
    setText(title, row.id);
    factsBox.replaceChildren(facts(row));
    stop.hidden = !(store.live && (row.state === 'queued' || row.state === 'running'));
  };

  stop.addEventListener('click', () => {
    if (!api || id === null) return;
    const forkId = id;
    stop.disabled = true;
    setText(answer, 'stopping…');
    api.stop(forkId).then(
      (stopped) => {
        if (forkId === id) setText(answer, stopped ? 'stop requested' : 'not stopped: it had ended');
      },
      (err: unknown) => {
        if (forkId !== id) return;
        stop.disabled = false;
        setText(answer, `stop failed: ${String(err)}`);
      },
    );
  });
  close.addEventListener('click', () => {
    id = null;
    request++;
    element.hidden = true;
    onClose();
  });

  return {
    element,
    open(forkId, store) {
      const row = store.row(forkId);
      if (!row) return;
      id = forkId;
      element.hidden = false;
      stop.disabled = false;
      setText(answer, '');
      showRow(store, row);
      const known = store.detail(forkId);
      if (known) {
        // A report carries its forks' details: nothing to fetch.
        request++;
        body.replaceChildren(...detailBody(known, row));
      } else if (api && store.live) {
        body.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
        load(forkId);
      } else {
        body.replaceChildren(h('p', { class: 'muted' }, 'This report holds no per-fork detail beyond the figures above.'));
      }
    },
    sync(store) {
      if (id === null) return;
      const row = store.row(id);
      if (!row || row === shownRow) return;
      showRow(store, row);
      if (!api || !store.live) return;
      // Fetch again as the fork moves on, at most once a REFRESH_MS.
      const wait = REFRESH_MS - (performance.now() - fetchedAt);
      if (refreshTimer !== undefined) return;
      const forkId = id;
      refreshTimer = window.setTimeout(
        () => {
          refreshTimer = undefined;
          if (forkId === id) load(forkId);
        },
        Math.max(0, wait),
      );
    },
  };
}
