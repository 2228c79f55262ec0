export type ToolRejection =
  | 'not_declared'
  | 'not_allowed'
  | 'spawn_refused'
  | 'main_session_only'
  | 'interactive'
  | 'approval_required'
  | 'invalid_args';
export type ToolFailure = 'threw' | 'timeout' | 'aborted';

/** What a tool call came to; `response` is what the model gets as the functionResponse. */
export type ToolOutcome =
  | { status: 'ok'; response: { output: unknown } }
  | { status: 'rejected'; reason: ToolRejection; response: { error: string } }
  | { status: 'failed'; reason: ToolFailure; response: { error: string } };

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
