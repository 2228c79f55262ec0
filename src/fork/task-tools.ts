import { z } from 'zod';
import { parametersJsonSchemaOf } from '../input/json-schema.js';
import type { FunctionDeclaration } from '../shapes/dialect.js';

/*
 * The parent loop's tools for managing its background tasks, with the reference's names,
 * parameters and words (Qwen Code 0.24.3, packages/core/src/tools/task-stop.ts and
 * send-message.ts). They are declared only where the parent loop offers them; a fork inherits the
 * declarations byte for byte (its cache depends on it) and its own calls of them are refused, as
 * its calls of the agent tool are.
 */

export const TASK_STOP_TOOL_NAME = 'task_stop';
export const SEND_MESSAGE_TOOL_NAME = 'send_message';

/**
 * The tools that manage the parent's background tasks: only the main agent may call them (the tool
 * host refuses a fork's calls). Unlike the agent tool, a call of one is not a launch, so a
 * mid-turn seed keeps its arguments as the parent sent them.
 */
export const TASK_CONTROL_TOOLS: ReadonlySet<string> = new Set([TASK_STOP_TOOL_NAME, SEND_MESSAGE_TOOL_NAME]);

/** What a fork (or sub-agent) that calls task_stop or send_message is told. */
export const TASK_CONTROL_REFUSED = (tool: string): string =>
  `Error: ${tool} manages the main agent's background tasks and is not available inside a sub-agent. Please execute tasks directly.`;

const TaskStopParamsSchema = z.strictObject({
  task_id: z.string().describe('The ID of the background task to stop (from the launch response or notification).'),
});

const SendMessageParamsSchema = z.strictObject({
  task_id: z.string().describe('The ID of the background task (from the launch response).'),
  message: z.string().min(1).max(65_536).describe('Message text to send.'),
  summary: z.string().optional().describe('Optional 5-10 word summary for UI display.'),
});

export type TaskStopParams = z.output<typeof TaskStopParamsSchema>;
export type SendMessageParams = z.output<typeof SendMessageParamsSchema>;

function declare(name: string, description: string, schema: z.ZodType): FunctionDeclaration {
  return { name, description, parametersJsonSchema: parametersJsonSchemaOf(schema) };
}

export const TASK_STOP_DECLARATION: FunctionDeclaration = declare(
  TASK_STOP_TOOL_NAME,
  'Stop a background task by its ID. A running task is cancelled; its final task-notification carries its last result.',
  TaskStopParamsSchema,
);

export const SEND_MESSAGE_DECLARATION: FunctionDeclaration = declare(
  SEND_MESSAGE_TOOL_NAME,
  'Send a message to a running background task (use "task_id", the id from the launch response). Running tasks receive it at ' +
    'the next tool-round boundary; whatever the task does with your message shows up in its completion notification.',
  SendMessageParamsSchema,
);

/** A call's parameters, or the problems with them, each naming its parameter (one per line). */
export function parseTaskStop(input: unknown): { ok: true; params: TaskStopParams } | { ok: false; message: string } {
  return parsed(TaskStopParamsSchema.safeParse(input));
}

export function parseSendMessage(input: unknown): { ok: true; params: SendMessageParams } | { ok: false; message: string } {
  return parsed(SendMessageParamsSchema.safeParse(input));
}

function parsed<T>(result: z.ZodSafeParseResult<T>): { ok: true; params: T } | { ok: false; message: string } {
  if (result.success) return { ok: true, params: result.data };
  const lines = result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'parameters'}: ${issue.message}`);
  return { ok: false, message: lines.join('\n') };
}

/** The reference's result texts, by what became of the call. */
export const TASK_TOOL_TEXT = {
  unknown: (id: string) => `Error: No background task found with ID "${id}".`,
  stopRequested: (id: string, description: string) =>
    `Cancellation requested for background agent "${id}". A final task-notification carrying the agent's last result will follow.\nDescription: ${description}`,
  notRunning: (id: string, status: string) => `Error: Background agent "${id}" is not running (status: ${status}).`,
  messageQueued: (id: string) =>
    `Message queued for delivery to background task "${id}". The task will receive it at the next tool-round boundary. There is no inline reply: whatever it does with your message shows up in its completion notification for this task_id. Do not relaunch the task while waiting.`,
  messageToStopped: (id: string, status: string) =>
    `Error: Background task "${id}" is not running (status: ${status}). Cannot send messages to stopped tasks.`,
  notRevived: (id: string) => `Error: Background task "${id}" could not be revived.`,
  /** forkpool's own: the reference's queue never refuses, and forkpool says when a message would be lost. */
  notDelivered: (id: string, why: string) => `Error: The message was not delivered to background task "${id}": ${why}.`,
  revived: (id: string) => `Background task "${id}" had completed; revived it with your message as the next instruction.`,
} as const;
