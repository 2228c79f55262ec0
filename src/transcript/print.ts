import { findShape, viewMessage } from '../shapes/registry.js';
import type { AnyMessage, MessageReader, MessageView, ResultView } from '../shapes/view.js';
import { FORK_BOILERPLATE_CLOSE, FORK_BOILERPLATE_OPEN } from '../wording/constants.js';
import type { TranscriptHeader, TranscriptLine, TranscriptUsage } from './format.js';
import type { Transcript } from './read.js';

/*
 * A transcript as a person reads it: plain text, the same bytes for the same file (no colors, no
 * clock, no locale but en-US), nothing wrapped. Only what the file holds is printed — the fork's
 * messages and figures, never the process's environment or a request's headers.
 */

/** Tool results and call arguments are cut here: enough to see what happened, not a page of JSON. */
const RESULT_CHARS = 400;
const ARGS_CHARS = 200;
/** The heading shows the directive's first lines only; the seed message below holds all of it. */
const DIRECTIVE_LINES = 3;
const DIRECTIVE_LINE_CHARS = 160;

/** A transcript's messages read by its shape's reader; undefined for a line whose message no reader reads. */
type Viewer = (message: unknown) => MessageView | undefined;
type Line = TranscriptLine;
type SeedLine = Extract<Line, { type: 'seed' }>;
type MessageLine = Extract<Line, { type: 'message' }>;

/** Renders a transcript (as readTranscript returns it) as text, ending with a newline. */
export function printTranscript(transcript: Transcript): string {
  const { header, lines } = transcript;
  const out: string[] = [
    ...heading(
      header,
      lines.find((l): l is SeedLine => l.type === 'seed'),
    ),
    '',
  ];
  // Chat Completions and Anthropic results name their call by id only: the calls seen so far give the name.
  const callNames = new Map<string, string>();
  // The file's messages are in the shape its header names; a shape not registered here is read as a bare message would be.
  const reader = findShape(header.format)?.reader;
  const view = (message: unknown): MessageView | undefined => safeView(message, reader);
  for (const line of lines) out.push(...lineText(line, view, callNames));
  if (transcript.torn) out.push('', '(the last line was cut off mid-write — the process stopped while writing it — and is left out)');
  out.push('', totalsText(lines, view));
  return `${visible(out.join('\n'))}\n`;
}

function heading(header: TranscriptHeader, seed: SeedLine | undefined): string[] {
  const { task } = header;
  const rows: [string, string][] = [['directive', directiveText(task.directive)]];
  if (task.subagentType !== undefined) rows.push(['subagent', task.subagentType]);
  rows.push(['prefix', header.prefixId.slice(0, 12)], ['format', header.format], ['started', header.at]);
  if (seed !== undefined) rows.push(['seeded', seedText(seed)]);
  return [`task ${task.id}`, ...rows.map(([key, value]) => indent(value, `  ${key.padEnd(11)}`, ' '.repeat(13)))];
}

function directiveText(directive: string): string {
  const all = directive.split('\n');
  const shown = all.slice(0, DIRECTIVE_LINES).map((line) => shorten(line, DIRECTIVE_LINE_CHARS));
  if (all.length > DIRECTIVE_LINES) shown.push(`… (${count(all.length - DIRECTIVE_LINES, 'more line')})`);
  return shown.join('\n');
}

function seedText(seed: SeedLine): string {
  const trimmed = seed.trimmed > 0 ? `, ${count(seed.trimmed, 'leading message')} trimmed` : '';
  return `inherits ${count(seed.inherited, 'parent message')}${trimmed} (seed case: ${seed.seedCase})`;
}

function lineText(line: Line, view: Viewer, callNames: Map<string, string>): string[] {
  switch (line.type) {
    case 'header':
      // A second header cannot be written by forkpool (a fresh start rewrites the file); show it, do not hide it.
      return [`── another header: task ${line.taskId} (${line.at}) ──`];
    case 'seed':
      // Shown in the heading.
      return [];
    case 'message':
      return messageText(line, view, callNames);
    case 'resumed':
      return [
        line.from === 'crash' ? `── resumed after a crash (${line.at}) ──` : `── revived by a message from the parent (${line.at}) ──`,
      ];
    case 'end': {
      const head = `── end: ${line.status} after ${count(line.turns, 'turn')} (${line.at}) ──`;
      return line.error === undefined ? [head] : [head, indent(`${line.error.kind}: ${line.error.message}`, '   error: ', '          ')];
    }
  }
}

function messageText(line: MessageLine, viewOf: Viewer, callNames: Map<string, string>): string[] {
  const view = viewOf(line.message);
  if (view === undefined)
    return [
      `[turn ${line.turn}] ${line.role}`,
      `  (not a message of this format: ${shorten(JSON.stringify(line.message) ?? String(line.message), RESULT_CHARS)})`,
    ];
  for (const call of view.calls) if (call.id !== undefined) callNames.set(call.id, call.name);
  // In the order the APIs put them: a user message's results before its words, a model's words before its calls.
  const body = [
    ...view.results.map((result) => resultLine(result, callNames)),
    // A Chat Completions tool message's content is its result, shown as one above.
    ...(view.role === 'tool' ? [] : view.texts).map((text) => indent(collapseBoilerplate(text), '  ', '  ')),
    ...(view.media ? ['  [media: an image, file or audio part]'] : []),
    ...view.calls.map(
      (call) =>
        `  → ${call.name}(${call.args !== undefined ? shorten(JSON.stringify(call.args), ARGS_CHARS) : `<${call.argsError ?? 'no arguments'}>`})`,
    ),
  ];
  // A tool answer belongs to the model turn above it: no heading of its own.
  if (line.role === 'tool') return body;
  const who = line.role === 'seed' ? `[seed] ${view.role}` : `[turn ${line.turn}] ${line.role}`;
  return [line.usage !== undefined ? `${who}  (${usageText(line.usage)})` : who, ...body];
}

/** A reader expects a message of its shape; a transcript line's message is only checked to be there. */
function safeView(message: unknown, reader: MessageReader | undefined): MessageView | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  try {
    return reader !== undefined ? reader.view(message as AnyMessage) : viewMessage(message as AnyMessage);
  } catch {
    return undefined;
  }
}

/** The fork's fixed rules are the same in every child message: one line stands for them. */
function collapseBoilerplate(text: string): string {
  const open = text.indexOf(FORK_BOILERPLATE_OPEN);
  const close = text.indexOf(FORK_BOILERPLATE_CLOSE, open);
  if (open < 0 || close < 0) return text;
  return `${text.slice(0, open)}${FORK_BOILERPLATE_OPEN}…${FORK_BOILERPLATE_CLOSE}${text.slice(close + FORK_BOILERPLATE_CLOSE.length)}`;
}

function resultLine(result: ResultView, callNames: Map<string, string>): string {
  const name = result.name ?? (result.id !== undefined ? (callNames.get(result.id) ?? result.id) : '?');
  return indent(`${result.isError ? 'error: ' : ''}${shorten(result.text, RESULT_CHARS)}`, `  ← ${name}: `, '    ');
}

// ── Figures ───────────────────────────────────────────────────────────────────────────────────

function usageText(usage: TranscriptUsage): string {
  const parts = [
    `prompt ${num(usage.promptTokens)}`,
    `cached ${usage.cachedTokens === null ? 'not reported' : num(usage.cachedTokens)}`,
    `output ${num(usage.outputTokens)}`,
  ];
  if (usage.cacheWriteTokens !== undefined) parts.push(`cache write ${num(usage.cacheWriteTokens)}`);
  return parts.join(' · ');
}

/**
 * Every model call the file holds counts, a call whose turn ran again after a crash too: it was
 * made (and billed). Turns are the distinct turn numbers of model lines; a revival numbers its
 * turns afresh, so each revived stretch counts on its own.
 */
function totalsText(lines: readonly Line[], view: Viewer): string {
  let turns = 0;
  let seen = new Set<number>();
  let calls = 0;
  let toolCalls = 0;
  const sum = { prompt: 0, cached: 0, unreported: 0, output: 0, write: undefined as number | undefined };
  for (const line of lines) {
    if (line.type === 'resumed' && line.from === 'message') seen = new Set();
    if (line.type !== 'message' || line.role !== 'model') continue;
    if (!seen.has(line.turn)) turns++;
    seen.add(line.turn);
    calls++;
    toolCalls += view(line.message)?.calls.length ?? 0;
    const usage = line.usage;
    if (usage === undefined) continue;
    sum.prompt += usage.promptTokens;
    sum.output += usage.outputTokens;
    if (usage.cachedTokens === null) sum.unreported++;
    else sum.cached += usage.cachedTokens;
    if (usage.cacheWriteTokens !== undefined) sum.write = (sum.write ?? 0) + usage.cacheWriteTokens;
  }
  const unreported = sum.unreported > 0 ? ` (${count(sum.unreported, 'call')} did not report it)` : '';
  const write = sum.write !== undefined ? ` · cache write ${num(sum.write)}` : '';
  return `totals: ${count(turns, 'turn')} · ${count(calls, 'model call')} · ${count(toolCalls, 'tool call')} · prompt ${num(sum.prompt)} · cached ${num(sum.cached)}${unreported} · output ${num(sum.output)}${write}`;
}

// ── Text ──────────────────────────────────────────────────────────────────────────────────────

/** Cut at `max` characters, saying how much was left out (never between the halves of a surrogate pair). */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end);
  if (code >= 0xdc00 && code <= 0xdfff) end--;
  return `${text.slice(0, end)}… (${num(text.length - end)} more chars)`;
}

/** The first line after `first`, every further line after `rest`: multi-line text stays in its column. */
function indent(text: string, first: string, rest: string): string {
  return text
    .split('\n')
    .map((line, i) => `${i === 0 ? first : rest}${line}`.trimEnd())
    .join('\n');
}

/**
 * Control characters shown as escapes (newlines and tabs kept): a tool's result is text from
 * anywhere, and an escape sequence in it must not move the cursor, recolor or retitle the terminal.
 */
function visible(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    const control = (code < 0x20 && char !== '\n' && char !== '\t') || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

const num = (n: number): string => n.toLocaleString('en-US');
const count = (n: number, what: string): string => `${num(n)} ${what}${n === 1 ? '' : 's'}`;
