import { failure, type Failure } from '../input/failure.js';

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
  | { status: 'rejected'; error: Failure<ToolRejection>; response: { error: string } }
  | { status: 'failed'; error: Failure<ToolFailure>; response: { error: string } };

/** The three ways a tool call ends, as the model will read them. */
export function succeed(output: unknown): ToolOutcome {
  return { status: 'ok', response: { output: output ?? null } };
}

export function reject(kind: ToolRejection, message: string): ToolOutcome {
  return { status: 'rejected', error: failure(kind, message), response: { error: message } };
}

export function fail(kind: ToolFailure, message: string): ToolOutcome {
  return { status: 'failed', error: failure(kind, message), response: { error: message } };
}
