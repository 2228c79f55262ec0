/**
 * One table per command: each flag's parse type and its help line come from the same entry, so
 * parsing and `--help` cannot drift apart.
 */
interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's name in the help line (`--threads N`). */
  arg?: string;
  /** Help text; further lines are indented under the first. Omitted: the flag is accepted but not listed. */
  help?: string;
  /** The help section it is listed under. */
  group?: string;
}

export type FlagTable = Record<string, Flag>;

type ParseOptions<T extends FlagTable> = { [K in keyof T]: { type: T[K]['type']; short?: string } };

/** The table as node:util parseArgs options. */
export function parseOptionsOf<const T extends FlagTable>(table: T): ParseOptions<T> {
  const out: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, flag] of Object.entries(table)) out[name] = { type: flag.type, ...(flag.short ? { short: flag.short } : {}) };
  return out as ParseOptions<T>;
}

const COLUMN = 28;

/** The help lines of a table, grouped in the order the groups first appear. */
export function helpOf(table: FlagTable): string {
  const groups = new Map<string, string[]>();
  for (const [name, flag] of Object.entries(table)) {
    if (flag.help === undefined) continue;
    const head = `  --${name}${flag.arg ? ` ${flag.arg}` : ''}`;
    const [first = '', ...rest] = flag.help.split('\n');
    const lines = [
      head.length < COLUMN ? `${head.padEnd(COLUMN)}${first}` : `${head}   ${first}`,
      ...rest.map((line) => `${' '.repeat(COLUMN)}${line}`),
    ];
    const group = flag.group ?? '';
    groups.set(group, [...(groups.get(group) ?? []), ...lines]);
  }
  return [...groups].map(([group, lines]) => (group ? [`${group}:`, ...lines] : lines).join('\n')).join('\n');
}
