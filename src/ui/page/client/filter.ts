/* Which rows the list shows: a state (or all) and a search over id, agent, error text and a cut answer's reason. */
import type { ForkRow, ForkState } from '../../view.js';

export interface Filter {
  state: ForkState | 'all';
  query: string;
}

// Rows are replaced, never mutated, on a patch: a key cached per row object stays right.
const keys = new WeakMap<ForkRow, string>();

function searchKey(row: ForkRow): string {
  let key = keys.get(row);
  if (key === undefined) {
    key = [row.id, row.agent, row.error?.kind ?? '', row.error?.message ?? '', row.cut ? `cut ${row.cut.reason} ${row.cut.raw}` : '']
      .join('\n')
      .toLowerCase();
    keys.set(row, key);
  }
  return key;
}

/** The rows the filter shows, and how many rows each state's button would show with the same search. */
export function applyFilter(rows: readonly ForkRow[], filter: Filter): { shown: ForkRow[]; counts: FilterCounts } {
  const query = filter.query.trim().toLowerCase();
  const shown: ForkRow[] = [];
  const counts: FilterCounts = { all: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const row of rows) {
    if (query !== '' && !searchKey(row).includes(query)) continue;
    counts.all++;
    counts[row.state]++;
    if (filter.state !== 'all' && row.state !== filter.state) continue;
    shown.push(row);
  }
  return { shown, counts };
}

export type FilterCounts = Record<ForkState | 'all', number>;
