import { SEND_MESSAGE_TOOL_NAME, TASK_STOP_TOOL_NAME } from '../fork/index.js';
import type { ForkResult } from '../result/fork-result.js';
import { transcriptPath } from '../transcript/writer.js';
import type { StartedTask } from './agent-call.js';
import { formatTaskNotification } from './notification.js';
import type { ParentEvent } from './parent-events.js';
import type { FanOutRun } from './run.js';

/* What the parent hears of its sub-agents: the texts its model reads, and their messages as its events. */

/** What a background launch returns at once: the reference's words (agent.ts), its output file the task's transcript (when there is one). */
export function backgroundPlaceholder(id: string, transcript: string | undefined): string {
  return [
    'Background agent launched successfully.',
    `task_id: ${id} (internal ID \u2014 do not mention to the user. Use ${SEND_MESSAGE_TOOL_NAME} to continue this agent, or ${TASK_STOP_TOOL_NAME} to cancel.)`,
    'The agent is working in the background. Its result arrives as a <task-notification> for this task_id in a later turn; you will not see it in this turn.',
    'Do not treat the agent as cancelled or relaunch it because the notification has not arrived yet \u2014 the result comes under the original task_id.',
    "Do not duplicate this agent's work \u2014 avoid working with the same files or topics it is using. Work on non-overlapping tasks, or briefly tell the user what you launched and end your response.",
    'Never predict its findings. If the user asks about progress before the notification lands, say the agent is still running and report only the status you know.',
    ...(transcript !== undefined
      ? [
          `output_file: ${transcript}`,
          'If asked, you can check progress before completion by using read_file',
          '  or run_shell_command tail on the output file.',
        ]
      : []),
  ].join('\n');
}

/** A foreground sub-agent's result as its tool call returns it: the reference's texts (agent.ts). */
export function foregroundResult(result: ForkResult): string {
  const text = result.text.trim();
  if (result.status === 'cancelled')
    return `Agent was cancelled by the user. Partial result follows:\n\n${text || '(no partial result captured)'}`;
  // The reference answers a timeout or a turn limit as it answers an ended run; only an error is "failed".
  if (result.status === 'failed' && result.error.kind !== 'timeout' && result.error.kind !== 'max_turns')
    return text || 'Subagent execution failed.';
  return text || '(subagent produced no model-visible output)';
}

/** The `<task-notification>` of each task that ended since they were last taken, taken out of `unreported`. */
export function drainNotifications(
  unreported: ForkResult[],
  started: ReadonlyMap<string, StartedTask>,
  transcripts: string | undefined,
): string[] {
  return unreported.splice(0).map((r) => {
    const entry = started.get(r.id);
    return formatTaskNotification(r, entry?.description ?? r.id, {
      ...(entry !== undefined ? { toolUseId: entry.toolUseId } : {}),
      ...(transcripts !== undefined ? { outputFile: transcriptPath(transcripts, r.id) } : {}),
    });
  });
}

/** The messages of a run's tasks as they go, as the parent's events (with the task's tool_use id). */
export async function forwardMessages(
  run: FanOutRun,
  started: ReadonlyMap<string, StartedTask>,
  onEvent: (event: ParentEvent) => void,
): Promise<void> {
  for await (const event of run.events()) {
    if (event.type !== 'message') continue;
    const toolUseId = started.get(event.forkId)?.toolUseId;
    if (toolUseId === undefined) continue;
    onEvent({
      type: 'message',
      role: event.role === 'model' ? 'assistant' : 'user',
      message: event.message,
      turn: event.turn,
      ...(event.usage !== undefined ? { usage: event.usage } : {}),
      parentToolUseId: toolUseId,
    });
  }
}
