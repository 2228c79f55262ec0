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
/** Every help fits a terminal of this many columns. */
const HELP_WIDTH = 100;

/**
 * A flag's help as lines of at most `width` characters (the first: `firstWidth`): its own line
 * breaks are soft (a word longer than the width stands alone).
 */
function reflow(text: string, firstWidth: number, width: number): string[] {
  // A line that ends in "/" goes on without a space (a path or a package name cut in two).
  const words = text
    .replace(/\/\n/g, '/')
    .split(/\s+/)
    .filter((word) => word !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length > (lines.length === 0 ? firstWidth : width)) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** The help lines of a table, grouped in the order the groups first appear. */
export function helpOf(table: FlagTable): string {
  const groups = new Map<string, string[]>();
  for (const [name, flag] of Object.entries(table)) {
    if (flag.help === undefined) continue;
    const head = `  --${name}${flag.arg ? ` ${flag.arg}` : ''}`;
    // A head too long for its column pushes the first line of text right (and makes it shorter).
    const start = head.length < COLUMN ? head.padEnd(COLUMN) : `${head}   `;
    const [first = '', ...rest] = reflow(flag.help, HELP_WIDTH - start.length, HELP_WIDTH - COLUMN);
    const lines = [`${start}${first}`, ...rest.map((line) => `${' '.repeat(COLUMN)}${line}`)];
    const group = flag.group ?? '';
    groups.set(group, [...(groups.get(group) ?? []), ...lines]);
  }
  return [...groups].map(([group, lines]) => (group ? [`${group}:`, ...lines] : lines).join('\n')).join('\n');
}

/** A help's closing section: each example's command line, and under it what it does. */
export function examplesOf(examples: readonly (readonly [command: string, what: string])[]): string {
  return ['Examples:', ...examples.flatMap(([command, what]) => [`  ${command}`, `      ${what}`])].join('\n');
}
