import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage, MessageView } from '../shapes/view.js';
import { isReminder } from '../wording/constants.js';

/*
 * Messages an agent writes into a conversation that no person wrote: startup context and
 * compacted-history summaries. Recognized exactly as the reference implementation (Qwen Code,
 * core/environmentContext.ts) recognizes them, so a window over a Qwen Code conversation keeps
 * what Qwen Code keeps. One recognizer for the fork rules and the session importers.
 */

/** The user message a compaction leaves holds this (Qwen Code: "Resume the prior task using the summary above. …"). */
const COMPACTED_SUMMARY_MARK = 'Resume the prior task';
/** Claude Code's compaction summary (a user record with isCompactSummary) opens with this; no acknowledgement follows it. */
const CLAUDE_CODE_SUMMARY_OPENING = 'This session is being continued from a previous conversation';
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

/** A user message of reminders only (and at least one). */
function isReminderOnly(view: MessageView): boolean {
  return view.texts.length > 0 && !view.media && view.results.length === 0 && view.texts.every(isReminder);
}

/**
 * Where a real user turn starts: a user message with something a person wrote — not only tool
 * results, not a reminder, not blank text (an image or a file counts).
 */
export function isRealUserTurn(message: AnyMessage): boolean {
  const view = viewMessage(message);
  return view.role === 'user' && (view.media || view.texts.some((text) => !isReminder(text) && text.trim() !== ''));
}

/**
 * The length of a compacted-history summary starting at `at`: the summary, the model's
 * acknowledgement, then optionally the attachments user message and the model's calls after it
 * (Qwen Code's); or Claude Code's summary alone. 0 when there is none.
 */
function compactedSummaryLength(history: readonly AnyMessage[], at: number): number {
  const summary = view(history[at]);
  if (summary?.role === 'user' && (summary.firstText ?? '').startsWith(CLAUDE_CODE_SUMMARY_OPENING)) return 1;
  const ack = view(history[at + 1]);
  if (summary?.role !== 'user' || !(summary.firstText ?? '').includes(COMPACTED_SUMMARY_MARK)) return 0;
  if (ack?.role !== 'model' || ack.firstText !== COMPACTED_SUMMARY_ACK) return 0;
  const attachments = view(history[at + 2]);
  const isAttachments =
    attachments?.role === 'user' && attachments.texts.some((text) => POST_COMPACT_ATTACHMENT_OPENINGS.some((o) => text.startsWith(o)));
  if (!isAttachments) return 2;
  const calls = view(history[at + 3]);
  return calls?.role === 'model' && calls.calls.length > 0 ? 4 : 3;
}

/**
 * How many leading messages are startup context: one reminder-only user message, or the legacy
 * pair (a user message and the model's "Got it. Thanks for the context!"). With
 * `includeCompacted`, a compacted-history summary at the start (or right after a startup
 * reminder) counts too. Works on every shape (Gemini Content, Chat Completions and Anthropic messages).
 */
export function syntheticPrefixLength(history: readonly AnyMessage[], options: { includeCompacted?: boolean } = {}): number {
  const first = view(history[0]);
  if (first?.role !== 'user') return 0;
  if (isReminderOnly(first)) {
    const compacted = options.includeCompacted === true ? compactedSummaryLength(history, 1) : 0;
    return 1 + compacted;
  }
  if (view(history[1])?.role === 'model' && view(history[1])?.firstText === LEGACY_STARTUP_ACK) return 2;
  return options.includeCompacted === true ? compactedSummaryLength(history, 0) : 0;
}

function view(message: AnyMessage | undefined): MessageView | undefined {
  return message === undefined ? undefined : viewMessage(message);
}
