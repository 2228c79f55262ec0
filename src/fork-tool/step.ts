import type { Context } from '@opentelemetry/api';
import { otelApi } from '../telemetry/otel.js';
import type { ForkEngine } from '../engine/engine.js';
import type { FanOutOptions } from '../engine/options.js';
import type { ForkResult } from '../result/fork-result.js';
import { hostedTools, type FrameworkTool } from './agent-tools.js';

/*
 * One model step's calls of a fork tool, made into forks: the agent frameworks' fork tools (the AI
 * SDK's, the OpenAI Agents SDK's) gather the calls a step made, build the session the step's model
 * call was (plus the calling turn), and hand them here. A tool's `execute` runs once per call, so
 * the calls are gathered by the step they share first (stepBatcher), then forked together (forkStep).
 */

/** A call of the fork tool, waiting for its fork's result. */
export interface StepCall {
  toolCallId: string;
  directive: string;
  /** The context its `execute` ran in (the framework's tool-call span, when the agent is traced); none while nothing has registered with OpenTelemetry. */
  trace: Context | undefined;
  signal: AbortSignal | undefined;
  /** Its fork's calls of the agent's tools that nothing could run, filled in before it settles. */
  unrunnable: string[];
  settle(result: ForkResult | Error): void;
}

export interface StepOptions {
  /** The fan-out's own options (transcripts, onResponseStart, …). */
  fanOut?: Omit<FanOutOptions, 'parentWarm' | 'tools'>;
  /**
   * true (the default): the agent has just sent this conversation, so the provider's cache holds it
   * and no fork waits for another; false: the forks warm it themselves (a conversation the agent
   * did not send as is, such as one it rewrote before this tool ran).
   */
  parentWarm?: boolean;
  /**
   * 'auto': of a step's several forks the first goes alone until its response begins, so that what
   * they share beyond the agent's request is cached once; 'none': all at once. Default: 'none' when
   * the parent is warm, else 'auto'.
   */
  warmup?: 'auto' | 'none';
}

/** The longest the step's other forks wait for the first one's response to begin. */
const WARMUP_CAP_MS = 5_000;

/**
 * Freezes the step's session once and starts a fan-out per call, under the call's own context (its
 * tool-call span): the agent has just sent this conversation, so its cache entry is there.
 */
export function forkStep(
  engine: ForkEngine,
  session: unknown,
  calls: readonly StepCall[],
  options: StepOptions & { tools?: readonly FrameworkTool[] },
): void {
  const prefix = engine.freeze(session);
  const byFork = new Map(calls.map((call) => [call.toolCallId, call]));
  const tools = hostedTools(options.tools ?? [], (forkId, why) => byFork.get(forkId)?.unrunnable.push(why));
  const parentWarm = options.parentWarm ?? true;
  // Each call's own fan-out (traced, or after a lead), cancelled by its call's signal.
  const callFanOuts = new Map<string, ReturnType<ForkEngine['fanOut']>>();
  let unlistenOwn = (): void => {};
  let ownSettled = 0;
  const start = (call: StepCall, onResponseStart?: () => void): void => {
    const own = options.fanOut?.onResponseStart;
    const fanOut = engine.fanOut(prefix, [{ id: call.toolCallId, directive: call.directive }], {
      ...options.fanOut,
      parentWarm,
      ...(tools.length > 0 ? { tools } : {}),
      ...(call.trace !== undefined ? { traceParent: call.trace } : {}),
      ...(onResponseStart !== undefined || own !== undefined
        ? {
            onResponseStart: (taskId: string, turn: number) => {
              own?.(taskId, turn);
              onResponseStart?.();
            },
          }
        : {}),
    });
    callFanOuts.set(call.toolCallId, fanOut);
    fanOut.onResult((result) => {
      // A lead that ended without a response (failed, cancelled) must not hold its siblings back.
      onResponseStart?.();
      call.settle(result);
      if (++ownSettled === calls.length) unlistenOwn();
    });
    // A call aborted while it waited for the lead is cancelled at once: it had no fan-out to cancel then.
    if (call.signal?.aborted) fanOut.cancelAll();
  };
  // What the step's forks share beyond the agent's request (its calls, their placeholders, the
  // fork's wording) is cached by the first fork's request: the others go once its response has
  // begun (or after WARMUP_CAP_MS), and read it from the cache instead of all sending it cold.
  const [lead, ...rest] = calls;
  if (lead === undefined) return;
  const together = (options.warmup ?? (parentWarm ? 'none' : 'auto')) === 'none';
  // Untraced, the step's forks are one fan-out: its accounting measures the shared prefix once, not
  // once per fork. A traced agent's forks each go under their own call's tool-call span.
  if (together && calls.every((call) => call.trace === undefined || otelApi()?.trace.getSpan(call.trace) === undefined)) {
    const fanOut = engine.fanOut(
      prefix,
      calls.map((call) => ({ id: call.toolCallId, directive: call.directive })),
      { ...options.fanOut, parentWarm, ...(tools.length > 0 ? { tools } : {}) },
    );
    const unlisten = onAbort(calls, (call) => fanOut.cancel(call.toolCallId));
    let settled = 0;
    fanOut.onResult((result) => {
      byFork.get(result.id)?.settle(result);
      if (++settled === calls.length) unlisten();
    });
    return;
  }
  unlistenOwn = onAbort(calls, (call) => callFanOuts.get(call.toolCallId)?.cancelAll());
  if (rest.length === 0 || together) {
    for (const call of calls) start(call);
    return;
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    clearTimeout(cap);
    for (const call of rest) start(call);
  };
  const cap = setTimeout(release, WARMUP_CAP_MS);
  start(lead, release);
}

/**
 * Cancels each call when its signal aborts (at once if it already has), with one listener per
 * signal: a framework may give a step's calls one signal (the Agents SDK gives its run's), which
 * would otherwise carry a listener per fork, and keep them past the step. Returns the unlistening.
 */
function onAbort(calls: readonly StepCall[], cancel: (call: StepCall) => void): () => void {
  const bySignal = new Map<AbortSignal, StepCall[]>();
  for (const call of calls) {
    if (call.signal === undefined) continue;
    if (call.signal.aborted) cancel(call);
    else bySignal.set(call.signal, [...(bySignal.get(call.signal) ?? []), call]);
  }
  const listeners = [...bySignal].map(([signal, own]) => {
    const listener = (): void => {
      for (const call of own) cancel(call);
    };
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  });
  return () => {
    for (const unlisten of listeners) unlisten();
  };
}

/** A call as a tool's `execute` receives it. */
export interface ToolCall {
  toolCallId: string;
  directive: string;
  signal: AbortSignal | undefined;
}

/** A call's fork: `started` settles once the step's session is frozen and its fan-out begun (rejects with why not), `result` when it ends. */
export interface StepFork {
  started: Promise<void>;
  result: Promise<ForkResult>;
  /** The fork's calls of the agent's tools that nothing could run (complete once `result` settles). */
  unrunnable: readonly string[];
}

/**
 * Gathers the calls of one step: calls that reach `execute` with the same step key before the event
 * loop's next turn (a framework runs a step's calls together) go to `run` together, each under the
 * context its `execute` ran in. A `run` that throws rejects each of its calls' `started` and `result`.
 */
export function stepBatcher<Step extends object>(
  run: (step: Step, calls: readonly StepCall[]) => Promise<void>,
): (step: Step, call: ToolCall) => StepFork {
  /** A step's calls so far, and whether its forks have begun: the same for every call of it. */
  interface Batch {
    calls: StepCall[];
    started: Promise<void>;
    begun(err?: Error): void;
  }
  const batches = new Map<Step, Batch>();
  const flush = (step: Step): void => {
    const batch = batches.get(step);
    batches.delete(step);
    if (batch === undefined) return;
    run(step, batch.calls).then(
      () => batch.begun(),
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const c of batch.calls) c.settle(error);
        batch.begun(error);
      },
    );
  };
  const batchOf = (step: Step): Batch => {
    const existing = batches.get(step);
    if (existing !== undefined) return existing;
    let begun!: Batch['begun'];
    const started = new Promise<void>((resolve, reject) => {
      begun = (err) => (err === undefined ? resolve() : reject(err));
    });
    // Awaited in background mode only; the same error reaches each call's `result`.
    started.catch(() => undefined);
    const batch: Batch = { calls: [], started, begun };
    batches.set(step, batch);
    setImmediate(flush, step);
    return batch;
  };
  return (step, call) => {
    const batch = batchOf(step);
    const unrunnable: string[] = [];
    const result = new Promise<ForkResult>((resolve, reject) => {
      batch.calls.push({
        ...call,
        trace: otelApi()?.context.active(),
        unrunnable,
        settle: (r) => (r instanceof Error ? reject(r) : resolve(r)),
      });
    });
    return { started: batch.started, result, unrunnable };
  };
}

/** A background fork's call, as `onResult` is told of it. */
export interface BackgroundCall {
  toolCallId: string;
  directive: string;
  /** The fork's calls of the agent's tools that nothing could run (its answer lacks their results). */
  unrunnable: readonly string[];
}

/**
 * What a fork tool's `execute` returns: the fork's answer; in background mode (`onResult`), once
 * its fork has begun (a session that cannot be forked is the call's error), a placeholder, the
 * answer going to `onResult` when it ends.
 */
export async function toolAnswer(
  fork: StepFork,
  call: { toolCallId: string; directive: string },
  onResult?: (result: ForkResult, call: BackgroundCall) => void,
): Promise<string> {
  if (onResult === undefined) return answerOf(await fork.result, fork.unrunnable);
  // Its rejection is the same error as started's, which the call throws.
  fork.result.then(
    (r) => onResult(r, { ...call, unrunnable: fork.unrunnable }),
    () => undefined,
  );
  await fork.started;
  return `Fork ${call.toolCallId} started in the background; its result will be given to you when it ends.`;
}

/** What the tool returns to the agent: the fork's answer, or why it has none; and the tools it could not run. */
function answerOf(result: ForkResult, unrunnable: readonly string[]): string {
  const answer = ownAnswerOf(result);
  if (unrunnable.length === 0) return answer;
  return `${answer}\n\nThe fork called tools that could not be run, so its answer lacks their results: ${[...new Set(unrunnable)].join('; ')}.`;
}

function ownAnswerOf(result: ForkResult): string {
  if (result.status === 'completed') return result.text;
  return `The fork ${result.status === 'cancelled' ? 'was cancelled' : 'failed'} (${result.error.kind}): ${result.error.message}${result.text !== '' ? `\nIts partial answer:\n${result.text}` : ''}`;
}

/** The description both fork tools give the model by default. */
export const FORK_TOOL_DESCRIPTION =
  'Fork yourself: a copy of you with this whole conversation so far works on the directive and returns its final answer. Use it for independent pieces of work that can run in parallel; call it several times at once for several forks.';

/** What the directive parameter tells the model. */
export const DIRECTIVE_DESCRIPTION = 'What the fork is to do, in full: it sees this conversation, and acts on this directive alone.';
