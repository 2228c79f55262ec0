import type { Context } from '@opentelemetry/api';
import type { AttemptGate, ModelOutcome, ModelRequest, TokenUsage } from '../model/types.js';
import { replyContent, requestContent } from '../shapes/call-content.js';
import type { ToolCall } from '../tools/call.js';
import type { ToolOutcome } from '../tools/outcome.js';
import { ATTR, FORKPOOL_ATTR, OPERATION, errorTypeOf, modelCallBase, operationOf, providerNameOf } from './conventions.js';
import {
  TRACER,
  attemptEventName,
  callAttributes,
  contentAttributes,
  markFailed,
  recordToolSpan,
  usageAttributes,
} from './fan-out-trace.js';
import { modelCallMetrics } from './metrics.js';
import { SPAN_CLIENT, SPAN_INTERNAL, otelApi } from './otel.js';

/*
 * A headless parent loop's spans: `invoke_agent main` for the whole loop, under it each of its own
 * model calls and tools, and the fan-outs it starts (their forks name it as their parent agent). It
 * runs on the main thread, so its spans are timed as they happen.
 */

export interface ParentTraceInfo {
  /** The parent's id: its conversation's routing key. */
  agentId: string;
  provider: string;
  shape: string;
  model: string;
  parent?: Context;
  /** Prompts, completions and tool calls' content on the spans. */
  captureContent?: boolean;
}

export interface ParentTrace {
  /** The context its fan-outs go under (none when nothing is traced). */
  readonly context: Context | undefined;
  readonly agentId: string;
  /** A model call begins; the function ends its span with what came back, and records the call's metrics. */
  call(request: ModelRequest): (outcome: ModelOutcome) => void;
  /** Passed to the parent's calls (GenerateOptions.gate): each attempt that did not succeed is an event on the parent's span, as a fork's are. */
  readonly attempts: AttemptGate;
  tool(call: ToolCall): (outcome: ToolOutcome) => void;
  /** `usage`: the parent's own calls and every fork's, rolled up. */
  end(status: 'completed' | 'failed' | 'cancelled', error?: { kind: string; message: string }, usage?: TokenUsage): void;
}

/** Nothing registered with OpenTelemetry: no spans and no metrics, and the API does not load. */
function untraced(info: ParentTraceInfo): ParentTrace {
  return {
    context: info.parent,
    agentId: info.agentId,
    call: () => () => undefined,
    attempts: { acquire: async () => true, release: async (_status, wantsRetry) => wantsRetry },
    tool: () => () => undefined,
    end() {},
  };
}

export function traceParent(info: ParentTraceInfo): ParentTrace {
  const api = otelApi();
  if (api === undefined) return untraced(info);
  const { trace, context } = api;
  const tracer = trace.getTracer(TRACER);
  const provider = providerNameOf(info.provider);
  const operation = operationOf(info.shape);
  const agent = tracer.startSpan(
    `${OPERATION.invokeAgent} main`,
    {
      kind: SPAN_INTERNAL,
      attributes: {
        [ATTR.operationName]: OPERATION.invokeAgent,
        [ATTR.agentName]: 'main',
        [ATTR.agentId]: info.agentId,
        [ATTR.conversationId]: info.agentId,
        [ATTR.providerName]: provider,
        [ATTR.requestModel]: info.model,
      },
    },
    info.parent,
  );
  const agentContext = trace.setSpan(info.parent ?? context.active(), agent);
  const recording = agent.isRecording();
  const callMetrics = modelCallMetrics(info);
  return {
    context: agentContext,
    agentId: info.agentId,
    call(request) {
      const startedAt = performance.now();
      const content = recording && info.captureContent === true ? requestContent(request) : undefined;
      const span = recording
        ? tracer.startSpan(
            `${operation} ${info.model}`,
            { kind: SPAN_CLIENT, attributes: { ...modelCallBase(info), ...contentAttributes(content) } },
            agentContext,
          )
        : undefined;
      return (outcome) => {
        const seconds = (performance.now() - startedAt) / 1000;
        if (outcome.ok) {
          callMetrics.answered(outcome.usage, outcome.responseModel, seconds);
          span?.setAttributes({
            ...callAttributes(outcome.usage, outcome.finish?.raw),
            ...(outcome.responseModel !== undefined ? { [ATTR.responseModel]: outcome.responseModel } : {}),
            ...(content !== undefined ? { [ATTR.outputMessages]: replyContent(request.format, outcome.message, outcome.finish?.raw) } : {}),
          });
        } else if (outcome.error.kind === 'aborted') {
          // Cancelled with the parent: not an operation that failed (no ERROR, no duration), as for a fork's call.
          span?.setAttribute(FORKPOOL_ATTR.cancelled, 'cancelled');
        } else {
          const errorType = errorTypeOf(outcome.error);
          callMetrics.failed(errorType, seconds);
          if (span) markFailed(span, errorType, outcome.error.message);
        }
        span?.end();
      };
    },
    attempts: {
      acquire: async () => true,
      // The retry the call asked for is its own to decide: the parent has no run-wide gate.
      release: async (status, wantsRetry) => {
        if (status !== 'ok' && recording) agent.addEvent(attemptEventName(wantsRetry), { [FORKPOOL_ATTR.attemptStatus]: status });
        return wantsRetry;
      },
    },
    tool(call) {
      if (!recording) return () => undefined;
      const startedAt = Date.now();
      return (outcome) => recordToolSpan(call, outcome, startedAt, agentContext, info.captureContent === true);
    },
    end(status, error, usage) {
      if (usage !== undefined) agent.setAttributes(usageAttributes(usage));
      if (status === 'failed' && error !== undefined) markFailed(agent, error.kind, error.message);
      agent.end();
    },
  };
}
