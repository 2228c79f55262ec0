/* The cache misses by reason: how many forks were served less than their maximum, and by how much. */
import { h } from './dom.js';
import { int } from './format.js';
import type { RunStore } from './store.js';

export interface MissesView {
  element: HTMLElement;
  render(store: RunStore): void;
}

export function createMisses(): MissesView {
  const body = h('tbody');
  const none = h('p', { class: 'muted' }, 'No cache misses.');
  const table = h(
    'table',
    { class: 'misses-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Reason'), h('th', { class: 'num' }, 'Forks'), h('th', { class: 'num' }, 'Tokens short'))),
    body,
  );
  const element = h('section', { class: 'misses', 'data-testid': 'cache-misses' }, h('h2', {}, 'Cache misses'), none, table);
  let last: string | undefined;
  return {
    element,
    render(store) {
      const misses = store.summary.cacheMisses;
      // The summary is replaced on every patch: compare by content, not identity.
      const key = JSON.stringify(misses);
      if (key === last) return;
      last = key;
      none.hidden = misses.length > 0;
      table.hidden = misses.length === 0;
      body.replaceChildren(
        ...misses.map((m) =>
          h(
            'tr',
            { 'data-testid': 'cache-miss' },
            h('td', {}, m.reason),
            h('td', { class: 'num' }, int(m.forks)),
            h('td', { class: 'num' }, int(m.tokens)),
          ),
        ),
      );
    },
  };
}
