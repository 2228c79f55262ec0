import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { ForkTask } from '../session/schema.js';
import type { ToolCall } from '../tools/call.js';
import type { ToolOutcome } from '../tools/outcome.js';
import type { ForkResult } from '../result/fork-result.js';
import type { WorkerEvent } from '../result/fork-events.js';
import type { TokenUsage } from '../model/types.js';
import { answerCut, spentUsage } from '../result/results.js';
import { ATTR, FORKPOOL_ATTR, OPERATION, billedInput, modelCallBase, operationOf, providerNameOf } from './conventions.js';
import { isEpochMs } from './metrics.js';
import { SPAN_CLIENT, SPAN_INTERNAL, STATUS_ERROR, otelApi } from './otel.js';

/*
 * A fan-out's spans, recorded on the main thread into whatever tracer provider the application
 * registered (none: nothing here does any work, and the API does not load). Providers are per isolate, so
 * a fork's worker thread records nothing: it reports when each model call began and ended, and the
 * spans are made here with those times, under the fork's span — as are its tools', which run here.
 */

export const TRACER = 'forkpool';

/** The event an attempt that did not succeed is on its agent's span. */
export function attemptEventName(retried: boolean): string {
  return retried ? 'forkpool.retry' : 'forkpool.attempt_failed';
}

type TurnEvent = Extract<WorkerEvent, { type: 'turn' }>;
type FailedCallEvent = Extract<WorkerEvent, { type: 'call_failed' }>;

export interface FanOutTraceInfo {
  /** The conversation every fork continues: the prefix id. */
  prefixId: string;
  /** The provider module's kind (its conventions name follows it). */
  provider: string;
  /** The session's shape: Gemini's calls are `generate_content`, the others' `chat`. */
  shape: string;
  model: string;
  /** The context its span goes under (default: the active one); a parent loop's agent span, for its forks. */
  parent?: Context;
  /** The agent that started the fan-out (a parent loop's), on each fork's span. */
  parentAgentId?: string;
  /** Tool calls' arguments and results on their spans (the forks' workers report their calls' content). */
  captureContent?: boolean;
}

export interface ForkTrace {
  modelCall(event: TurnEvent): void;
  /** A model call that finally failed, or was cancelled. */
  failedCall(event: FailedCallEvent): void;
  tool(call: ToolCall, outcome: ToolOutcome, startedAt: number): void;
  /** An attempt's outcome at the call gate (a retry, a 429): an event on the fork's span. */
  attempt(status: string, retried: boolean): void;
  end(result: ForkResult): void;
  /** The fork's span for another process (the application's propagator's fields); undefined when nothing is traced. */
  carrier(): Record<string, string> | undefined;
}

export interface FanOutTrace {
  fork(task: ForkTask): ForkTrace;
  /** The run is over: how many forks ended, and what they spent together (the report's totals). */
  end(forks: number, usage: TokenUsage): void;
}

const NOTHING: ForkTrace = { modelCall() {}, failedCall() {}, tool() {}, attempt() {}, end() {}, carrier: () => undefined };
const UNTRACED: FanOutTrace = { fork: () => NOTHING, end() {} };

/** The spans of one fan-out: its own, and under it one `invoke_agent` per fork with its calls. */
export function traceFanOut(info: FanOutTraceInfo): FanOutTrace {
  const api = otelApi();
  if (api === undefined) return UNTRACED;
  const { trace, context, propagation } = api;
  const tracer = trace.getTracer(TRACER);
  const provider = providerNameOf(info.provider);
  const operation = operationOf(info.shape);
  const callBase = modelCallBase(info);
  const run = tracer.startSpan(
    `${OPERATION.invokeWorkflow} fan-out`,
    // Under the context given, else the application's active span (when its context manager knows one).
    {
      kind: SPAN_INTERNAL,
      attributes: { [ATTR.operationName]: OPERATION.invokeWorkflow, [ATTR.workflowName]: 'fan-out', [ATTR.conversationId]: info.prefixId },
    },
    info.parent,
  );
  // No provider registered (or the run not sampled): record nothing at all.
  if (!run.isRecording()) return { fork: () => NOTHING, end: () => run.end() };
  const runContext = trace.setSpan(info.parent ?? context.active(), run);

  return {
    fork(task) {
      const name = task.subagentType ?? 'fork';
      const agent = tracer.startSpan(
        `${OPERATION.invokeAgent} ${name}`,
        {
          kind: SPAN_INTERNAL,
          attributes: {
            [ATTR.operationName]: OPERATION.invokeAgent,
            [ATTR.agentName]: name,
            [ATTR.agentId]: task.id,
            [ATTR.conversationId]: info.prefixId,
            [ATTR.providerName]: provider,
            [ATTR.requestModel]: info.model,
            ...(info.parentAgentId !== undefined ? { [FORKPOOL_ATTR.parentAgentId]: info.parentAgentId } : {}),
          },
        },
        runContext,
      );
      const agentContext = trace.setSpan(runContext, agent);
      /** A model call's span, timed by the worker that made it; `failed` marks how it failed. */
      const callSpan = (event: TurnEvent | FailedCallEvent, attributes: Attributes, failed?: (span: Span) => void): void => {
        // Times another process reported (a distributed run's worker) are taken only when they are times.
        const startedAt = wallTime(event.startedAt);
        const endedAt = wallTime(event.endedAt);
        const span = tracer.startSpan(
          `${operation} ${info.model}`,
          { kind: SPAN_CLIENT, attributes: { ...callBase, ...attributes }, ...(startedAt ? { startTime: startedAt } : {}) },
          agentContext,
        );
        failed?.(span);
        span.end(endedAt !== undefined && startedAt !== undefined && endedAt >= startedAt ? endedAt : undefined);
      };
      return {
        modelCall(event) {
          callSpan(event, {
            ...contentAttributes(event.content),
            ...callAttributes(event.usage, event.finish?.raw),
            ...(event.responseModel !== undefined ? { [ATTR.responseModel]: event.responseModel } : {}),
            ...(event.responseId !== undefined ? { [ATTR.responseId]: event.responseId } : {}),
          });
        },
        failedCall(event) {
          callSpan(event, contentAttributes(event.content), (span) => {
            // A call cancelled with its fork did not fail: it says so, as the fork's span does.
            if (event.errorType === 'aborted') span.setAttribute(FORKPOOL_ATTR.cancelled, 'cancelled');
            else markFailed(span, event.errorType, event.message);
          });
        },
        tool(call, outcome, startedAt) {
          recordToolSpan(call, outcome, startedAt, agentContext, info.captureContent === true);
        },
        attempt(status, retried) {
          agent.addEvent(attemptEventName(retried), { [FORKPOOL_ATTR.attemptStatus]: status });
        },
        end(result) {
          // Its calls' usage rolled up (this run's: calls a resumed fork read back were an earlier run's).
          agent.setAttributes(usageAttributes(spentUsage(result)));
          // A cancelled fork (stopped, or a spent budget) did not fail: its span says how it ended, not ERROR.
          if (result.status === 'failed') markFailed(agent, result.error.kind, result.error.message);
          else if (result.status === 'cancelled') agent.setAttribute(FORKPOOL_ATTR.cancelled, result.error.kind);
          const cut = answerCut(result);
          if (cut !== undefined) agent.setAttribute(FORKPOOL_ATTR.answerCut, cut.reason);
          agent.end();
        },
        carrier() {
          const fields: Record<string, string> = {};
          propagation.inject(agentContext, fields);
          return Object.keys(fields).length > 0 ? fields : undefined;
        },
      };
    },
    end(forks, usage) {
      run.setAttribute(FORKPOOL_ATTR.forks, forks);
      run.setAttributes(usageAttributes(usage));
      run.end();
    },
  };
}

/** A model call's content as the conventions' opt-in attributes (nothing when it was not captured). */
export function contentAttributes(content: { input: string; system?: string; output?: string } | undefined): Attributes {
  if (content === undefined) return {};
  return {
    [ATTR.inputMessages]: content.input,
    ...(content.system !== undefined ? { [ATTR.systemInstructions]: content.system } : {}),
    ...(content.output !== undefined ? { [ATTR.outputMessages]: content.output } : {}),
  };
}

/**
 * A tool call that ran on this thread, from `startedAt` (epoch ms) to now, under `parent` (its
 * fork's span); `captureContent`: with its arguments and what the model is given back.
 */
export function recordToolSpan(call: ToolCall, outcome: ToolOutcome, startedAt: number, parent: Context, captureContent = false): void {
  const api = otelApi();
  if (api === undefined) return;
  const span = api.trace.getTracer(TRACER).startSpan(
    `${OPERATION.executeTool} ${call.name}`,
    {
      kind: SPAN_INTERNAL,
      startTime: new Date(startedAt),
      attributes: {
        [ATTR.operationName]: OPERATION.executeTool,
        [ATTR.toolName]: call.name,
        [ATTR.toolType]: 'function',
        ...(call.id !== undefined ? { [ATTR.toolCallId]: call.id } : {}),
        ...(captureContent
          ? { [ATTR.toolCallArguments]: JSON.stringify(call.args ?? {}), [ATTR.toolCallResult]: JSON.stringify(outcome.response) }
          : {}),
      },
    },
    parent,
  );
  if (outcome.status !== 'ok') markFailed(span, outcome.error.kind, outcome.error.message);
  span.end();
}

/**
 * Usage as the conventions name it and the provider bills it: a call's, or a fork's or a run's rolled
 * up. Input tokens include cached ones and input billed beyond the prompt (Gemini's tool-use
 * prompt); output tokens include reasoning, which is also given apart where the provider says.
 */
export function usageAttributes(usage: TokenUsage): Attributes {
  return {
    [ATTR.inputTokens]: billedInput(usage),
    [ATTR.outputTokens]: usage.outputTokens,
    ...(usage.cachedTokens !== null ? { [ATTR.cacheReadTokens]: usage.cachedTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { [ATTR.cacheWriteTokens]: usage.cacheWriteTokens } : {}),
    ...(usage.reasoningTokens !== undefined ? { [ATTR.reasoningTokens]: usage.reasoningTokens } : {}),
  };
}

/** A model call's usage and finish. */
export function callAttributes(usage: TokenUsage, finishReason: string | undefined): Attributes {
  return { ...usageAttributes(usage), ...(finishReason !== undefined ? { [ATTR.finishReasons]: [finishReason] } : {}) };
}

/** A span that ended in a failure: its status and the conventions' error.type. */
export function markFailed(span: Span, kind: string, message: string): void {
  span.setAttribute(ATTR.errorType, kind);
  span.setStatus({ code: STATUS_ERROR, message });
}

/** A time a worker reported (epoch ms), as a Date (the SDK reads a small number as a performance timestamp of this thread's); undefined unless it is one. */
function wallTime(epochMs: unknown): Date | undefined {
  return isEpochMs(epochMs) ? new Date(epochMs) : undefined;
}
