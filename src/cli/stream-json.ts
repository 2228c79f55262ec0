import { randomUUID } from 'node:crypto';
import type { SubagentType } from '../session/schema.js';
import { notificationSummary } from '../engine/notification.js';
import type { ParentEvent } from '../engine/parent-events.js';
import type { ForkResult } from '../result/fork-result.js';
import type { RunReport } from '../engine/report.js';
import { NOT_RETAINED_NOTE } from '../engine/run/tally.js';
import { billedTokens, type TokenUsage } from '../model/types.js';
import type { AnyMessage, MessageReader } from '../shapes/view.js';
import { resultLine } from './result-line.js';
import {
  answerParts,
  replyBlocks,
  runsOfOneType,
  sdkUsage,
  type AssistantBlock,
  type TextBlock,
  type ToolResultBlock,
} from './sdk-content.js';

/*
 * Shapes Qwen Code's headless stream-json emits, so its SDK consumers can read ours (the types of
 * @qwen-code/sdk: SDKSystemMessage, SDKUserMessage, SDKAssistantMessage, SDKResultMessage). Every
 * line has `uuid` (its own) and `session_id` (the invocation's). User and assistant lines carry
 * `parent_tool_use_id`: null for the parent's own messages, the task's tool_use id for a message of
 * a background task's conversation. System lines carry it as null, as the reference's
 * emitSystemMessage writes it; result lines do not (its buildResultMessage). Inside a parent loop
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
  return JSON.stringify({
    type,
    ...(subtype !== undefined ? { subtype } : {}),
    uuid: randomUUID(),
    session_id: session.id,
    parent_tool_use_id: null,
    ...body,
  });
}

/** A message line: the parent's own (`parentToolUseId` null) or a task's. */
function messageLine(
  session: StreamSession,
  type: 'user' | 'assistant',
  parentToolUseId: string | null,
  message: (uuid: string) => Record<string, unknown>,
): string {
  const uuid = randomUUID();
  return JSON.stringify({ type, uuid, session_id: session.id, parent_tool_use_id: parentToolUseId, message: message(uuid) });
}

export function taskStartedLine(
  session: StreamSession,
  taskId: string,
  toolUseId: string | undefined,
  description: string,
  subagentType: SubagentType,
): string {
  return line(session, 'system', 'task_started', {
    data: { task_id: taskId, ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}), description, subagent_type: subagentType },
  });
}

/**
 * A task's end: the reference's user line (`Background agent "<type>: <description>" completed.`,
 * what its UI shows), then the `task_notification` system line.
 */
export function taskNotificationLines(
  session: StreamSession,
  result: ForkResult,
  description: string,
  subagentType: SubagentType,
  toolUseId?: string,
): string {
  const ended = result.status === 'completed' ? 'completed' : result.status === 'failed' ? 'failed' : 'was cancelled';
  const label = `${subagentType}: ${description.length > 40 ? `${description.slice(0, 40)}…` : description}`;
  const display = line(session, 'user', undefined, {
    message: { role: 'user', content: [{ type: 'text', text: `Background agent "${label}" ${ended}.` }] },
  });
  const notification = line(session, 'system', 'task_notification', {
    data: {
      task_id: result.id,
      ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
      status: result.status,
      summary: notificationSummary(result, description),
      usage: {
        total_tokens: billedTokens(result.usage),
        tool_uses: result.toolCalls,
        duration_ms: result.durationMs,
      },
      result: resultLine(result, subagentType, Date.now()),
    },
  });
  return `${display}\n${notification}`;
}

/** The last line: the reference's `result` (subtype success or error_during_execution; error_max_turns when the parent ran out of turns). */
function resultLineOf(session: StreamSession, isError: boolean, body: Record<string, unknown>, maxTurns = false): string {
  const subtype = isError ? (maxTurns ? 'error_max_turns' : 'error_during_execution') : 'success';
  return JSON.stringify({ type: 'result', subtype, uuid: randomUUID(), session_id: session.id, is_error: isError, ...body });
}

export function resultEventLine(session: StreamSession, report: RunReport, isError: boolean, extra: Record<string, unknown> = {}): string {
  return resultLineOf(session, isError, {
    duration_ms: report.wallMs,
    ...extra,
    usage: {
      input_tokens: report.promptTokens,
      // Unknown cached tokens are left out, not null: the reference's type is a number or nothing.
      ...(report.cachedTokens !== null ? { cache_read_input_tokens: report.cachedTokens } : {}),
      ...(report.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: report.cacheWriteTokens } : {}),
      output_tokens: report.outputTokens,
    },
    report: compactReport(report),
  });
}

/**
 * The report without the per-fork rows (those are in the result lines already), nor the note that
 * the engine kept none: the CLI chose that itself, the user set no such option.
 */
export function compactReport(report: RunReport): Omit<RunReport, 'perFork'> {
  const { perFork: _perFork, ...rest } = report;
  return { ...rest, notes: rest.notes.filter((n) => n !== NOT_RETAINED_NOTE) };
}

/** How `forkpool prompt` writes its stream: the parent loop's events as lines, then the result. */
export interface ParentLines {
  event(event: ParentEvent): void;
  /** The result line. */
  end(isError: boolean, body: Record<string, unknown>, maxTurns: boolean): void;
}

type MessageEvent = Extract<ParentEvent, { type: 'message' }>;

/** What the parent loop feeds its model when a task ends (engine/notification.ts). */
const NOTIFICATION_OPEN = '<task-notification>';

/**
 * The parent's assistant and user messages and its tasks' become lines of their own, in the order
 * they happened: a reply (with its tool_use blocks) before the task_started of the tasks it
 * launched, its tool results after them. `model` is the session's (every task runs on it too). A
 * call without an id (Gemini often sends none) goes by the id the parent loop made up for it
 * (`callIds`); a task's own such call gets a stable id of ours, `unnamed-call-<n>`, numbered in the
 * stream's order. Gemini answers calls by position, so its results get the same ids. `reader`: the
 * session's shape's (registry), which reads the parent's messages and its tasks'.
 */
export function parentLines(session: StreamSession, reader: MessageReader, model: string, write: (line: string) => void): ParentLines {
  /** Each conversation's last reply's call ids: the parent's under '', a task's under its tool_use id. */
  const calls = new Map<string, readonly string[]>();
  let unnamed = 0;
  const nameCall = (): string => `unnamed-call-${++unnamed}`;
  // The reference's duration_api_ms: the parent's model calls, each from its input (the run's start
  // or the turn's answer) to its reply. Its tasks' calls run beside it and are not counted, as there.
  let apiMs = 0;
  let callStarted = performance.now();

  const writeReply = (event: MessageEvent): void => {
    let k = 0;
    const blocks = replyBlocks(reader.view(event.message as AnyMessage)).map((block): AssistantBlock => {
      if (block.type !== 'tool_use') return block;
      const id = block.id ?? event.callIds?.[k] ?? nameCall();
      k++;
      return { ...block, id };
    });
    calls.set(
      event.parentToolUseId ?? '',
      blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
    );
    // One line per run of one block type, as the reference splits a reply; the call's usage is on
    // the last (the others have none, as there), so summing the lines' usage counts it once.
    const runs = runsOfOneType(blocks);
    runs.forEach((run, i) => {
      write(assistantLine(session, model, run, i === runs.length - 1 ? event.usage : undefined, event.parentToolUseId ?? null));
    });
  };

  const writeAnswer = (event: MessageEvent): void => {
    const parent = event.parentToolUseId ?? null;
    const answered = calls.get(event.parentToolUseId ?? '') ?? [];
    let k = 0;
    let texts: TextBlock[] = [];
    const flushTexts = (): void => {
      if (texts.length > 0) write(userLine(session, parent, texts));
      texts = [];
    };
    for (const part of answerParts(reader.view(event.message as AnyMessage))) {
      if (part.kind === 'text') {
        // A task's end is shown as the reference shows it: its user line `Background agent "…"
        // completed.` and the task_notification line, written when the task ends
        // (taskNotificationLines). The <task-notification> text the model gets in this message is
        // what the reference sends its model and never writes as a line: not again here.
        if (parent === null && part.text.startsWith(NOTIFICATION_OPEN)) continue;
        texts.push({ type: 'text', text: part.text });
        continue;
      }
      flushTexts();
      // The reference writes each tool result as a user line of its own (emitToolResult).
      const id = part.id ?? answered[k] ?? nameCall();
      k++;
      write(userLine(session, parent, [{ type: 'tool_result', tool_use_id: id, content: part.content, is_error: part.isError }]));
    }
    flushTexts();
  };

  const handle = (event: ParentEvent): void => {
    if (event.type === 'task_started') {
      // Its seed answers the calls of the reply that launched it (a fork's placeholders), by position in Gemini.
      if (!calls.has(event.toolUseId)) calls.set(event.toolUseId, calls.get('') ?? []);
      write(taskStartedLine(session, event.forkId, event.toolUseId, event.description, event.subagentType));
    } else if (event.type === 'task_notification') {
      // A revived task ends again under the same ids: a second pair of lines, no second task_started.
      write(taskNotificationLines(session, event.result, event.description, event.subagentType, event.toolUseId));
    } else if (event.type === 'message') {
      // By the message's own role: a fork's seed (a 'user' event) holds the model's acknowledgement.
      if (event.role === 'assistant' || reader.view(event.message as AnyMessage).role === 'model') writeReply(event);
      else writeAnswer(event);
    }
  };

  return {
    event(event) {
      if (event.type === 'message' && event.parentToolUseId === undefined) {
        const now = performance.now();
        if (event.role === 'assistant') apiMs += now - callStarted;
        else callStarted = now;
      }
      handle(event);
    },
    end(isError, body, maxTurns) {
      // forkpool asks no permissions (a tool a session does not allow is refused, not asked): none denied.
      write(
        resultLineOf(
          session,
          isError,
          { duration_ms: body.duration_ms, duration_api_ms: Math.round(apiMs), ...body, permission_denials: [] },
          maxTurns,
        ),
      );
    },
  };
}

/** The reference's assistant line (buildMessage): the message's id is the line's uuid; stop_reason tool_use when it only calls. */
function assistantLine(
  session: StreamSession,
  model: string,
  blocks: readonly AssistantBlock[],
  usage: TokenUsage | undefined,
  parentToolUseId: string | null,
): string {
  return messageLine(session, 'assistant', parentToolUseId, (uuid) => ({
    id: uuid,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks,
    stop_reason: blocks.every((b) => b.type === 'tool_use') ? 'tool_use' : null,
    usage: sdkUsage(usage),
  }));
}

function userLine(session: StreamSession, parentToolUseId: string | null, content: readonly (TextBlock | ToolResultBlock)[]): string {
  return messageLine(session, 'user', parentToolUseId, () => ({ role: 'user', content }));
}
