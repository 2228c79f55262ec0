/*
 * The list's filter buttons (one per state, with how many rows it shows under the search) and the
 * search box. Tasks of a stream not started yet have no row: a note says how many.
 */
import type { ForkState } from '../../view.js';
import { h, setAttr, setText } from './dom.js';
import type { Filter, FilterCounts } from './filter.js';
import { STATES, type RunStore } from './store.js';

export interface ToolbarView {
  element: HTMLElement;
  render(store: RunStore, counts: FilterCounts, shown: number): void;
}

export function createToolbar(filter: Filter, onChange: () => void): ToolbarView {
  const buttons = new Map<ForkState | 'all', { button: HTMLButtonElement; count: HTMLElement }>();
  for (const state of ['all', ...STATES] as const) {
    const count = h('span', { class: 'filter-count' }, '0');
    const button = h('button', { type: 'button', class: `filter state-${state}`, 'data-testid': `filter-${state}` }, `${state} `, count);
    button.addEventListener('click', () => {
      filter.state = state;
      onChange();
    });
    buttons.set(state, { button, count });
  }
  const search = h('input', {
    type: 'search',
    placeholder: 'Search id, agent, error',
    'data-testid': 'search',
    'aria-label': 'Search forks',
  });
  search.addEventListener('input', () => {
    filter.query = search.value;
    onChange();
  });
  const shownText = h('span', { class: 'muted shown', 'data-testid': 'shown' });
  const unlisted = h('span', { class: 'muted', 'data-testid': 'unlisted' });
  const element = h('div', { class: 'toolbar' }, ...[...buttons.values()].map((b) => b.button), search, shownText, unlisted);
  return {
    element,
    render(store, counts, shown) {
      for (const [state, { button, count }] of buttons) {
        setText(count, String(counts[state]));
        setAttr(button, 'aria-pressed', String(filter.state === state));
      }
      setText(shownText, `${shown} shown`);
      const waiting = store.summary.forks.total - store.rows().length;
      unlisted.hidden = waiting <= 0;
      setText(unlisted, waiting > 0 ? `· ${waiting} more queued, listed when they start` : '');
    },
  };
}
