import type { Failure } from '../input/failure.js';
import type { ModelError } from '../model/types.js';

/** What kind of failure a model call met, in a word a caller can branch on (retry later, fix the request, fix the key…). */
export type ModelErrorCategory =
  /** 429: too many requests or tokens for now (the provider's retry hint says when to come back). */
  | 'rate_limit'
  /** 5xx (Anthropic's 529 overloaded among them), or an error the stream carried. */
  | 'server_error'
  /** 400, 413, 422: the request itself was refused. */
  | 'bad_request'
  /** 401: the API key is missing or wrong. */
  | 'authentication'
  /** 403: the key may not use this model or resource. */
  | 'permission'
  /** 404: no such model or endpoint. */
  | 'not_found'
  /** 408, or no answer in time. */
  | 'timeout'
  /** No answer at all (refused, reset, DNS). */
  | 'network'
  /** An answer that could not be read. */
  | 'malformed'
  | 'other';

/** A fork's `model_error`: the failure in words, and its facts as fields. */
export interface ModelFailure extends Failure<'model_error'> {
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  readonly category: ModelErrorCategory;
  /** The provider's own hint (retry-after-ms, Retry-After, RetryInfo), in ms, when it gave one. */
  readonly retryAfterMs?: number;
}

/** The fields of a model_error, from the failed call's ModelError. */
export function modelFailureFields(error: ModelError): Omit<ModelFailure, 'kind' | 'message'> {
  return {
    category: categoryOf(error),
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}

function categoryOf(error: ModelError): ModelErrorCategory {
  if (error.kind === 'timeout') return 'timeout';
  if (error.kind === 'network') return 'network';
  if (error.kind === 'malformed') return 'malformed';
  const status = error.status;
  // An error event inside a stream that had begun: the server's own failure.
  if (status === undefined) return error.kind === 'http' ? 'server_error' : 'other';
  if (status === 429) return 'rate_limit';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 400 || status === 413 || status === 422) return 'bad_request';
  if (status >= 500) return 'server_error';
  return 'other';
}
