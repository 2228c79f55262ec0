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

export function applyFilter(rows: readonly ForkRow[], filter: Filter): ForkRow[] {
  const query = filter.query.trim().toLowerCase();
  const out: ForkRow[] = [];
  for (const row of rows) {
    if (filter.state !== 'all' && row.state !== filter.state) continue;
    if (query !== '' && !searchKey(row).includes(query)) continue;
    out.push(row);
  }
  return out;
}
