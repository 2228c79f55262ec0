import { expose, type Endpoint } from 'comlink';
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { ForkToolPolicy, ToolCall, ToolHost, ToolOutcome } from '../tools/host.js';
import type { AttemptStatus } from '../model/types.js';
import type { EngineCallGate } from './call-gate.js';
import { CANCEL_MESSAGE, EVENT_MESSAGE, PARENT_MESSAGE, RELEASE_MESSAGE, REOPEN_MESSAGE, STOP_MESSAGE, oneWayMessage, type CancelMessage, type ForkHostApi, type ParentMessage, type StopMessage, type WorkerEvent } from '../wire/protocol.js';

export interface ForkChannel {
  /** Goes to the worker inside the task, in the transfer list. */
  workerPort: MessagePort;
  /** Asks the worker to stop; tools in flight for this fork are aborted too. */
  cancel(): void;
  /** Asks the worker to end before its next model call (nothing in flight is aborted). */
  stop(reason: StopMessage['reason']): void;
  /** The parent's message, for the fork's next turn boundary. false: the fork is ending and will not read it. */
  send(text: string): boolean;
  /** The fork's result is in: a message from now on is refused (send returns false). */
  end(): void;
  /** Handles at once the events the worker sent before its result (they travel on this channel, the result on the pool's). */
  drain(): void;
  /** Drains, then closes: a release still queued reaches the gate. */
  close(): void;
}

/** Why a closed fork's tool calls stop: made once (an abort without a reason builds a DOMException, with its stack, per fork). */
const CLOSED = new Error('the fork ended');

/** The main thread's end of one fork's channel: its ToolHost, exposed with Comlink. */
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
  const closed = (): void => tools.abort(CLOSED);
  // Slots this fork holds at the gate: a worker that dies mid-call never gives its slot back, so the
  // channel's close does (else each crash would shrink the run's concurrency for good).
  let held = 0;
  /** The worker said it is ending: a message now would never be read. */
  let ending = false;
  const giveBack = (status: AttemptStatus, wantsRetry: boolean): boolean | Promise<boolean> => {
    held = Math.max(0, held - 1);
    if (status !== 'ok') args.onAttempt?.(status, wantsRetry);
    return args.gate.release(status, wantsRetry);
  };
  const api: ForkHostApi = {
    async execTool(call) {
      // The wall clock the span SDK reads too: a tool's span ends on it.
      const startedAt = Date.now();
      const outcome = await args.host.execute(call, args.policy, tools.signal);
      args.onToolCall(call, outcome, startedAt);
      return outcome;
    },
    report(event) {
      args.onEvent(event);
    },
    async acquireCall(tokens) {
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
    releaseCall(status, wantsRetry) {
      return giveBack(status, wantsRetry);
    },
    flush() {
      // Messages on one port arrive in order: by now every earlier report has been handled.
    },
    closing() {
      ending = true;
    },
  };
  expose(api, port1 as unknown as Endpoint);
  const handleOneWay = (message: unknown): void => {
    const oneWay = oneWayMessage(message);
    if (oneWay?.type === EVENT_MESSAGE) api.report(oneWay.event);
    // A gate that fails to take the slot back (a lost Redis) has said so where it failed.
    else if (oneWay?.type === RELEASE_MESSAGE) Promise.resolve(giveBack(oneWay.status, false)).catch(() => undefined);
    else if (oneWay?.type === REOPEN_MESSAGE) ending = false;
  };
  port1.on('message', handleOneWay);
  const drain = (): void => {
    // What the worker posted before its result is already queued here (a post enqueues at once).
    // Only one-way messages can be: the worker awaited each of its calls before it returned.
    for (let next = receiveMessageOnPort(port1); next !== undefined; next = receiveMessageOnPort(port1)) handleOneWay(next.message);
  };
  return {
    workerPort: port2,
    cancel() {
      const message: CancelMessage = { type: CANCEL_MESSAGE };
      port1.postMessage(message);
      tools.abort();
    },
    stop(reason) {
      const message: StopMessage = { type: STOP_MESSAGE, reason };
      port1.postMessage(message);
    },
    send(text) {
      if (ending) return false;
      const message: ParentMessage = { type: PARENT_MESSAGE, text };
      port1.postMessage(message);
      return true;
    },
    end() {
      ending = true;
    },
    drain,
    close() {
      // A release still queued would be lost with the port, and its slot at the gate with it.
      drain();
      closed();
      for (; held > 0; held--) Promise.resolve(args.gate.release('failed', false)).catch(() => undefined);
      port1.close();
    },
  };
}
