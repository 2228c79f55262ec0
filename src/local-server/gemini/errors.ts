import type { ServerResponse } from 'node:http';
import { ApiFailure } from '../core/errors.js';

/** Gemini's error JSON (`{"error": {"code", "message", "status"}}`), for any ApiFailure. */

/** gRPC-style status names that Google APIs put in `error.status`, by HTTP code. */
const STATUS_BY_CODE: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'ALREADY_EXISTS',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function statusName(code: number): string {
  return STATUS_BY_CODE[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

export const invalid = (message: string): ApiFailure => new ApiFailure(400, message);
export const notFound = (message: string): ApiFailure => new ApiFailure(404, message);

interface ErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

function errorBody(failure: ApiFailure): ErrorBody {
  const body: ErrorBody = {
    error: { code: failure.code, message: failure.message, status: statusName(failure.code) },
  };
  if (failure.retryAfterSeconds !== undefined) {
    body.error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${failure.retryAfterSeconds}s` }];
  }
  return body;
}

/** Writes the error unless the response has already begun (then the connection is ended). */
export function sendFailure(res: ServerResponse, failure: ApiFailure): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
  res.writeHead(failure.code, headers);
  res.end(JSON.stringify(errorBody(failure)));
}
