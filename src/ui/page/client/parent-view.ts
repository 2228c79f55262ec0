/*
 * A headless parent agent's turns (prompt --ui), above its tasks: each turn's usage, its reply and
 * the calls it made; an agent call that started a task links to that fork's detail.
 */
import { h, setText } from './dom.js';
import { cached, compact, int } from './format.js';
import type { RunStore } from './store.js';

export interface ParentPanel {
  element: HTMLElement;
  render(store: RunStore): void;
}

export function createParentPanel(openFork: (id: string) => void): ParentPanel {
  const state = h('span', { class: 'parent-state', 'data-testid': 'parent-state' });
  const totals = h('span', { class: 'muted' });
  const error = h('p', { class: 'error', 'data-testid': 'parent-error' });
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'parent-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { class: 'num' }, 'Turn'),
        h('th', { class: 'num' }, 'Prompt'),
        h('th', { class: 'num' }, 'Cached'),
        h('th', { class: 'num' }, 'Output'),
        h('th', {}, 'Calls'),
        h('th', {}, 'Reply'),
      ),
    ),
    body,
  );
  const element = h(
    'section',
    { class: 'parent', 'data-testid': 'parent' },
    h('div', { class: 'chart-head' }, h('h2', {}, 'Parent agent'), state, totals),
    error,
    table,
  );
  element.hidden = true;
  let drawn = -1;

  const callCell = (calls: NonNullable<RunStore['parent']>['turns'][number]['calls']): HTMLElement => {
    const cell = h('td', { class: 'parent-calls' });
    for (const call of calls) {
      if (call.taskId === undefined) {
        cell.append(h('span', { class: 'call' }, call.name));
        continue;
      }
      const id = call.taskId;
      const link = h('button', { type: 'button', class: 'link', 'data-testid': 'parent-task', 'data-fork-id': id }, id);
      link.addEventListener('click', () => openFork(id));
      cell.append(h('span', { class: 'call' }, `${call.name} → `, link));
    }
    return cell;
  };

  return {
    element,
    render(store) {
      const parent = store.parent;
      if (parent === undefined || store.parentVersion === drawn) return;
      drawn = store.parentVersion;
      element.hidden = false;
      setText(state, parent.state);
      state.dataset.state = parent.state;
      let prompt = 0;
      let output = 0;
      for (const t of parent.turns) {
        prompt += t.promptTokens;
        output += t.outputTokens;
      }
      setText(totals, `${int(parent.turns.length)} turns · ${compact(prompt)} prompt · ${compact(output)} output tokens`);
      setText(error, parent.error ?? '');
      error.hidden = parent.error === undefined;
      // A parent has tens of turns, not thousands: redrawn whole when it changes.
      body.replaceChildren(
        ...parent.turns.map((t) =>
          h(
            'tr',
            { 'data-testid': 'parent-turn', 'data-turn': String(t.turn) },
            h('td', { class: 'num' }, String(t.turn)),
            h('td', { class: 'num' }, compact(t.promptTokens)),
            h('td', { class: 'num' }, cached(t.cachedTokens)),
            h('td', { class: 'num' }, compact(t.outputTokens)),
            callCell(t.calls),
            h('td', { class: 'parent-reply' }, t.text),
          ),
        ),
      );
    },
  };
}
