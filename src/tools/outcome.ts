import type { ToolFailure, ToolOutcome, ToolRejection } from './host.js';

/** The three ways a tool call ends, as the model will read them. */
export function succeed(output: unknown): ToolOutcome {
  return { status: 'ok', response: { output: output ?? null } };
}

export function reject(reason: ToolRejection, error: string): ToolOutcome {
  return { status: 'rejected', reason, response: { error } };
}

export function fail(reason: ToolFailure, error: string): ToolOutcome {
  return { status: 'failed', reason, response: { error } };
}
