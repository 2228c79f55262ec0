import { printTranscript } from '../transcript/print.js';
import { readTranscript } from '../transcript/read.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import type { CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/** `transcript`'s flags: parsing and help both come from here. */
const TRANSCRIPT_FLAGS = {
  json: {
    type: 'boolean',
    help: 'print the lines as JSON Lines instead, checked and normalized: the header\nfirst, a line cut off mid-write and lines of a later version left out',
  },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const TRANSCRIPT_HELP = `Usage: forkpool transcript FILE [--json]

Prints a task's transcript (a DIR/<task id>.jsonl file of run --transcripts or prompt) for a
person: the task and how it was seeded, then each message in order — the model's texts, its
calls (→) with their usage, the tools' answers (←, cut at 400 characters), the seed's and the
loop's own messages — where the fork was resumed or revived, how each stretch ended, and the
totals (turns, model calls, tokens). A last line cut off mid-write is left out and said so.

${helpOf(TRANSCRIPT_FLAGS)}

${EXIT_CODES_HELP}

${examplesOf([
  ['forkpool run --session s.json --tasks t.jsonl --transcripts runs/', "keep each fork's transcript in runs/<task id>.jsonl"],
  ['forkpool transcript runs/task-1.jsonl', 'read one'],
])}`;

export async function transcriptCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(TRANSCRIPT_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${TRANSCRIPT_HELP}\n`);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('transcript: the transcript FILE is required');
  if (extra.length > 0) throw new UsageError(`transcript: takes one FILE; ${quoted(extra[0] as string)} is one too many`);
  const transcript = await readTranscript(file);
  if (values.json) {
    const lines = [transcript.header, ...transcript.lines];
    io.stdout.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  } else io.stdout.write(printTranscript(transcript));
  return 0;
}
