/* The list's filter buttons (one per state, with its count) and the search box. */
import type { ForkState } from '../../view.js';
import { h, setAttr, setText } from './dom.js';
import type { Filter } from './filter.js';
import { STATES, type RunStore } from './store.js';

export interface ToolbarView {
  element: HTMLElement;
  render(store: RunStore, shown: number): void;
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
  const shownText = h('span', { class: 'muted shown' });
  const element = h('div', { class: 'toolbar' }, ...[...buttons.values()].map((b) => b.button), search, shownText);
  return {
    element,
    render(store, shown) {
      const forks = store.summary.forks;
      for (const [state, { button, count }] of buttons) {
        setText(count, String(state === 'all' ? forks.total : forks[state]));
        setAttr(button, 'aria-pressed', String(filter.state === state));
      }
      setText(shownText, `${shown} shown`);
    },
  };
}
