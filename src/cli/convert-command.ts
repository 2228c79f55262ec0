import { ConversionError, conversionTargets, convertSession, type ConversionResult } from '../convert/index.js';
import { parseJsonText } from '../input/json.js';
import { loadSession } from '../import/load.js';
import { parseSession } from '../session/parse.js';
import { decodeUtf8, MAX_INPUT_BYTES, readInputStream } from '../session/read.js';
import type { ParentSession, SessionFormat } from '../shapes/registry.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import { writeJsonOut, type CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/** `convert`'s flags: parsing and help both come from here; the targets from the shape registry. */
function convertFlags() {
  return {
    to: { type: 'string', arg: 'FORMAT', help: `${conversionTargets().join(' | ')}:\nthe shape to convert to (required)` },
    out: { type: 'string', arg: 'FILE', help: 'write the converted session to FILE (default: standard output)' },
    'drop-unsupported': {
      type: 'boolean',
      help: 'leave out what the target shape cannot represent, and list it on stderr\n(default: an error naming the first such item)',
    },
    help: { type: 'boolean', short: 'h', help: 'this help' },
  } as const satisfies FlagTable;
}

function convertHelp(): string {
  const targets = conversionTargets();
  return `Usage: forkpool convert SESSION|- --to SHAPE [--out FILE] [--drop-unsupported]

Converts a session from one API shape to another (- reads it from standard input). SHAPE:
${targets.join(', ')}.
A shape that does not convert one way says why. The result is a valid session of the target
shape, written as JSON; a one-line summary goes to stderr, then a line per item left out and per
setting filled in (an Anthropic session's required max_tokens). Anything the target cannot
represent (images, thought signatures, reasoning items, settings it lacks, …) is an error naming
its path, unless --drop-unsupported.

${helpOf(convertFlags())}

${EXIT_CODES_HELP}
For convert, 2 also means a session that cannot be converted (the line says what and why).

${examplesOf([
  ['forkpool convert examples/session.json --to openai-chat --out chat.json', 'the example Gemini session as a Chat Completions session'],
  ['cat s.json | forkpool convert - --to anthropic-messages', 'from standard input to standard output'],
])}`;
}

export async function convertCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(convertFlags()), true);
  if (values.help) {
    io.stdout.write(`${convertHelp()}\n`);
    return 0;
  }
  const [path, ...extra] = positionals;
  if (path === undefined) throw new UsageError('convert: the SESSION file is required (- reads standard input)');
  if (extra.length > 0) throw new UsageError(`convert: takes one SESSION file; ${quoted(extra[0] as string)} is one too many`);
  const to = values.to;
  const TARGETS = conversionTargets();
  if (to === undefined) throw new UsageError(`convert: --to ${TARGETS.join('|')} is required`);
  if (!TARGETS.includes(to))
    throw new UsageError(`convert: --to must be ${TARGETS.slice(0, -1).join(', ')} or ${TARGETS.at(-1)}, not ${quoted(to)}`);

  const source = path === '-' ? '<stdin>' : path;
  const session = path === '-' ? await readStdinSession(io.stdin) : await loadSession(path);
  let result: ConversionResult;
  try {
    result = convertSession(session, to as SessionFormat, { dropUnsupported: values['drop-unsupported'] === true, source });
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    io.stderr.write(`forkpool: ${err.message}${err.droppable ? ' (--drop-unsupported leaves it out)' : ''}\n`);
    return 2;
  }
  await writeJsonOut(io, values.out, result.session);
  io.stderr.write(summary(source, result));
  return 0;
}

async function readStdinSession(stdin: NodeJS.ReadableStream): Promise<ParentSession> {
  const text = decodeUtf8(await readInputStream(stdin, '<stdin>', MAX_INPUT_BYTES), '<stdin>');
  return parseSession(parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { file: '<stdin>' }), '<stdin>');
}

const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/** One line, then one line per item left out. */
function summary(source: string, result: ConversionResult): string {
  const { messages, tools, dropped, notes } = result;
  const left = dropped.length === 0 ? 'nothing dropped' : `${count(dropped.length, 'item')} dropped:`;
  const head = `forkpool: converted ${source} from ${result.from} to ${result.to}: ${count(messages.from, 'message')} → ${messages.to}, ${count(tools, 'tool')}, ${left}`;
  return [
    head,
    ...dropped.map((item) => `  ${item.path ? `${item.path}: ` : ''}${item.what}`),
    ...notes.map((note) => `  note: ${note}`),
    '',
  ].join('\n');
}
