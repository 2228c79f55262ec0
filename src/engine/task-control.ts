import { parseSendMessage, parseTaskStop, SEND_MESSAGE_TOOL_NAME, TASK_TOOL_TEXT } from '../fork/index.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ToolResponse } from '../shapes/index.js';
import type { StartedTask } from './agent-call.js';
import type { FanOutRun } from './run.js';

/** task_stop and send_message: what they did to one background task, in the reference's words. */
export function controlTask(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  tasks: {
    started: ReadonlyMap<string, StartedTask>;
    runOf: ReadonlyMap<string, FanOutRun>;
    ended: ReadonlyMap<string, ForkResult['status']>;
    revive: (id: string, message: string) => boolean;
    /** The tasks task_stop stopped, added to. */
    stopped: string[];
  },
): ToolResponse {
  const message = tool === SEND_MESSAGE_TOOL_NAME ? parseSendMessage(args) : undefined;
  const checked = message ?? parseTaskStop(args);
  if (!checked.ok) return { error: checked.message };
  const id = checked.params.task_id;
  const entry = tasks.started.get(id);
  if (entry === undefined) return { error: TASK_TOOL_TEXT.unknown(id) };
  // A foreground task of this same reply has not run yet: it cannot be reached, and reads as not running.
  const status = tasks.ended.get(id) ?? (tasks.runOf.has(id) ? 'running' : 'pending');
  const run = status === 'running' ? tasks.runOf.get(id) : undefined;
  if (message?.ok) {
    if (run !== undefined) {
      const sent = run.send(id, message.params.message);
      if (sent.status === 'delivered') return { output: TASK_TOOL_TEXT.messageQueued(id) };
      if (sent.status === 'not-delivered') return { error: TASK_TOOL_TEXT.notDelivered(id, sent.reason) };
    }
    if (status === 'completed')
      return tasks.revive(id, message.params.message) ? { output: TASK_TOOL_TEXT.revived(id) } : { error: TASK_TOOL_TEXT.notRevived(id) };
    if (status === 'running') return { error: TASK_TOOL_TEXT.notRevived(id) };
    return { error: TASK_TOOL_TEXT.messageToStopped(id, status) };
  }
  if (run?.cancel(id)) {
    tasks.stopped.push(id);
    return { output: TASK_TOOL_TEXT.stopRequested(id, entry.description) };
  }
  return { error: TASK_TOOL_TEXT.notRunning(id, status) };
}
