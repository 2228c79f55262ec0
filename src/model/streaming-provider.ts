import { type AttemptOutcome, runAttempts } from './attempts.js';
import { type ErrorContext, classifyError, malformed } from './errors.js';
import {
  DEFAULT_RETRY,
  type GenerateOptions,
  type ModelError,
  type ModelProvider,
  type ModelRequest,
  type ProviderConfig,
} from './types.js';

/*
 * What the Chat Completions and Anthropic providers share: a ModelProvider over an official SDK
 * that sends one streamed request per attempt (the SDK does not retry: the shared attempt loop
 * does) and has no explicit caches. Each provider says how to send its request and read its
 * stream; the attempt's signal, its time bound over the whole stream, the key kept out of error
 * messages and the provider's answer to a request of another shape are the same here.
 */

/** What the SDK call of an attempt is given: the attempt's own signal, no SDK retries, and the SDK's timeout. */
interface AttemptRequestOptions {
  signal: AbortSignal;
  maxRetries: 0;
  timeout?: number;
}

/** One attempt's call, as the provider sends it and reads its stream. */
interface StreamedCall<E> {
  /** Sends the request; resolves with its stream of events. */
  open(requestOptions: AttemptRequestOptions): Promise<AsyncIterable<E>>;
  /** Takes one event: a string says what is malformed, and the attempt ends with it. */
  read(event: E): string | undefined;
  /** What the whole stream came to. */
  finish(): AttemptOutcome;
  /** What the provider knows about a failure besides the thrown error (the key is added here). */
  errorContext?(err: unknown): ErrorContext;
}

type StreamedFormat = Exclude<ModelRequest['format'], 'gemini'>;
type RequestOf<F extends StreamedFormat> = Extract<ModelRequest, { format: F }>;

interface StreamingProviderSpec<F extends StreamedFormat, E> {
  /** The one format this provider sends. */
  format: F;
  /** The API, as a wrong-dialect error names the provider ("the local Anthropic provider"). */
  api: string;
  /** What must never appear in a message: the key, unless it is a stand-in. */
  secrets: readonly string[];
  /** The request its attempts send (transport/splice.ts: shared parts as sentinels), released when the call is over. */
  prepare(request: RequestOf<F>): Promise<{ request: RequestOf<F>; release(): void }>;
  /** A new call for each attempt of a request. */
  call(request: RequestOf<F>, options: GenerateOptions): StreamedCall<E>;
}

export function createStreamingProvider<F extends StreamedFormat, E>(
  config: ProviderConfig,
  spec: StreamingProviderSpec<F, E>,
): ModelProvider {
  const secrets = spec.secrets;
  const policy = config.retry ?? DEFAULT_RETRY;
  const timeoutMs = config.callTimeoutMs;
  const sends = (request: ModelRequest): request is RequestOf<F> => request.format === spec.format;

  async function attempt(call: StreamedCall<E>, options: GenerateOptions): Promise<AttemptOutcome> {
    // One signal for the attempt: the caller's abort, or the per-attempt bound on the whole call
    // (the SDK's own timeout ends when the response headers arrive, not when the stream does).
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) controller.abort();
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs);
    const interrupted = (): ModelError =>
      timedOut && !options.signal.aborted
        ? { kind: 'timeout', message: 'the model call timed out', retryable: true }
        : { kind: 'aborted', message: 'the call was aborted', retryable: false };
    try {
      const stream = await call.open({
        signal: controller.signal,
        maxRetries: 0,
        ...(timeoutMs !== undefined ? { timeout: Math.max(1, Math.ceil(timeoutMs)) } : {}),
      });
      for await (const event of stream) {
        const problem = call.read(event);
        if (problem !== undefined) return { ok: false, error: malformed(problem) };
      }
      // The SDK ends an aborted stream quietly: what arrived is not the whole answer.
      if (controller.signal.aborted) return { ok: false, error: interrupted() };
      return call.finish();
    } catch (err) {
      if (controller.signal.aborted) return { ok: false, error: interrupted() };
      return { ok: false, error: classifyError(err, options.signal, null, { secrets, ...call.errorContext?.(err) }) };
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    async generate(request, options) {
      if (!sends(request)) {
        throw new TypeError(
          `the ${config.kind} ${spec.api} provider was given a request in the ${String(request.format)} dialect; it sends only format '${spec.format}'`,
        );
      }
      const prepared = await spec.prepare(request);
      try {
        return await runAttempts(policy, options, () => attempt(spec.call(prepared.request, options), options));
      } finally {
        prepared.release();
      }
    },
  };
}
