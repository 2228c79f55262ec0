import { readFile } from 'node:fs/promises';
import { InputError } from '../input/errors.js';
import { parseOrThrow } from '../input/issues.js';
import { describeReadError } from '../session/read.js';
import { TranscriptLineSchema, type TranscriptHeader, type TranscriptLine } from './format.js';

/** A transcript as read: its header and every line after it, in order. */
export interface Transcript {
  file: string;
  header: TranscriptHeader;
  lines: TranscriptLine[];
  /** The last line was cut off (the process died while writing it): left out. */
  torn: boolean;
}

/** The kinds this version knows; a line of another kind (a later version's) is skipped. */
const KNOWN = new Set(['header', 'seed', 'message', 'resumed', 'end']);

/**
 * Reads a transcript file. A last line cut off mid-write is left out: a crash can do that, and what
 * it held is done again. Any other line that is not a transcript line is an InputError that names
 * the file, the line and the field.
 */
export async function readTranscript(file: string): Promise<Transcript> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    // The same words as every other file forkpool reads ("file not found", "is a directory, not a file").
    throw new InputError({ file, rule: describeReadError(err) });
  }
  return parseTranscript(text, file);
}

function parseTranscript(text: string, file: string): Transcript {
  const rows = text.split('\n');
  // A line is whole once its newline is written (writer.ts cuts a last line without one away before
  // it appends): one without is torn, even when it parses, so that reader and writer agree.
  const unfinished = rows.pop() ?? '';
  const torn = unfinished.trim() !== '';
  const lines: TranscriptLine[] = [];
  for (const [i, row] of rows.entries()) {
    if (row.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch {
      throw new InputError({ file, line: i + 1, rule: 'a transcript line must be one JSON object' });
    }
    const kind = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
    if (typeof kind === 'string' && !KNOWN.has(kind)) continue;
    // In words, naming the field (never the validator's own text).
    lines.push(parseOrThrow(TranscriptLineSchema, value, { file, line: i + 1 }));
  }
  const first = lines[0];
  if (first?.type !== 'header')
    throw new InputError({ file, line: 1, rule: 'a transcript starts with its header line ({"type":"header",…})' });
  return { file, header: first, lines: lines.slice(1), torn };
}
