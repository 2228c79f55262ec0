import { billedTokens } from '../model/types.js';
import type { ForkResult } from '../result/fork-result.js';

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] as string);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * The `<task-notification>` a parent agent loop feeds back to its model when a task ends, in the
 * reference's order: with the call that launched it (`toolUseId`) and its transcript
 * (`outputFile`) when there are. Every value is escaped: a fork's text must not be able to close
 * the block or forge another.
 */
export function formatTaskNotification(
  result: ForkResult,
  description: string,
  about: { toolUseId?: string; outputFile?: string } = {},
): string {
  const summary = notificationSummary(result, description);
  const totalTokens = billedTokens(result.usage);
  return [
    '<task-notification>',
    `<task-id>${escapeXml(result.id)}</task-id>`,
    ...(about.toolUseId !== undefined ? [`<tool-use-id>${escapeXml(about.toolUseId)}</tool-use-id>`] : []),
    ...(about.outputFile !== undefined ? [`<output-file>${escapeXml(about.outputFile)}</output-file>`] : []),
    `<status>${escapeXml(result.status)}</status>`,
    `<summary>${escapeXml(summary)}</summary>`,
    `<result>${escapeXml(result.text)}</result>`,
    `<usage><total_tokens>${totalTokens}</total_tokens><tool_uses>${result.toolCalls}</tool_uses><duration_ms>${result.durationMs}</duration_ms></usage>`,
    '</task-notification>',
  ].join('\n');
}

/** One line on how a task ended, the reference's words for a fork and a sub-agent alike (a failure's message is folded onto that line). */
export function notificationSummary(result: ForkResult, description: string): string {
  const summary =
    result.status === 'completed'
      ? `Agent "${description}" completed.`
      : result.status === 'cancelled'
        ? `Agent "${description}" was cancelled.`
        : `Agent "${description}" failed (${result.error.kind}): ${result.error.message}`;
  return summary.replace(/\s*\n\s*/g, ' ');
}
