import { parseArgs, type ParseArgsConfig } from 'node:util';

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: boolean; tokens: true }>>;
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict, plus one rule it lacks: a value flag given twice is an error,
 * since silently keeping the last value hides a typo in a long command line.
 */
export function parseFlags<const O extends Options>(args: string[], options: O, allowPositionals: boolean): Parsed<O> {
  const parsed = parseArgs({ args: joinNegativeValues(args, options), options, strict: true, allowPositionals, tokens: true });
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || options[token.name]?.type !== 'string') continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given twice; give it once`);
    seen.add(token.name);
  }
  return parsed;
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
