import type { SubagentType } from '../session/schema.js';
import { notificationSummary } from '../engine/notification.js';
import type { ForkResult } from '../engine/thread-wire.js';
import type { RunReport } from '../engine/report.js';
import { resultLine } from './result-line.js';

/*
 * Shapes Qwen Code's headless stream-json emits, so its SDK consumers can read ours. Inside a parent
 * loop `tool_use_id` is the model's call id and `task_id` is `fork-<tool_use_id>`; a `run` has no
 * tool call, so its lines carry the task's id and no `tool_use_id`.
 */

export function taskStartedLine(taskId: string, toolUseId: string | undefined, description: string, subagentType = 'fork'): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'task_started',
    data: { task_id: taskId, ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}), description, subagent_type: subagentType },
  });
}

export function taskNotificationLine(result: ForkResult, description: string, subagentType: SubagentType, toolUseId?: string): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'task_notification',
    data: {
      task_id: result.id,
      ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
      status: result.status,
      summary: notificationSummary(result, description),
      usage: {
        total_tokens: result.usage.promptTokens + result.usage.outputTokens,
        tool_uses: result.toolCalls,
        duration_ms: result.durationMs,
      },
      result: resultLine(result, subagentType),
    },
  });
}

export function resultEventLine(report: RunReport, extra: Record<string, unknown> = {}): string {
  const isError = report.forks.failed + report.forks.cancelled > 0;
  return JSON.stringify({
    type: 'result',
    subtype: isError ? 'error' : 'success',
    is_error: isError,
    duration_ms: report.wallMs,
    ...extra,
    usage: {
      input_tokens: report.promptTokens,
      cached_tokens: report.cachedTokens,
      output_tokens: report.outputTokens,
    },
    report: compactReport(report),
  });
}

/** The report without the per-fork rows (those are in the result lines already). */
export function compactReport(report: RunReport): Omit<RunReport, 'perFork'> {
  const { perFork: _perFork, ...rest } = report;
  return rest;
}
