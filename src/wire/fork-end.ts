import { releaseProxy, wrap, type Endpoint, type Remote } from 'comlink';
import type { MessagePort } from 'node:worker_threads';
import { failure, type Failure } from '../input/failure.js';
import type { AttemptGate, AttemptStatus } from '../model/types.js';
import type { ToolCall, ToolOutcome } from '../tools/host.js';
import { EVENT_MESSAGE, RELEASE_MESSAGE, REOPEN_MESSAGE, isCancelMessage, isParentMessage, isStopMessage, type EventMessage, type ForkHostApi, type ReleaseMessage, type ReopenMessage, type StopMessage, type WorkerEvent } from './protocol.js';

/** Extra time past the tool's own bound before a silent host counts as gone. */
const RPC_GRACE_MS = 5_000;
/** Bookkeeping calls answer at once; past this the main thread is gone or wedged. */
const RELEASE_TIMEOUT_MS = 30_000;

type HostFailure = 'host_gone' | 'aborted' | 'rpc_timeout';
export type HostCall<T> = { ok: true; value: T } | { ok: false; error: Failure<HostFailure> };

const HOST_GONE = { ok: false, error: failure('host_gone', 'the tool host is gone (its port closed)') } as const;
const RPC_TIMEOUT = { ok: false, error: failure('rpc_timeout', 'the tool host did not answer in time') } as const;
const ABORTED = { ok: false, error: failure('aborted', 'the call was aborted') } as const;

/**
 * The worker's end of a fork's channel. A Comlink call whose other side disappears never
 * settles, so every call races the port's close, the fork's abort and a timeout.
 */
export function connectHost(
  port: MessagePort,
  onCancel: () => void,
  rpcGraceMs = RPC_GRACE_MS,
  onStop: (reason: StopMessage['reason']) => void = () => undefined,
) {
  const remote: Remote<ForkHostApi> = wrap<ForkHostApi>(port as unknown as Endpoint);
  let closed = false;
  const closedPromise = new Promise<'closed'>((resolve) =>
    port.once('close', () => {
      closed = true;
      resolve('closed');
    }),
  );
  /** The parent's messages not yet taken by the loop (send_message). */
  const inbox: string[] = [];
  port.on('message', (message: unknown) => {
    if (isCancelMessage(message)) onCancel();
    else if (isStopMessage(message)) onStop(message.reason);
    else if (isParentMessage(message)) inbox.push(message.text);
  });

  async function call<T>(request: () => Promise<T>, signal: AbortSignal | undefined, timeoutMs: number): Promise<HostCall<T>> {
    if (closed) return HOST_GONE;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const bounds: Promise<'closed' | 'timeout' | 'aborted'>[] = [closedPromise];
    if (Number.isFinite(timeoutMs)) bounds.push(new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))));
    if (signal) {
      bounds.push(
        new Promise((resolve) => {
          onAbort = () => resolve('aborted');
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
      );
    }
    try {
      const settled = await Promise.race([request().then((value) => ({ value })), ...bounds]);
      if (settled === 'closed') return HOST_GONE;
      if (settled === 'timeout') return RPC_TIMEOUT;
      if (settled === 'aborted') return ABORTED;
      return { ok: true, value: settled.value };
    } catch {
      return HOST_GONE;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    execTool(toolCall: ToolCall, signal: AbortSignal, timeoutMs: number): Promise<HostCall<ToolOutcome>> {
      return call<ToolOutcome>(() => remote.execTool(toolCall), signal, timeoutMs + rpcGraceMs);
    },

    /**
     * The engine's call gate seen from this fork, with the fork's own retry budget on top.
     * A gate the main thread no longer answers admits nothing: the call ends as aborted.
     */
    gate(signal: AbortSignal, forkBudget: number | undefined): AttemptGate & { retriesSpent(): number } {
      let spent = 0;
      return {
        async acquire(tokens) {
          // Bounded by the fork's own timeout and cancel, and by the port's close.
          const admitted = await call<boolean>(() => remote.acquireCall(tokens), signal, Infinity);
          return admitted.ok && admitted.value;
        },
        async release(status: AttemptStatus, wantsRetry) {
          const withinFork = wantsRetry && (forkBudget === undefined || spent < forkBudget);
          if (!withinFork) {
            // No retry to ask about: the slot goes back without waiting for an answer.
            if (!closed) port.postMessage({ type: RELEASE_MESSAGE, status } satisfies ReleaseMessage);
            return false;
          }
          const allowed = await call<boolean>(() => remote.releaseCall(status, withinFork), undefined, RELEASE_TIMEOUT_MS);
          const retry = allowed.ok && allowed.value;
          if (retry) spent++;
          return retry;
        },
        retriesSpent: () => spent,
      };
    },

    /** The parent's messages that arrived since the last call, in order (each once). */
    takeMessages(): string[] {
      return inbox.splice(0);
    },

    /** Fire and forget: progress events must never hold up the loop. */
    report(event: WorkerEvent): void {
      if (!closed) port.postMessage({ type: EVENT_MESSAGE, event } satisfies EventMessage);
    },

    /**
     * Waits until the main thread has handled every event sent so far. The result goes back on
     * another channel (the pool's), so without this a fork's last turn could arrive after its end.
     */
    async flush(): Promise<void> {
      await call(() => remote.flush(), undefined, RELEASE_TIMEOUT_MS);
    },

    /**
     * Says the fork is ending and waits for the answer: by then every message the parent sent
     * before it has arrived (one port, in order), so takeMessages() after it misses none.
     */
    async closing(): Promise<void> {
      await call(() => remote.closing(), undefined, RELEASE_TIMEOUT_MS);
    },

    /** After closing(): the fork goes on (a message had arrived), so it reads messages again. */
    reopen(): void {
      if (!closed) port.postMessage({ type: REOPEN_MESSAGE } satisfies ReopenMessage);
    },

    close(): void {
      remote[releaseProxy]();
      port.close();
    },

    /** Ends this side's use of the port and leaves closing it to the other side. */
    detach(): void {
      closed = true;
    },
  };
}

export type HostClient = ReturnType<typeof connectHost>;
