import { parseArgs, type ParseArgsConfig } from 'node:util';

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: boolean; tokens: true }>>;
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict, plus one rule it lacks: a value flag given twice is an error,
 * since silently keeping the last value hides a typo in a long command line.
 */
export function parseFlags<const O extends Options>(args: string[], options: O, allowPositionals: boolean): Parsed<O> {
  const parsed = parseOrSuggest(joinNegativeValues(args, options), options, allowPositionals);
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || options[token.name]?.type !== 'string') continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given twice; give it once`);
    seen.add(token.name);
  }
  return parsed;
}

function parseOrSuggest<const O extends Options>(args: string[], options: O, allowPositionals: boolean): Parsed<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals, tokens: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const given = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^'=]+)/.exec((err as Error).message)?.[1] : undefined;
    if (given === undefined) throw err;
    const near = given.startsWith('--') ? nearestName(given.slice(2), Object.keys(options)) : undefined;
    // Kept a parse error (main adds where the flags are listed), in forkpool's words.
    throw Object.assign(new Error(`unknown flag ${given}${near === undefined ? '' : ` (did you mean --${near}?)`}`), { code });
  }
}

/** The name (a command's flag, a command) a misspelt one most likely meant: the fewest edits away, at most 2 (1 for a short name). */
export function nearestName(flag: string, names: readonly string[]): string | undefined {
  const most = flag.length <= 4 ? 1 : 2;
  let best: { name: string; edits: number } | undefined;
  for (const name of names) {
    // More letters apart than the edits allowed: too far, and not worth the table (a 100,000-character flag).
    if (Math.abs(name.length - flag.length) > most) continue;
    const edits = editDistance(flag, name);
    if (edits <= most && (best === undefined || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * `--concurrency -1` as `--concurrency=-1`: parseArgs takes a value that starts with `-` for an
 * option and calls the flag "ambiguous"; a negative number is a value, which the flag's own check
 * then refuses with the same message as 0.
 */
function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (arg === '--') return [...joined, ...args.slice(i)];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** A flag that names a TCP port on 127.0.0.1 (`--metrics-port`, `--ui-port`): 0 for a free one. */
export function portOf(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new UsageError(`--${flag}: a port from 0 to 65535 (0: a free one), got ${quoted(value)}`);
  return Number(value);
}

/** A user's value quoted in an error, cut so a huge argument cannot flood the terminal. */
export function quoted(value: string, max = 80): string {
  return value.length > max ? `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)` : JSON.stringify(value);
}
