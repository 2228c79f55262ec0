import type { ForkResult } from '../engine/protocol.js';
import type { RunReport } from '../engine/report.js';
import { resultLine } from './result-line.js';

/* Shapes Qwen Code's headless stream-json emits, so its SDK consumers can read ours. */

export function taskStartedLine(taskId: string, toolUseId: string, description: string): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'task_started',
    data: { task_id: taskId, tool_use_id: toolUseId, description, subagent_type: 'fork' },
  });
}

export function taskNotificationLine(result: ForkResult): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'task_notification',
    data: {
      task_id: result.id,
      status: result.status,
      usage: {
        total_tokens: result.usage.promptTokens + result.usage.outputTokens,
        tool_uses: result.toolCalls,
        duration_ms: result.durationMs,
      },
      result: resultLine(result),
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
