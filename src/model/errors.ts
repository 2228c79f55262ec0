import { ApiError } from '@google/genai';
import { APIConnectionError, APIConnectionTimeoutError, APIError as OpenAIAPIError, APIUserAbortError } from 'openai';
import type { ModelError } from './types.js';

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** What a provider knows about a failure besides the thrown error. */
export interface ErrorContext {
  /** The raw body of the failed HTTP response, when the provider kept it (the openai SDK drops a flat `{code, message}` body). */
  body?: string;
  /** Strings that must never appear in a message (the API key): each is replaced by `[redacted]`. */
  secrets?: readonly string[];
}

/**
 * Reads the status and message out of whatever the SDK or fetch threw: @google/genai's ApiError,
 * the openai SDK's APIError family, or a plain fetch error. No message carries a credential: the
 * given secrets and any `Bearer …` token a server echoed back are replaced by `[redacted]`.
 */
export function classifyError(
  err: unknown,
  signal: AbortSignal,
  retryAfterHeader?: string | null,
  context: ErrorContext = {},
): ModelError {
  const secrets = (context.secrets ?? []).filter((s) => s !== '');
  // Redacted before anything is cut short, so that no part of a secret survives a truncation.
  const text: Text = {
    whole: (t) => redact(t, secrets),
    short: (t) => truncate(redact(t, secrets)),
  };
  return classify(err, signal, retryAfterHeader, context.body, text);
}

/** How server-supplied text enters a message: redacted, and (short) truncated. */
interface Text {
  whole(text: string): string;
  short(text: string): string;
}

function classify(
  err: unknown,
  signal: AbortSignal,
  retryAfterHeader: string | null | undefined,
  body: string | undefined,
  text: Text,
): ModelError {
  if (signal.aborted) return { kind: 'aborted', message: 'the call was aborted', retryable: false };
  if (err instanceof OpenAIAPIError) return classifyOpenAI(err, body, text);
  const e = err instanceof Error ? err : new Error(String(err));
  // The SDK's own class first; a status on any other error (a fetch wrapper's) is read the same way.
  const rawStatus = err instanceof ApiError ? err.status : (e as Error & { status?: unknown }).status;
  const status = typeof rawStatus === 'number' ? rawStatus : undefined;
  if (status !== undefined) {
    const retryAfterMs = parseRetryAfter(retryAfterHeader) ?? parseRetryInfo(e.message);
    return {
      kind: 'http',
      status,
      message: serverMessage(e.message, text) ?? `HTTP ${status}`,
      retryable: RETRYABLE_STATUS.has(status),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (e.name === 'TimeoutError' || /timed? ?out/i.test(e.message)) {
    return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  }
  if (e.name === 'AbortError') return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  if (/JSON|Incomplete|parsing stream/i.test(e.message)) {
    return { kind: 'malformed', message: `malformed response: ${text.short(e.message)}`, retryable: true };
  }
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? e.message;
  return { kind: 'network', message: `network error: ${text.short(detail)}`, retryable: true };
}

/** The openai SDK's errors, by class (a timeout is also a connection error: it is asked first). */
function classifyOpenAI(err: OpenAIAPIError, body: string | undefined, text: Text): ModelError {
  if (err instanceof APIUserAbortError) return { kind: 'aborted', message: 'the call was aborted', retryable: false };
  if (err instanceof APIConnectionTimeoutError) return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  if (err instanceof APIConnectionError) {
    const cause = err.cause as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
    const detail = [cause?.cause?.code, cause?.code, cause?.message, err.message].find((v) => typeof v === 'string' && v !== '');
    return { kind: 'network', message: `network error: ${text.short(String(detail))}`, retryable: true };
  }
  const said = openAIServerMessage(err, body, text);
  if (err.status === undefined) {
    // An error event inside a stream that had begun (`data: {"error": …}`): the server's own failure,
    // worth sending again unless it says the request itself is wrong.
    return { kind: 'http', message: `the stream carried an error: ${said ?? 'no message'}`, retryable: err.type !== 'invalid_request_error' };
  }
  const status = err.status;
  const retryAfterMs = parseRetryAfterMs(err.headers?.get('retry-after-ms')) ?? parseRetryAfter(err.headers?.get('retry-after'));
  // OpenAI's own hint, as its SDK obeys it: x-should-retry: true | false.
  const hint = err.headers?.get('x-should-retry');
  return {
    kind: 'http',
    status,
    message: said ?? `HTTP ${status}`,
    retryable: hint === 'true' ? true : hint === 'false' ? false : RETRYABLE_STATUS.has(status),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/**
 * The server's words: `error.message` of OpenAI's envelope (the SDK keeps it), else the raw body:
 * the envelope again, DashScope's flat `{"code", "message"}`, or plain text.
 */
function openAIServerMessage(err: OpenAIAPIError, body: string | undefined, text: Text): string | undefined {
  const own = (err.error as { message?: unknown } | undefined)?.message;
  if (typeof own === 'string' && own !== '') return text.short(own);
  if (body === undefined || body.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return text.short(body.trim());
  }
  if (parsed === null || typeof parsed !== 'object') return text.short(body.trim());
  const record = parsed as { error?: unknown; code?: unknown; message?: unknown };
  const inner = record.error as { message?: unknown } | string | undefined;
  if (typeof inner === 'string' && inner !== '') return text.short(inner);
  if (typeof inner === 'object' && inner !== null && typeof inner.message === 'string' && inner.message !== '') return text.short(inner.message);
  if (typeof record.message === 'string' && record.message !== '') {
    return text.short(typeof record.code === 'string' && record.code !== '' ? `${record.code}: ${record.message}` : record.message);
  }
  return text.short(body.trim());
}

/** Secrets out, and any bearer token a server echoed back. */
function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out.replace(/\b(Bearer)\s+[^\s"',;]+/gi, '$1 [redacted]');
}

/** The `error.message` of a Gemini error body, when the SDK put the body in the message. */
function serverMessage(message: string, text: Text): string | undefined {
  try {
    const body = JSON.parse(message) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? text.whole(body.error.message) : undefined;
  } catch {
    return text.short(message);
  }
}

/** `retry-after-ms` (not standard; OpenAI's SDK reads it first): milliseconds, possibly fractional. */
function parseRetryAfterMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const ms = Number(header);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
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
