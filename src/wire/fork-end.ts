import { failure, type Failure } from '../input/failure.js';
import type { AttemptGate, AttemptStatus } from '../model/types.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ToolCall, ToolOutcome } from '../tools/host.js';
import type { WirePort } from './mux.js';
import type { CallMessage, ForkMessage, HostCalls, HostMessage, HostMethod, StopReason, WorkerEvent } from './protocol.js';

/** Extra time past the tool's own bound before a silent host counts as gone. */
const RPC_GRACE_MS = 5_000;
/** Bookkeeping calls answer at once; past this the main thread is gone or wedged. */
const RELEASE_TIMEOUT_MS = 30_000;

type HostFailure = 'host_gone' | 'aborted' | 'rpc_timeout';
export type HostCall<T> = { ok: true; value: T } | { ok: false; error: Failure<HostFailure> };

const HOST_GONE = { ok: false, error: failure('host_gone', 'the tool host is gone (its port closed)') } as const;
const RPC_TIMEOUT = { ok: false, error: failure('rpc_timeout', 'the tool host did not answer in time') } as const;
const ABORTED = { ok: false, error: failure('aborted', 'the call was aborted') } as const;

type Answer = Extract<HostMessage, { type: 'answer' }>;
/** How a call's wait ends. */
type CallOutcome = Answer | 'closed' | 'timeout' | 'aborted';

/**
 * The fork's end of its channel to the main thread (src/wire/protocol.ts): run in a fork's thread,
 * and by a distributed run's dispatcher for forks that run on other machines. A call whose answer
 * never comes (the other side gone or wedged) must not hang the fork, so every call races the
 * port's close, the fork's abort and a timeout.
 */
export function connectHost(
  port: WirePort<HostMessage, ForkMessage>,
  onCancel: () => void,
  rpcGraceMs = RPC_GRACE_MS,
  onStop: (reason: StopReason) => void = () => undefined,
) {
  let closed = false;
  /** Calls waiting for their outcome, by id: the answer, or what ended the wait first. */
  const waiting = new Map<number, (outcome: CallOutcome) => void>();
  port.once('close', () => {
    closed = true;
    // The port's listeners go with it: a closed port lingers until a full GC, and must not keep what they reach.
    port.removeAllListeners();
    for (const settle of waiting.values()) settle('closed');
  });
  /** The parent's messages not yet taken by the loop (send_message). */
  const inbox: string[] = [];
  let lastId = 0;
  port.on('message', (message: HostMessage) => {
    switch (message.type) {
      case 'answer':
        waiting.get(message.id)?.(message);
        break;
      case 'cancel':
        onCancel();
        break;
      case 'stop':
        onStop(message.reason);
        break;
      case 'message':
        inbox.push(message.text);
        break;
    }
  });
  const post = (message: ForkMessage): void => {
    if (!closed) port.postMessage(message);
  };

  async function call<M extends HostMethod>(
    method: M,
    args: HostCalls[M]['args'],
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<HostCall<HostCalls[M]['answer']>> {
    if (closed) return HOST_GONE;
    const id = ++lastId;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // One promise per call, settled by whichever comes first (the answer, the port's close, the
    // timeout, the abort): a call makes no promise per bound and no race.
    let settle!: (outcome: CallOutcome) => void;
    const outcome = new Promise<CallOutcome>((resolve) => (settle = resolve));
    waiting.set(id, settle);
    try {
      if (Number.isFinite(timeoutMs)) timer = setTimeout(settle, timeoutMs, 'timeout');
      if (signal) {
        onAbort = () => settle('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      port.postMessage({ type: 'call', id, method, ...args } as CallMessage);
      const settled = await outcome;
      if (settled === 'closed') return HOST_GONE;
      if (settled === 'timeout') return RPC_TIMEOUT;
      if (settled === 'aborted') return ABORTED;
      if ('failed' in settled) return { ok: false, error: failure('host_gone', `the tool host failed: ${settled.failed}`) };
      return { ok: true, value: settled.value as HostCalls[M]['answer'] };
    } finally {
      waiting.delete(id);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    execTool(toolCall: ToolCall, signal: AbortSignal, timeoutMs: number): Promise<HostCall<ToolOutcome>> {
      return call('execTool', { call: toolCall }, signal, timeoutMs + rpcGraceMs);
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
          const admitted = await call('acquire', { tokens }, signal, Infinity);
          return admitted.ok && admitted.value;
        },
        async release(status: AttemptStatus, wantsRetry) {
          const withinFork = wantsRetry && (forkBudget === undefined || spent < forkBudget);
          if (!withinFork) {
            // No retry to ask about: the slot goes back without waiting for an answer.
            post({ type: 'release', status });
            return false;
          }
          const allowed = await call('release', { status }, undefined, RELEASE_TIMEOUT_MS);
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
      post({ type: 'event', event });
    },

    /**
     * Says the fork is ending and waits for the answer: by then every message the parent sent
     * before it has arrived (one port, in order), so takeMessages() after it misses none.
     */
    async closing(): Promise<void> {
      await call('closing', {}, undefined, RELEASE_TIMEOUT_MS);
    },

    /** After closing(): the fork goes on (a message had arrived), so it reads messages again. */
    reopen(): void {
      post({ type: 'reopen' });
    },

    /**
     * The fork's result, its channel's last message: it follows every event sent before it. A port
     * of its own stays open for the main thread to close once it has the result; a share of its
     * thread's channel closes with the result (src/fork-thread/thread-channel.ts).
     */
    end(result: ForkResult): void {
      post({ type: 'end', result });
      closed = true;
    },

    close(): void {
      closed = true;
      port.close();
    },
  };
}

export type HostClient = ReturnType<typeof connectHost>;
