import { releaseProxy, wrap, type Endpoint, type Remote } from 'comlink';
import type { MessagePort } from 'node:worker_threads';
import { isCancelMessage, type ForkHostApi, type WorkerEvent } from './protocol.js';
import type { ToolCall, ToolOutcome } from '../tools/host.js';

/** Extra time past the tool's own bound before a silent host counts as gone. */
const RPC_GRACE_MS = 5_000;

export type HostCall = { ok: true; outcome: ToolOutcome } | { ok: false; reason: 'host_gone' | 'aborted' | 'rpc_timeout' };

/**
 * The worker's end of a fork's channel. A Comlink call whose other side disappears never
 * settles, so every call races the port's close, the fork's abort and a timeout.
 */
export function connectHost(port: MessagePort, onCancel: () => void) {
  const remote: Remote<ForkHostApi> = wrap<ForkHostApi>(port as unknown as Endpoint);
  let closed = false;
  const closedPromise = new Promise<'closed'>((resolve) =>
    port.once('close', () => {
      closed = true;
      resolve('closed');
    }),
  );
  port.on('message', (message: unknown) => {
    if (isCancelMessage(message)) onCancel();
  });

  return {
    async execTool(call: ToolCall, signal: AbortSignal, timeoutMs: number): Promise<HostCall> {
      if (closed) return { ok: false, reason: 'host_gone' };
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs + RPC_GRACE_MS);
      });
      const aborted = new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        const settled = await Promise.race([remote.execTool(call), closedPromise, timeout, aborted]);
        if (settled === 'closed') return { ok: false, reason: 'host_gone' };
        if (settled === 'timeout') return { ok: false, reason: 'rpc_timeout' };
        if (settled === 'aborted') return { ok: false, reason: 'aborted' };
        return { ok: true, outcome: settled };
      } catch {
        return { ok: false, reason: 'host_gone' };
      } finally {
        clearTimeout(timer);
        if (onAbort) signal.removeEventListener('abort', onAbort);
      }
    },

    /** Fire and forget: progress events must never hold up the loop. */
    report(event: WorkerEvent): void {
      if (!closed) remote.report(event).catch(() => undefined);
    },

    close(): void {
      remote[releaseProxy]();
      port.close();
    },
  };
}

export type HostClient = ReturnType<typeof connectHost>;
