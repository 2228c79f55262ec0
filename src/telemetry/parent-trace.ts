import { SpanKind, context, trace, type Context } from '@opentelemetry/api';
import type { TokenUsage } from '../model/types.js';
import type { ToolCall } from '../tools/call.js';
import type { ToolOutcome } from '../tools/outcome.js';
import { ATTR, OPERATION, operationOf, providerNameOf } from './conventions.js';
import { callAttributes, markFailed, recordToolSpan } from './fan-out-trace.js';

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
}

export interface ParentTrace {
  /** The context its fan-outs go under. */
  readonly context: Context;
  readonly agentId: string;
  /** A model call begins; the function ends its span with what came back. */
  call(): (outcome: { usage: TokenUsage; finishReason: string | undefined } | { error: string }) => void;
  tool(call: ToolCall): (outcome: ToolOutcome) => void;
  end(status: 'completed' | 'failed' | 'cancelled', error?: { kind: string; message: string }): void;
}

export function traceParent(info: ParentTraceInfo): ParentTrace {
  const tracer = trace.getTracer('forkpool');
  const provider = providerNameOf(info.provider);
  const operation = operationOf(info.shape);
  const agent = tracer.startSpan(
    `${OPERATION.invokeAgent} main`,
    {
      kind: SpanKind.INTERNAL,
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
  return {
    context: agentContext,
    agentId: info.agentId,
    call() {
      if (!recording) return () => undefined;
      const span = tracer.startSpan(`${operation} ${info.model}`, { kind: SpanKind.CLIENT, attributes: { [ATTR.operationName]: operation, [ATTR.providerName]: provider, [ATTR.requestModel]: info.model } }, agentContext);
      return (outcome) => {
        if ('error' in outcome) markFailed(span, 'model_error', outcome.error);
        else span.setAttributes(callAttributes(outcome.usage, outcome.finishReason));
        span.end();
      };
    },
    tool(call) {
      if (!recording) return () => undefined;
      const startedAt = Date.now();
      return (outcome) => recordToolSpan(call, outcome, startedAt, agentContext);
    },
    end(status, error) {
      if (status === 'failed' && error !== undefined) markFailed(agent, error.kind, error.message);
      agent.end();
    },
  };
}
