import { failure, type Failure } from '../input/failure.js';

export type ToolRejection =
  | 'not_declared'
  | 'not_allowed'
  | 'spawn_refused'
  | 'main_session_only'
  | 'interactive'
  | 'approval_required'
  | 'invalid_args';
/** `unsendable`: the tool returned what JSON cannot carry to the model (a BigInt, a cycle, a string past the engine's limit). */
export type ToolFailure = 'threw' | 'timeout' | 'aborted' | 'unsendable';

/** What a tool call came to; `response` is what the model gets as the functionResponse. */
export type ToolOutcome =
  | { status: 'ok'; response: { output: unknown } }
  | { status: 'rejected'; error: Failure<ToolRejection>; response: { error: string } }
  | { status: 'failed'; error: Failure<ToolFailure>; response: { error: string } };

/**
 * The three ways a tool call ends, as the model will read them. A tool's output goes into the
 * fork's next request as JSON: one JSON cannot carry is that tool's failure here, named, and not
 * the model call's later (where it would be retried as a model error).
 */
export function succeed(tool: string, output: unknown): ToolOutcome {
  try {
    JSON.stringify(output);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return fail('unsendable', `${tool} returned a result that cannot be sent to the model as JSON: ${why}`);
  }
  return { status: 'ok', response: { output: output ?? null } };
}

export function reject(kind: ToolRejection, message: string): ToolOutcome {
  return { status: 'rejected', error: failure(kind, message), response: { error: message } };
}

export function fail(kind: ToolFailure, message: string): ToolOutcome {
  return { status: 'failed', error: failure(kind, message), response: { error: message } };
}
