import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { AttemptStatus } from '../model/types.js';
import type { ForkResult } from '../result/fork-result.js';
import type { ForkToolPolicy, ToolCall, ToolHost, ToolOutcome } from '../tools/host.js';
import type { CallMessage, ForkMessage, HostCalls, HostMessage, HostMethod, StopReason, WorkerEvent } from '../wire/protocol.js';
import type { EngineCallGate } from './call-gate.js';

export interface ForkChannel {
  /** Goes to the fork's thread inside its job, in the transfer list. */
  workerPort: MessagePort;
  /**
   * The fork's result, the last message it sends (after every event it reported); undefined when
   * the channel closed without one (its thread died, or the engine closed the channel first).
   */
  result: Promise<ForkResult | undefined>;
  /** Asks the fork to stop; tools in flight for this fork are aborted too. */
  cancel(): void;
  /** Asks the fork to end before its next model call (nothing in flight is aborted). */
  stop(reason: StopReason): void;
  /** The parent's message, for the fork's next turn boundary. false: the fork is ending and will not read it. */
  send(text: string): boolean;
  /** Closes the channel: slots the fork still holds at the gate go back. */
  close(): void;
}

/** Why a closed fork's tool calls stop: made once (an abort without a reason builds a DOMException, with its stack, per fork). */
const CLOSED = new Error('the fork ended');

/** The main thread's end of one fork's channel (src/wire/protocol.ts): its tools, the call gate, its events and its result. */
export function openForkChannel(args: {
  host: ToolHost;
  gate: EngineCallGate;
  policy: ForkToolPolicy;
  onEvent(event: WorkerEvent): void;
  /** `startedAt`: when the call began (epoch ms); it has just ended. */
  onToolCall(call: ToolCall, outcome: ToolOutcome, startedAt: number): void;
  /** false once the run may start no more model calls (its budget is spent). */
  admit(): boolean;
  /** An attempt that did not succeed (a 429, a failure), and whether a retry was asked for. */
  onAttempt?(status: Exclude<AttemptStatus, 'ok'>, wantsRetry: boolean): void;
}): ForkChannel {
  const { port1, port2 } = new MessageChannel();
  // Aborted on cancel and close: tools in flight stop, and a wait at the call gate is dropped.
  const tools = new AbortController();
  // Slots this fork holds at the gate: a thread that dies mid-call never gives its slot back, so the
  // channel's close does (else each crash would shrink the run's concurrency for good).
  let held = 0;
  /** The fork said it is ending (or has ended): a message now would never be read. */
  let ending = false;
  let settle: (result: ForkResult | undefined) => void = () => undefined;
  const result = new Promise<ForkResult | undefined>((resolve) => (settle = resolve));
  const post = (message: HostMessage): void => port1.postMessage(message);

  const giveBack = (status: AttemptStatus, wantsRetry: boolean): boolean | Promise<boolean> => {
    held = Math.max(0, held - 1);
    if (status !== 'ok') args.onAttempt?.(status, wantsRetry);
    return args.gate.release(status, wantsRetry);
  };

  const calls: {
    [M in HostMethod]: (message: Extract<CallMessage, { method: M }>) => HostCalls[M]['answer'] | Promise<HostCalls[M]['answer']>;
  } = {
    async execTool({ call }) {
      // The wall clock the span SDK reads too: a tool's span ends on it.
      const startedAt = Date.now();
      const outcome = await args.host.execute(call, args.policy, tools.signal);
      args.onToolCall(call, outcome, startedAt);
      return outcome;
    },
    async acquire({ tokens }) {
      if (!args.admit()) return false;
      const admitted = await args.gate.acquire(tokens, tools.signal);
      if (!admitted) return false;
      // The budget may have run out, or the fork ended, while this call waited at the gate: give the slot back.
      if (!args.admit() || tools.signal.aborted) {
        await args.gate.release('failed', false);
        return false;
      }
      held++;
      return true;
    },
    release({ status }) {
      return giveBack(status, true);
    },
    closing() {
      // Answered after every message sent before it: from here on, send() says the fork will not read one.
      ending = true;
      return true;
    },
  };

  const answer = async (message: CallMessage): Promise<void> => {
    try {
      const value = await (
        calls[message.method] as (m: CallMessage) => HostCalls[HostMethod]['answer'] | Promise<HostCalls[HostMethod]['answer']>
      )(message);
      post({ type: 'answer', id: message.id, value });
    } catch (err) {
      // A value that cannot cross (a clone error) or a failing gate: the fork hears why instead of waiting.
      post({ type: 'answer', id: message.id, failed: err instanceof Error ? err.message : String(err) });
    }
  };

  port1.on('message', (message: ForkMessage) => {
    switch (message.type) {
      case 'call':
        void answer(message);
        break;
      case 'event':
        args.onEvent(message.event);
        break;
      case 'release':
        // A gate that fails to take the slot back (a lost Redis) has said so where it failed.
        Promise.resolve(giveBack(message.status, false)).catch(() => undefined);
        break;
      case 'reopen':
        ending = false;
        break;
      case 'end':
        ending = true;
        settle(message.result);
        break;
    }
  });
  // A closed port lingers until a full GC (its listeners make it a root for the young generation's):
  // its listeners go with the close, so that what they reach (the fork's state, its result) is not kept with it.
  port1.once('close', () => {
    port1.removeAllListeners();
    settle(undefined);
  });

  return {
    workerPort: port2,
    result,
    cancel() {
      post({ type: 'cancel' });
      tools.abort();
    },
    stop(reason) {
      post({ type: 'stop', reason });
    },
    send(text) {
      if (ending) return false;
      post({ type: 'message', text });
      return true;
    },
    close() {
      ending = true;
      tools.abort(CLOSED);
      for (; held > 0; held--) Promise.resolve(args.gate.release('failed', false)).catch(() => undefined);
      port1.close();
      port1.removeAllListeners();
      settle(undefined);
    },
  };
}
