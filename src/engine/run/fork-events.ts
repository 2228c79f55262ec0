import type { CachePlan } from '../../model/plan.js';
import type { TokenUsage } from '../../model/types.js';
import type { ForkTask } from '../../session/schema.js';
import type { ForkResult } from '../../result/fork-result.js';
import type { ForkTrace } from '../../telemetry/fan-out-trace.js';
import { secondsBetween, type ModelCallMetrics } from '../../telemetry/metrics.js';
import type { TranscriptUsage } from '../../transcript/format.js';
import type { CacheAccounting } from '../cache-accounting.js';
import type { ForkEvent } from '../events.js';
import type { ForkHooks } from '../fork-start.js';
import type { ForkEnd, ToolCallRecord } from '../report.js';

/** What of its run a fork's events reach: the run's parts, shared by all its forks. */
export interface RunListeners {
  /** When a response's prefix can be read (the plan's readable rule): the scheduler's warm-up waits for it. */
  readableAfter: CachePlan['readable']['after'];
  /** Each seed window's first response id: its later forks' first calls are diagnosed against it. */
  firstResponses: Map<string, string>;
  accounting: Pick<CacheAccounting, 'responded' | 'called'>;
  /** The scheduler: a response that makes the prefix readable releases the forks waiting for it. */
  responded(order: number): void;
  log: { push(event: ForkEvent): void };
  callMetrics: ModelCallMetrics;
  /** The run's budget: whether more calls may start, and each call's spending. */
  spending: { readonly spent: boolean; called(fork: number, usage: TokenUsage): void };
  onResponseStart?: ((taskId: string, turn: number) => void) | undefined;
}

/** One dispatched fork, as its events are routed. */
export interface ForkInRun {
  index: number;
  /** The order it was dispatched in (0: the run's first). */
  order: number;
  task: ForkTask;
  /** Its seed window (history × forkTurns). */
  window: string;
  trace: ForkTrace;
  /** Whether it is still running: reports that trail its result (it was settled and counted) are dropped. */
  running(): boolean;
  /** Its tool calls so far, for its result listeners (at most TOOL_CALLS_KEPT). */
  tools: ToolCallRecord[];
}

/** A fork's tool calls kept for its result listeners, at most: a fork of a thousand calls is not usual, and memory stays bounded. */
const TOOL_CALLS_KEPT = 1_000;

/**
 * What a fork's worker reports, routed to its run: the first bytes of a response release the
 * warm-up and name the window's first response; each call's end goes to the events, the spans, the
 * metrics and the budget; a failed call and a tool call to the spans and the events.
 */
export function forkHooksOf(run: RunListeners, fork: ForkInRun): ForkHooks {
  const { task, window, order, trace } = fork;
  const firstResponse = (turn: number, responseId: string | undefined): void => {
    if (turn === 1 && responseId !== undefined && !run.firstResponses.has(window)) run.firstResponses.set(window, responseId);
  };
  return {
    admit: () => !run.spending.spent,
    onEvent: (event) => {
      if (event.type === 'response_start') {
        run.onResponseStart?.(task.id, event.turn);
        firstResponse(event.turn, event.responseId);
        run.accounting.responded(task);
        if (run.readableAfter === 'response-start') run.responded(order);
        return;
      }
      if (event.type === 'call_failed') {
        if (!fork.running()) return;
        trace.failedCall(event);
        // A call cancelled with its fork is not an operation that ended: no duration.
        if (event.errorType !== 'aborted') run.callMetrics.failed(event.errorType, secondsBetween(event.startedAt, event.endedAt));
        return;
      }
      if (event.type === 'transcript') {
        if (event.entry.type === 'message' && fork.running()) {
          const { turn, role, message, usage } = event.entry;
          run.log.push({
            type: 'message',
            forkId: task.id,
            turn,
            role,
            message,
            ...(usage !== undefined ? { usage: tokenUsageOf(usage) } : {}),
          });
        }
        return;
      }
      // An entry written once the response has ended: the first 'turn' releases the warm-up.
      if (run.readableAfter === 'response-end' && event.turn === 1) run.responded(order);
      firstResponse(event.turn, event.responseId);
      run.accounting.called(task);
      if (!fork.running()) return; // a late report of a fork already settled (its result was counted)
      trace.modelCall(event);
      run.callMetrics.answered(event.usage, event.responseModel, secondsBetween(event.startedAt, event.endedAt));
      run.log.push({
        type: 'turn',
        forkId: task.id,
        turn: event.turn,
        usage: event.usage,
        functionCalls: event.functionCalls,
        ...(event.finish !== undefined ? { finish: event.finish } : {}),
      });
      run.spending.called(fork.index, event.usage);
    },
    onAttempt: (status, wantsRetry) => {
      if (fork.running()) trace.attempt(status, wantsRetry);
    },
    onToolCall: (call, outcome, startedAt) => {
      if (!fork.running()) return; // a tool aborted after its fork ended
      trace.tool(call, outcome, startedAt);
      if (fork.tools.length < TOOL_CALLS_KEPT)
        fork.tools.push({ tool: call.name, status: outcome.status, ...(outcome.status !== 'ok' ? { error: outcome.error.message } : {}) });
      run.log.push({
        type: 'tool_call',
        forkId: task.id,
        tool: call.name,
        status: outcome.status,
        ...(outcome.status !== 'ok' ? { error: outcome.error } : {}),
      });
    },
  };
}

/** A transcript line's usage as the events give it. */
function tokenUsageOf(usage: TranscriptUsage): TokenUsage {
  const { responseId: _responseId, ...tokens } = usage;
  return tokens;
}

/** A fork's first event: its task's id, the first line of its directive, its sub-agent type. */
export function startedEvent(task: ForkTask): ForkEvent {
  return {
    type: 'task_started',
    forkId: task.id,
    description: describe(task),
    directive: task.directive,
    ...(task.subagentType !== undefined ? { subagentType: task.subagentType } : {}),
  };
}

function describe(task: ForkTask): string {
  const line = task.directive.split('\n', 1)[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** Tells each listener of a result; a listener's bug is the caller's, reported as theirs: it must not stall the run. */
export function notifyAll(
  listeners: readonly ((result: ForkResult, task: ForkTask, end: ForkEnd) => void)[],
  result: ForkResult,
  task: ForkTask,
  end: ForkEnd,
): void {
  for (const listener of listeners) {
    try {
      listener(result, task, end);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
