// Internal: classifyError (src/model/errors.ts), how an SDK error becomes a ModelError: a ForkResult's failure (kind, status, retries) is its public face.
import { ApiError } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../src/model/errors.js';

const live = new AbortController().signal;

describe('classifyError', () => {
  it("recognizes the SDK's ApiError by class: status, the server's message, Retry-After", () => {
    const err = new ApiError({
      status: 429,
      message: JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } }),
    });
    expect(classifyError(err, live, '2')).toEqual({
      kind: 'http',
      status: 429,
      message: 'Resource has been exhausted',
      retryable: true,
      retryAfterMs: 2000,
    });
    expect(classifyError(new ApiError({ status: 400, message: 'bad request' }), live)).toMatchObject({
      kind: 'http',
      status: 400,
      retryable: false,
    });
  });

  it('reads a status from another error shape too, and tells timeouts, malformed bodies and network errors apart', () => {
    expect(classifyError(Object.assign(new Error('busy'), { status: 503 }), live)).toMatchObject({
      kind: 'http',
      status: 503,
      retryable: true,
    });
    expect(classifyError(Object.assign(new Error('t'), { name: 'TimeoutError' }), live)).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
    expect(classifyError(new Error('Incomplete JSON segment'), live)).toMatchObject({ kind: 'malformed', retryable: true });
    expect(classifyError(new Error('fetch failed', { cause: { code: 'ECONNRESET' } }), live)).toMatchObject({
      kind: 'network',
      message: 'network error: ECONNRESET',
    });
  });

  it('an aborted call is aborted, whatever was thrown', () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyError(new ApiError({ status: 500, message: 'x' }), controller.signal)).toEqual({
      kind: 'aborted',
      message: 'the call was aborted',
      retryable: false,
    });
  });
});
