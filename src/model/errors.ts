import type { APIError as AnthropicAPIError, APIConnectionError as AnthropicConnectionError } from '@anthropic-ai/sdk/core/error';
import type { APIConnectionError, APIError as OpenAIAPIError } from 'openai/core/error';
import type { ModelError } from './types.js';

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** A response the provider could not read as an answer (retryable: the next attempt may be whole). */
export function malformed(message: string): ModelError {
  return { kind: 'malformed', message: `malformed response: ${message}`, retryable: true };
}

/** What a provider knows about a failure besides the thrown error. */
export interface ErrorContext {
  /** The raw body of the failed HTTP response, when the provider kept it (the openai SDK drops a flat `{code, message}` body). */
  body?: string;
  /** Strings that must never appear in a message (the API key): each is replaced by `[redacted]`. */
  secrets?: readonly string[];
}

/**
 * Reads the status and message out of whatever the SDK or fetch threw: @google/genai's ApiError,
 * the openai SDK's APIError family, the @anthropic-ai/sdk's APIError family, or a plain fetch error.
 * No message carries a credential: the given secrets, any `Bearer …` token and any `x-api-key`
 * value a server echoed back are replaced by `[redacted]`.
 */
export function classifyError(err: unknown, signal: AbortSignal, retryAfterHeader?: string | null, context: ErrorContext = {}): ModelError {
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
  const sdk = sdkErrorOf(err);
  if (sdk?.family === 'OpenAIError') return classifyOpenAI(err as OpenAIAPIError, sdk.classes, body, text);
  if (sdk?.family === 'AnthropicError') return classifyAnthropic(err as AnthropicAPIError, sdk.classes, text);
  if (isAiSdkCallError(err)) return classifyAiSdk(err, text);
  const e = err instanceof Error ? err : new Error(String(err));
  // @google/genai's ApiError carries its status as `status`, as any other error (a fetch wrapper's) may.
  const rawStatus = (e as Error & { status?: unknown }).status;
  const status = typeof rawStatus === 'number' ? rawStatus : undefined;
  if (status !== undefined) {
    // An SDK error of another copy of its package (instanceof fails) still carries its response's headers.
    const retryAfterMs = parseRetryAfter(retryAfterHeader ?? headerOf(e, 'retry-after')) ?? parseRetryInfo(e.message);
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

/**
 * An error of the openai or @anthropic-ai/sdk APIError family, known by its classes' names rather
 * than by instanceof: importing the classes would load both SDKs' error modules in every process
 * and thread whatever the run's provider. Both SDKs name their errors alike (APIError,
 * APIConnectionError, …) under a base of their own (OpenAIError, AnthropicError), which tells them apart.
 */
function sdkErrorOf(err: unknown): { family: 'OpenAIError' | 'AnthropicError'; classes: ReadonlySet<string> } | undefined {
  if (!(err instanceof Error)) return undefined;
  const classes = new Set<string>();
  for (let proto: unknown = Object.getPrototypeOf(err); proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string') classes.add(name);
  }
  if (!classes.has('APIError')) return undefined;
  if (classes.has('OpenAIError')) return { family: 'OpenAIError', classes };
  if (classes.has('AnthropicError')) return { family: 'AnthropicError', classes };
  return undefined;
}

function headerOf(err: Error, name: string): string | null | undefined {
  const headers = (err as { headers?: unknown }).headers;
  return headers instanceof Headers ? headers.get(name) : undefined;
}

/** The openai SDK's errors, by class (a timeout is also a connection error: it is asked first). */
function classifyOpenAI(err: OpenAIAPIError, classes: ReadonlySet<string>, body: string | undefined, text: Text): ModelError {
  if (classes.has('APIUserAbortError')) return { kind: 'aborted', message: 'the call was aborted', retryable: false };
  if (classes.has('APIConnectionTimeoutError')) return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  if (classes.has('APIConnectionError')) return connectionError(err as APIConnectionError, text);
  const said = openAIServerMessage(err, body, text);
  if (err.status === undefined) {
    // An error event inside a stream that had begun (`data: {"error": …}`): the server's own failure,
    // worth sending again unless it says the request itself is wrong.
    return { kind: 'http', message: `the stream carried an error: ${said ?? 'no message'}`, retryable: !isFinalOpenAIError(err) };
  }
  const status = err.status;
  const retryAfterMs = parseRetryAfterMs(err.headers?.get('retry-after-ms')) ?? parseRetryAfter(err.headers?.get('retry-after'));
  // OpenAI's own hint, as its SDK obeys it: x-should-retry: true | false.
  const hint = err.headers?.get('x-should-retry');
  return {
    kind: 'http',
    status,
    message: said ?? `HTTP ${status}`,
    retryable: hint === 'true' ? true : hint === 'false' ? false : RETRYABLE_STATUS.has(status) && !isFinalOpenAIError(err),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/**
 * Errors the same request meets again: a request the API refuses as it is, and a quota used up
 * (`insufficient_quota`, which OpenAI sends with 429 and in a stream's error event: credits must be
 * bought before anything succeeds).
 */
function isFinalOpenAIError(err: OpenAIAPIError): boolean {
  return err.type === 'invalid_request_error' || err.type === 'insufficient_quota' || err.code === 'insufficient_quota';
}

/** The Vercel AI SDK's APICallError, known by its name: the package is the user's (an optional peer), never imported here. */
interface AiSdkCallError extends Error {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  isRetryable: boolean;
}

function isAiSdkCallError(err: unknown): err is AiSdkCallError {
  return err instanceof Error && err.name === 'AI_APICallError' && typeof (err as { isRetryable?: unknown }).isRetryable === 'boolean';
}

/**
 * An AI SDK provider package's failed call: its status, the server's wait (retry-after-ms, else
 * retry-after), and whether the same call may succeed, as the AI SDK judges it (408, 409, 429, 5xx),
 * but for OpenAI's `insufficient_quota`.
 * Without a status the call never got an answer: a network failure.
 */
function classifyAiSdk(err: AiSdkCallError, text: Text): ModelError {
  const status = err.statusCode;
  if (status === undefined) {
    const cause = (err.cause as { code?: unknown; message?: unknown } | undefined) ?? {};
    const detail = [cause.code, cause.message, err.message].find((v) => typeof v === 'string' && v !== '');
    return { kind: 'network', message: `network error: ${text.short(String(detail))}`, retryable: true };
  }
  const headers = err.responseHeaders ?? {};
  const retryAfterMs = parseRetryAfterMs(headers['retry-after-ms']) ?? parseRetryAfter(headers['retry-after']);
  return {
    kind: 'http',
    status,
    message: serverMessage(err.message, text) ?? `HTTP ${status}`,
    retryable: err.isRetryable && !quotaUsedUp(err.responseBody),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** OpenAI's `insufficient_quota` in an error body (the AI SDK retries its 429 like any other). */
function quotaUsedUp(body: string | undefined): boolean {
  if (body === undefined) return false;
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; type?: unknown } }).error;
    return error?.code === 'insufficient_quota' || error?.type === 'insufficient_quota';
  } catch {
    return false;
  }
}

/** A connection that failed or dropped: the most specific code or message the SDK's error carries. */
function connectionError(err: Error, text: Text): ModelError {
  const cause = err.cause as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
  const detail = [cause?.cause?.code, cause?.code, cause?.message, err.message].find((v) => typeof v === 'string' && v !== '');
  return { kind: 'network', message: `network error: ${text.short(String(detail))}`, retryable: true };
}

/** Error types Anthropic's API gives to requests that will fail again as they are. */
const ANTHROPIC_FINAL_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'billing_error',
]);

/**
 * The @anthropic-ai/sdk's errors, by class (a timeout is also a connection error: it is asked first).
 * An HTTP failure is retryable when the server's x-should-retry says so, else for the statuses the
 * SDK itself retries: 408, 409, 429 and every 5xx (529 overloaded among them); the wait the server
 * asks for comes from retry-after-ms, else retry-after (seconds or a date), as the SDK reads them.
 * The message is the server's `{"type":"error","error":{"type","message"}}` as `type: message`.
 */
function classifyAnthropic(err: AnthropicAPIError, classes: ReadonlySet<string>, text: Text): ModelError {
  if (classes.has('APIUserAbortError')) return { kind: 'aborted', message: 'the call was aborted', retryable: false };
  if (classes.has('APIConnectionTimeoutError')) return { kind: 'timeout', message: 'the model call timed out', retryable: true };
  if (classes.has('APIConnectionError')) return connectionError(err as AnthropicConnectionError, text);
  const said = anthropicServerMessage(err, text);
  const status = err.status;
  if (status === undefined) {
    // `event: error` inside a stream that had begun (Anthropic sends overloaded_error this way).
    const type = anthropicErrorType(err);
    return {
      kind: 'http',
      message: `the stream carried an error: ${said ?? 'no message'}`,
      retryable: type === undefined || !ANTHROPIC_FINAL_TYPES.has(type),
    };
  }
  const retryAfterMs = parseRetryAfterMs(err.headers?.get('retry-after-ms')) ?? parseRetryAfter(err.headers?.get('retry-after'));
  const hint = err.headers?.get('x-should-retry');
  const byStatus = status === 408 || status === 409 || status === 429 || status >= 500;
  return {
    kind: 'http',
    status,
    message: said ?? `HTTP ${status}`,
    retryable: hint === 'true' ? true : hint === 'false' ? false : byStatus,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function anthropicErrorType(err: AnthropicAPIError): string | undefined {
  const inner = (err.error as { error?: { type?: unknown } } | undefined)?.error;
  const type = err.type ?? inner?.type;
  return typeof type === 'string' && type !== '' ? type : undefined;
}

/**
 * The server's words: Anthropic's envelope `{"type":"error","error":{"type","message"}}` as
 * `type: message`, a flat `{"message"}` (a proxy's), or the body as text when it was not JSON
 * (the SDK then puts it after the status in its own message).
 */
function anthropicServerMessage(err: AnthropicAPIError, text: Text): string | undefined {
  const body = err.error as { error?: { type?: unknown; message?: unknown } | string; message?: unknown } | string | undefined;
  if (typeof body === 'string') return body.trim() === '' ? undefined : text.short(body.trim());
  if (body !== undefined && body !== null && typeof body === 'object') {
    const inner = body.error;
    if (typeof inner === 'string' && inner !== '') return text.short(inner);
    if (typeof inner === 'object' && inner !== null) {
      const type = typeof inner.type === 'string' && inner.type !== '' ? inner.type : undefined;
      const message = typeof inner.message === 'string' && inner.message !== '' ? inner.message : undefined;
      if (message !== undefined) return text.short(type !== undefined ? `${type}: ${message}` : message);
      if (type !== undefined) return text.short(type);
    }
    if (typeof body.message === 'string' && body.message !== '') return text.short(body.message);
    return text.short(JSON.stringify(body));
  }
  // No JSON body: the SDK's message is `<status> <body text>`, or `<status> status code (no body)`.
  if (err.status === undefined) return undefined;
  const prefix = `${err.status} `;
  const rest = err.message.startsWith(prefix) ? err.message.slice(prefix.length).trim() : '';
  return rest === '' || rest === 'status code (no body)' ? undefined : text.short(rest);
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
  if (typeof inner === 'object' && inner !== null && typeof inner.message === 'string' && inner.message !== '')
    return text.short(inner.message);
  if (typeof record.message === 'string' && record.message !== '') {
    return text.short(typeof record.code === 'string' && record.code !== '' ? `${record.code}: ${record.message}` : record.message);
  }
  return text.short(body.trim());
}

/**
 * A key this long is replaced wherever it occurs: no word holds it by chance. A shorter one (a local
 * server's `x` or `local`) is replaced only where it stands as a word of its own, so that a message
 * keeps its words ("Resource has been exhausted", "localhost").
 */
const WHOLE_ANYWHERE = 16;

/** Secrets out, and any bearer token or x-api-key value a server echoed back. */
function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret.length >= WHOLE_ANYWHERE) out = out.split(secret).join('[redacted]');
    else out = out.replace(new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(secret)}(?![A-Za-z0-9_-])`, 'g'), '[redacted]');
  }
  return out.replace(/\b(Bearer)\s+[^\s"',;]+/gi, '$1 [redacted]').replace(/\b(x-api-key["']?\s*[:=]\s*["']?)[^\s"',;]+/gi, '$1[redacted]');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
