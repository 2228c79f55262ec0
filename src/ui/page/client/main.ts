/*
 * The page: a report's embedded snapshot drawn once, or a live run's feed. Every change marks the
 * page dirty and one animation frame redraws it, however many patches arrived in between.
 */
import type { ForkRow, RunSnapshot } from '../../view.js';
import { type Api, createApi } from './api.js';
import { connect } from './connection.js';
import { createDetail } from './detail-view.js';
import { h } from './dom.js';
import { createFigures } from './figures-view.js';
import { applyFilter, type Filter, type FilterCounts } from './filter.js';
import { frameScheduler } from './frame.js';
import { createList } from './list-view.js';
import { createMisses } from './misses-view.js';
import { createParentPanel } from './parent-view.js';
import { RunStore } from './store.js';
import { createSummary } from './summary-view.js';
import { createTimeline } from './timeline-view.js';
import { createToolbar } from './toolbar-view.js';

const embedded = document.getElementById('forkpool-snapshot');
const snapshot = embedded ? (JSON.parse(embedded.textContent ?? '') as RunSnapshot) : null;
const api: Api | null = snapshot ? null : createApi(new URLSearchParams(location.search).get('token') ?? '');
const store = new RunStore(snapshot === null);

const filter: Filter = { state: 'all', query: '' };
let filtered: ForkRow[] = [];
let filterCounts: FilterCounts = { all: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
let filteredVersion = -1;
let selected: string | null = null;
// Marked once, when the first forks are on the page: what a benchmark times.
let firstRenderMarked = false;
// A patch drawn is marked with the server's time of it (a benchmark observes the marks for the delay).
let patchPending = false;

const render = (): void => {
  if (filteredVersion !== store.version) {
    ({ shown: filtered, counts: filterCounts } = applyFilter(store.rows(), filter));
    filteredVersion = store.version;
  }
  summary.render(store);
  timeline.render(store, filtered);
  figures.render(store);
  misses.render(store);
  parentPanel.render(store);
  toolbar.render(store, filterCounts, filtered.length);
  list.render(filtered, Math.max(1, store.elapsedNow()), store.elapsedNow(), selected);
  detail.sync(store);
  if (!firstRenderMarked && store.rows().length > 0) {
    firstRenderMarked = true;
    performance.mark('forkpool:first-render');
  }
  if (patchPending) {
    patchPending = false;
    // Only the last is kept: a page open for hours does not pile them up.
    performance.clearMarks('forkpool:patch-drawn');
    performance.mark('forkpool:patch-drawn', { detail: { sentAt: store.summary.startedAt + store.summary.elapsedMs } });
  }
};
const schedule = frameScheduler(render);
const refilter = (): void => {
  filteredVersion = -1;
  schedule();
};

const summary = createSummary(document.title, () => (api ? api.stop() : Promise.resolve(false)));
const misses = createMisses();
const toolbar = createToolbar(filter, refilter);
const detail = createDetail(api, () => {
  selected = null;
  schedule();
});
const openFork = (id: string): void => {
  selected = id;
  detail.open(id, store);
  schedule();
};
const list = createList(openFork, schedule);
const timeline = createTimeline(openFork, schedule);
const figures = createFigures(schedule);
const parentPanel = createParentPanel(openFork);

document.body.append(
  summary.element,
  h(
    'main',
    {},
    h(
      'div',
      { class: 'forks' },
      h('div', { class: 'charts' }, timeline.element, figures.element),
      parentPanel.element,
      misses.element,
      toolbar.element,
      list.element,
    ),
    detail.element,
  ),
);

if (snapshot) {
  store.load(snapshot);
  summary.setStatus('ended');
  schedule();
} else if (api) {
  connect(api, {
    snapshot(s) {
      store.load(s);
      refilter();
    },
    patch(p) {
      store.apply(p);
      patchPending = true;
      schedule();
    },
    status(status) {
      summary.setStatus(status);
      schedule();
    },
  });
  // The elapsed time and the running forks' durations move between patches.
  setInterval(() => {
    if (!store.summary.ended) schedule();
  }, 1000);
}
