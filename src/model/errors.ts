import { ApiError } from '@google/genai';
import type { ModelError } from './types.js';

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Reads the status and message out of whatever the SDK or fetch threw. */
export function classifyError(err: unknown, signal: AbortSignal, retryAfterHeader?: string | null): ModelError {
  if (signal.aborted) return { kind: 'aborted', message: 'the call was aborted', retryable: false };
  const e = err instanceof Error ? err : new Error(String(err));
  // The SDK's own class first; a status on any other error (a fetch wrapper's) is read the same way.
  const rawStatus = err instanceof ApiError ? err.status : (e as Error & { status?: unknown }).status;
  const status = typeof rawStatus === 'number' ? rawStatus : undefined;
  if (status !== undefined) {
    const retryAfterMs = parseRetryAfter(retryAfterHeader) ?? parseRetryInfo(e.message);
    return {
      kind: 'http',
      status,
      message: serverMessage(e.message) ?? `HTTP ${status}`,
      retryable: RETRYABLE_STATUS.has(status),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (e.name === 'TimeoutError' || /timed? ?out/i.test(e.message)) {
    return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  }
  if (e.name === 'AbortError') return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  if (/JSON|Incomplete|parsing stream/i.test(e.message)) {
    return { kind: 'malformed', message: `malformed response: ${truncate(e.message)}`, retryable: true };
  }
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? e.message;
  return { kind: 'network', message: `network error: ${truncate(detail)}`, retryable: true };
}

/** The `error.message` of a Gemini error body, when the SDK put the body in the message. */
function serverMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return truncate(text);
  }
}

function parseRetryAfter(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** google.rpc.RetryInfo in the error body: `"retryDelay": "41s"`. */
function parseRetryInfo(text: string): number | undefined {
  const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text);
  return m ? Number(m[1]) * 1000 : undefined;
}

function truncate(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
