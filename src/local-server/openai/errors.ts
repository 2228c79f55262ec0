import type { ServerResponse } from 'node:http';
import { ApiFailure } from '../core/errors.js';

/** OpenAI's error JSON: `{"error": {"message", "type", "param", "code"}}`, for any ApiFailure. */

/** A failure that names the request field at fault (`param`) and/or an OpenAI error code. */
export class OpenAIFailure extends ApiFailure {
  readonly param: string | null;
  readonly errorCode: string | null;
  constructor(status: number, message: string, param: string | null = null, errorCode: string | null = null) {
    super(status, message);
    this.name = 'OpenAIFailure';
    this.param = param;
    this.errorCode = errorCode;
  }
}

/** A 400 naming the field, as the real API does (`param: 'messages.[1].content'`). */
export const invalidParam = (param: string, message: string, errorCode: string | null = null): OpenAIFailure =>
  new OpenAIFailure(400, message, param, errorCode);

/** `type` and `code` by status, for failures that do not set their own code. */
function kindOf(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function errorBody(failure: ApiFailure): OpenAIErrorBody {
  const { type, code } = kindOf(failure.code);
  const own = failure instanceof OpenAIFailure ? failure : undefined;
  return { error: { message: failure.message, type, param: own?.param ?? null, code: own?.errorCode ?? code } };
}

/** Writes the error unless the response has already begun (then the connection is ended). */
export function sendOpenAIFailure(res: ServerResponse, failure: ApiFailure): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (failure.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(failure.retryAfterSeconds);
    headers['retry-after-ms'] = String(failure.retryAfterSeconds * 1000);
  }
  res.writeHead(failure.code, headers);
  res.end(JSON.stringify(errorBody(failure)));
}
