import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ApiFailure } from '../core/errors.js';

/**
 * Anthropic's error JSON, for any ApiFailure:
 * `{"type": "error", "error": {"type", "message"}, "request_id"}` with a `request-id` header
 * (docs.anthropic.com/en/api/errors: the error types by HTTP status, and "every API response
 * includes a unique request-id header").
 */

/** `error.type` by status, as the errors page lists them; other 4xx are invalid requests, other 5xx api errors. */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function errorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** A 400 `invalid_request_error`; the message names the field at fault first (`messages.1.content.0.text: …`). */
export const invalidRequest = (message: string): ApiFailure => new ApiFailure(400, message);

/** A request id in Anthropic's form (`req_…`). */
export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/** Writes the error unless the response has already begun (then the connection is ended). */
export function sendAnthropicFailure(res: ServerResponse, failure: ApiFailure, requestId: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
  if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
  res.writeHead(failure.code, headers);
  res.end(JSON.stringify({ type: 'error', error: { type: errorType(failure.code), message: failure.message }, request_id: requestId }));
}
