import { randomUUID } from 'node:crypto';
import type { SubagentType } from '../session/schema.js';
import { notificationSummary } from '../engine/notification.js';
import type { ForkResult } from '../engine/thread-wire.js';
import type { RunReport } from '../engine/report.js';
import { resultLine } from './result-line.js';

/*
 * Shapes Qwen Code's headless stream-json emits, so its SDK consumers can read ours. Every line has
 * the reference's envelope: `uuid` (its own), `session_id` (the invocation's) and
 * `parent_tool_use_id` (null: background tasks stream no inner lines). Inside a parent loop
 * `tool_use_id` is the model's call id and `task_id` is `<subagent type>-<tool_use_id>`; a `run`
 * has no tool call, so its lines carry the task's id and no `tool_use_id`.
 */

/** One invocation's stream: its session id, stamped on every line. */
export interface StreamSession {
  id: string;
}

export function streamSession(id: string = randomUUID()): StreamSession {
  return { id };
}

function line(session: StreamSession, type: string, subtype: string | undefined, body: Record<string, unknown>): string {
  return JSON.stringify({ type, ...(subtype !== undefined ? { subtype } : {}), uuid: randomUUID(), session_id: session.id, parent_tool_use_id: null, ...body });
}

export function taskStartedLine(session: StreamSession, taskId: string, toolUseId: string | undefined, description: string, subagentType: SubagentType): string {
  return line(session, 'system', 'task_started', {
    data: { task_id: taskId, ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}), description, subagent_type: subagentType },
  });
}

/**
 * A task's end: the reference's user line (`Background agent "<type>: <description>" completed.`,
 * what its UI shows), then the `task_notification` system line.
 */
export function taskNotificationLines(session: StreamSession, result: ForkResult, description: string, subagentType: SubagentType, toolUseId?: string): string {
  const ended = result.status === 'completed' ? 'completed' : result.status === 'failed' ? 'failed' : 'was cancelled';
  const label = `${subagentType}: ${description.length > 40 ? `${description.slice(0, 40)}…` : description}`;
  const display = line(session, 'user', undefined, { message: { role: 'user', content: [{ type: 'text', text: `Background agent "${label}" ${ended}.` }] } });
  const notification = line(session, 'system', 'task_notification', {
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
  return `${display}\n${notification}`;
}

/** The last line: the reference's `result` (subtype success or error_during_execution; error_max_turns when the parent ran out of turns). */
export function resultLineOf(session: StreamSession, isError: boolean, body: Record<string, unknown>, maxTurns = false): string {
  return line(session, 'result', isError ? (maxTurns ? 'error_max_turns' : 'error_during_execution') : 'success', { is_error: isError, ...body });
}

export function resultEventLine(session: StreamSession, report: RunReport, extra: Record<string, unknown> = {}): string {
  const isError = report.forks.failed + report.forks.cancelled > 0;
  return resultLineOf(session, isError, {
    duration_ms: report.wallMs,
    ...extra,
    usage: {
      input_tokens: report.promptTokens,
      // Unknown cached tokens are left out, not null: the reference's type is a number or nothing.
      ...(report.cachedTokens !== null ? { cache_read_input_tokens: report.cachedTokens } : {}),
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
