import type { Content, Part } from '../session/schema.js';

/*
 * Messages an agent writes into a conversation that no person wrote: startup context and
 * compacted-history summaries. Recognized exactly as the reference implementation (Qwen Code,
 * core/environmentContext.ts) recognizes them, so a window over a Qwen Code conversation keeps
 * what Qwen Code keeps. One recognizer for the fork rules and the session importers.
 */

const SYSTEM_REMINDER_OPEN = '<system-reminder>';
const SYSTEM_REMINDER_CLOSE = '</system-reminder>';
/** The user message a compaction leaves holds this (Qwen Code: "Resume the prior task using the summary above. …"). */
const COMPACTED_SUMMARY_MARK = 'Resume the prior task';
/** The model's acknowledgement of a compacted summary, matched exactly. */
const COMPACTED_SUMMARY_ACK = 'Got it. Thanks for the additional context!';
/** The model's acknowledgement of startup context in older Qwen Code conversations, matched exactly. */
const LEGACY_STARTUP_ACK = 'Got it. Thanks for the context!';
/** A user message right after a compacted summary that starts with one of these is part of it. */
const POST_COMPACT_ATTACHMENT_OPENINGS = [
  '<plan-mode-active>',
  '<background-tasks>',
  'The following files were recently accessed before context was compacted.',
  'Recently accessed file (full current content embedded):',
  'Recent visual snapshots preserved from before context was compacted',
];

type Message = Readonly<Content>;

/** A text part that is one injected reminder: opens with the tag and ends with its close. */
export function isReminderPart(part: Readonly<Part>): boolean {
  return typeof part.text === 'string' && part.text.startsWith(SYSTEM_REMINDER_OPEN) && part.text.trimEnd().endsWith(SYSTEM_REMINDER_CLOSE);
}

/** A message of reminders only (and at least one). */
function isReminderOnly(message: Message): boolean {
  return message.parts.length > 0 && message.parts.every(isReminderPart);
}

/**
 * Where a real user turn starts: a user message with a part a person wrote — not a tool result,
 * not a reminder, not blank text (an image or a file counts).
 */
export function isRealUserTurn(message: Message): boolean {
  return (
    message.role === 'user' &&
    message.parts.some(
      (part) => part.functionResponse === undefined && !isReminderPart(part) && (typeof part.text !== 'string' || part.text.trim() !== ''),
    )
  );
}

const firstText = (message: Message | undefined): string | undefined => {
  const text = message?.parts[0]?.text;
  return typeof text === 'string' ? text : undefined;
};

/**
 * The length of a compacted-history summary starting at `at`: the summary, the model's
 * acknowledgement, then optionally the attachments user message and the model's calls after it.
 * 0 when there is none.
 */
function compactedSummaryLength(history: readonly Message[], at: number): number {
  const summary = history[at];
  const ack = history[at + 1];
  if (summary?.role !== 'user' || !(firstText(summary) ?? '').includes(COMPACTED_SUMMARY_MARK)) return 0;
  if (ack?.role !== 'model' || firstText(ack) !== COMPACTED_SUMMARY_ACK) return 0;
  const attachments = history[at + 2];
  const isAttachments =
    attachments?.role === 'user' &&
    attachments.parts.some((part) => typeof part.text === 'string' && POST_COMPACT_ATTACHMENT_OPENINGS.some((o) => part.text?.startsWith(o)));
  if (!isAttachments) return 2;
  const calls = history[at + 3];
  return calls?.role === 'model' && calls.parts.some((part) => part.functionCall !== undefined) ? 4 : 3;
}

/**
 * How many leading messages are startup context: one reminder-only user message, or the legacy
 * pair (a user message and the model's "Got it. Thanks for the context!"). With
 * `includeCompacted`, a compacted-history summary at the start (or right after a startup
 * reminder) counts too.
 */
export function syntheticPrefixLength(history: readonly Message[], options: { includeCompacted?: boolean } = {}): number {
  const first = history[0];
  if (first?.role !== 'user') return 0;
  if (isReminderOnly(first)) {
    const compacted = options.includeCompacted === true ? compactedSummaryLength(history, 1) : 0;
    return 1 + compacted;
  }
  if (history[1]?.role === 'model' && firstText(history[1]) === LEGACY_STARTUP_ACK) return 2;
  return options.includeCompacted === true ? compactedSummaryLength(history, 0) : 0;
}
