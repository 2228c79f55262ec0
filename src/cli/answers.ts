import type { ForkResult } from '../result/fork-result.js';
import { answerCut } from '../result/results.js';

/** At most this many lines of a fork's text on screen, each at most ANSWER_COLUMNS wide: a run of any size stays readable. */
const ANSWER_LINES = 3;
const ANSWER_COLUMNS = 100;
const INDENT = '  ';

/**
 * A fork's answer as it ends, for --output-format text: its id and status, then the first lines of
 * its text (or its error), bounded. Printed and forgotten: nothing of it is kept.
 */
export function answerText(result: ForkResult): string {
  const cut = answerCut(result);
  const head = `${result.id} · ${result.status}${cut ? ` (answer cut: ${cut.reason})` : ''}`;
  const body =
    result.status === 'completed'
      ? result.text
      : `${result.error.kind}: ${result.error.message}${result.text.trim() === '' ? '' : `\n${result.text}`}`;
  const lines = body
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  if (lines.length === 0) lines.push('(no text)');
  const shown = lines.slice(0, ANSWER_LINES).map((line) => `${INDENT}${cutTo(line, ANSWER_COLUMNS - INDENT.length)}`);
  const more = lines.length - ANSWER_LINES;
  if (more > 0) shown.push(`${INDENT}… ${more} more line${more === 1 ? '' : 's'}`);
  return [cutTo(head, ANSWER_COLUMNS), ...shown].join('\n');
}

/** A line cut to `width` characters (code points, so a surrogate pair is never split), ending in … when cut. */
function cutTo(line: string, width: number): string {
  // A model's text may hold terminal escapes: shown as text, never run by the terminal.
  const chars = [...line.replace(/\t/g, '  ').replace(/\p{Cc}/gu, '')];
  return chars.length <= width ? chars.join('') : `${chars.slice(0, width - 1).join('')}…`;
}
