import { spentUsage, sumUsage } from '../result/results.js';
import { AGENT_TOOL_NAME, isForkChild, SEND_MESSAGE_TOOL_NAME, TASK_STOP_TOOL_NAME } from '../fork/index.js';
import { failure } from '../input/failure.js';
import { dialectOf, viewMessage, type AnyMessage, type ToolResponse } from '../shapes/index.js';
import { requestDecorator } from '../model/decorate.js';
import type { CachePlan } from '../model/plan.js';
import type { ModelProvider, TokenUsage } from '../model/types.js';
import type { ForkTask } from '../session/schema.js';
import type { ParentSession } from '../shapes/registry.js';
import { toolCallOf } from '../tools/call.js';
import { declaredToolNames } from '../shapes/tool-names.js';
import type { ToolHost } from '../tools/host.js';
import type { ForkResult } from '../result/fork-result.js';
import type { FanOutRun } from './run.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { FanOutOptions } from './options.js';
import { transcriptPath } from '../transcript/writer.js';
import { traceParent, type ParentTrace } from '../telemetry/parent-trace.js';
import { checkAgentCall, type StartedTask, startedTaskOf, withAgentTool } from './agent-call.js';
import type { ParentEvent, ParentOutcome } from './parent-events.js';
import { controlTask } from './task-control.js';
import { backgroundPlaceholder, drainNotifications, foregroundResult, forwardMessages } from './task-reports.js';

/** What the loop needs of the engine (ForkEngine is one): no import back into it, so no cycle. */
interface ForkRunner {
  freeze(session: unknown): FrozenPrefix;
  fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[], options?: FanOutOptions): FanOutRun;
}

export interface ParentAgentOptions {
  engine: ForkRunner;
  /** The parent model's client, on this thread. */
  provider: ModelProvider;
  /** Executes the parent's own (non-agent) tool calls. */
  tools: ToolHost;
  session: ParentSession;
  prompt: string;
  maxTurns?: number;
  signal?: AbortSignal;
  onEvent?: (event: ParentEvent) => void;
  /** Each fan-out the parent starts (its sub-agents of one turn, or a revived task), as it starts: a live page follows its forks. */
  onFanOut?: (run: FanOutRun, tasks: readonly ForkTask[]) => void;
  /** The provider's cache plan for the parent's own requests: decorated as its forks' are (model/decorate.ts). */
  plan: CachePlan;
  /** The run's routing key, given to every fan-out the parent starts so that its forks share the parent's cache. */
  cacheKey: string;
  /**
   * A folder for each background task's transcript (`<task id>.jsonl`): the placeholder names it
   * as the task's output file, and send_message revives a completed task from it. Without it, a
   * completed task cannot be revived.
   */
  transcripts?: string;
  /** OpenTelemetry: the parent's prompts, completions and tool calls on its spans (TelemetryOptions). */
  captureContent?: boolean;
}

/**
 * A headless parent agent loop that offers its model the `agent` tool. A fork request returns a
 * placeholder at once and runs in the background on the engine; each fork's notification comes
 * back to the model as a user turn; the loop ends only when the model answers and no fork is left.
 */
export async function runParentAgent(opts: ParentAgentOptions): Promise<ParentOutcome> {
  const traced = traceParent({
    agentId: opts.cacheKey,
    provider: opts.plan.provider,
    shape: opts.plan.shape,
    model: opts.session.model,
    captureContent: opts.captureContent === true,
  });
  let outcome: ParentOutcome | undefined;
  try {
    outcome = await runParentLoop(opts, traced);
    return outcome;
  } finally {
    traced.end(
      outcome?.status ?? 'failed',
      outcome !== undefined && outcome.status !== 'completed' ? outcome.error : { kind: 'error', message: 'the parent loop threw' },
      outcome === undefined ? undefined : sumUsage([outcome.usage, ...outcome.forks.map(spentUsage)]),
    );
  }
}

async function runParentLoop(opts: ParentAgentOptions, traced: ParentTrace): Promise<ParentOutcome> {
  const { engine, session } = opts;
  const signal = opts.signal ?? new AbortController().signal;
  const maxTurns = opts.maxTurns ?? 50;
  const dialect = dialectOf(session);
  const tools = withAgentTool(dialect, session);
  const declared = declaredToolNames(tools);
  const parent = dialect.withConversation(session, [], tools);
  // A conversation that is itself a fork may not start sub-agents: refused when called, not later.
  const insideFork = isForkChild(dialect.messages(session));
  const contents: AnyMessage[] = [...structuredClone(dialect.messages(session)), dialect.userText(opts.prompt)];
  const runs: FanOutRun[] = [];
  /** Which run each background task is in (task_stop and send_message reach it there). */
  const runOf = new Map<string, FanOutRun>();
  const started = new Map<string, StartedTask>();
  const finished: ForkResult[] = [];
  const unreported: ForkResult[] = [];
  let pending = 0;
  let wakeUp: (() => void) | undefined;
  let usage: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
  let text = '';
  let callCount = 0;

  /** How each task that ended did (a revived one is running again: not in here). */
  const ended = new Map<string, ForkResult['status']>();
  const stoppedByParent: string[] = [];
  const fanOutOptions: FanOutOptions = {
    parentWarm: true,
    promptCacheKey: opts.cacheKey,
    ...(opts.transcripts !== undefined ? { transcripts: { dir: opts.transcripts } } : {}),
    // Its fan-outs' spans go under its own, and their forks name it.
    traceParent: traced.context,
    parentAgentId: traced.agentId,
  };
  const fanOut = (prefix: FrozenPrefix, tasks: readonly ForkTask[]): FanOutRun => {
    const run = engine.fanOut(prefix, tasks, fanOutOptions);
    opts.onFanOut?.(run, tasks);
    return run;
  };
  /** A run of background tasks: each result a notification, each message of theirs an event. */
  const watch = (run: FanOutRun, ids: readonly string[], revived: boolean): void => {
    runs.push(run);
    for (const id of ids) runOf.set(id, run);
    pending += ids.length;
    run.onResult((result) => {
      pending--;
      finished.push(result);
      unreported.push(result);
      ended.set(result.id, result.status);
      const entry = started.get(result.id) as StartedTask;
      opts.onEvent?.({
        type: 'task_notification',
        forkId: result.id,
        toolUseId: entry.toolUseId,
        description: entry.description,
        subagentType: entry.subagentType,
        result,
        ...(revived ? { revived } : {}),
      });
      wakeUp?.();
    });
    if (opts.onEvent !== undefined && opts.transcripts !== undefined) void forwardMessages(run, started, opts.onEvent);
  };
  /** send_message to a completed task: its revival runs as a background task of its own again. */
  const revive = (id: string, message: string): boolean => {
    const outcome = runOf.get(id)?.send(id, message);
    if (outcome?.status !== 'revived') return false;
    opts.onFanOut?.(outcome.run, [(started.get(id) as StartedTask).task]);
    ended.delete(id);
    watch(outcome.run, [id], true);
    return true;
  };
  const append = (messages: readonly AnyMessage[], turn: number): void => {
    contents.push(...messages);
    for (const message of messages) opts.onEvent?.({ type: 'message', role: 'user', message, turn });
  };
  const cancelForks = (): void => {
    for (const run of runs) run.cancelAll();
  };
  signal.addEventListener('abort', cancelForks, { once: true });
  const settle = async (): Promise<void> => {
    cancelForks();
    await Promise.all(runs.map((r) => r.results()));
  };
  const fail = async (kind: 'model_error' | 'max_turns', message: string, turns: number): Promise<ParentOutcome> => {
    await settle();
    return { status: 'failed', text, turns, forks: finished, usage, stoppedByParent, error: failure(kind, message) };
  };
  const cancelled = async (turns: number): Promise<ParentOutcome> => {
    await settle();
    return {
      status: 'cancelled',
      text,
      turns,
      forks: finished,
      usage,
      stoppedByParent,
      error: failure('cancelled', 'the parent run was cancelled'),
    };
  };

  try {
    for (let turn = 1; turn <= maxTurns; turn++) {
      if (signal.aborted) return await cancelled(turn - 1);
      // The parent's whole conversation is what its forks inherit: all of it is the shared part.
      const decorator = requestDecorator(opts.plan, { shared: contents.length, window: 'parent' });
      const request = decorator.request(dialect.request(parent, contents));
      const endCall = traced.call(request);
      const outcome = await opts.provider.generate(request, { signal, gate: traced.attempts });
      endCall(outcome);
      if (!outcome.ok) {
        if (signal.aborted) return await cancelled(turn - 1);
        return await fail('model_error', `the parent model call failed: ${outcome.error.message}`, turn - 1);
      }
      usage = sumUsage([usage, outcome.usage]);
      opts.onEvent?.({ type: 'turn', turn, usage: outcome.usage });
      contents.push(outcome.message);
      const reply = viewMessage(outcome.message);
      const answer = reply.texts.join('');
      if (answer) text = answer;
      const calls = reply.calls;
      // Qwen Code's correlation: tool_use_id is the model's call id. A call without one (Gemini often
      // sends none) gets one made up, the same in the events as in its task's ids.
      const callIds = calls.map((call) => (call.id !== undefined && call.id !== '' ? call.id : `call-${++callCount}`));
      opts.onEvent?.({ type: 'message', role: 'assistant', message: outcome.message, turn, usage: outcome.usage, callIds });

      if (calls.length > 0) {
        const forkTasks: StartedTask[] = [];
        const foreground: StartedTask[] = [];
        const controls: { name: string; args: Readonly<Record<string, unknown>>; slot: number }[] = [];
        const responses: ToolResponse[] = [];
        for (const [k, call] of calls.entries()) {
          const respond = (response: ToolResponse): void => void responses.push(response);
          if (call.name === TASK_STOP_TOOL_NAME || call.name === SEND_MESSAGE_TOOL_NAME) {
            // Answered once this reply's own launches have started: it may name one of them.
            controls.push({ name: call.name, args: call.args ?? {}, slot: responses.length });
            respond({ output: '' });
            continue;
          }
          if (call.name !== AGENT_TOOL_NAME) {
            const endTool = traced.tool(toolCallOf(call));
            const result = await opts.tools.execute(
              toolCallOf(call),
              { forkId: 'parent', declaredTools: declared, spawnTools: new Set(), mainSession: true },
              signal,
            );
            endTool(result);
            respond(result.response);
            continue;
          }
          const checked = checkAgentCall(call, insideFork);
          if (!checked.ok) {
            respond({ error: checked.error.message });
            continue;
          }
          // task_id is <subagent type>-<tool_use_id>; a repeated id keeps its tool_use_id and only its task_id is made unique.
          const toolUseId = callIds[k] as string;
          let id = `${checked.subagentType}-${toolUseId}`;
          while (started.has(id)) id = `${checked.subagentType}-${toolUseId}-${++callCount}`;
          const entry = startedTaskOf(checked, id, toolUseId, responses.length);
          started.set(id, entry);
          if (checked.runInBackground) {
            forkTasks.push(entry);
            respond({
              output: backgroundPlaceholder(id, opts.transcripts === undefined ? undefined : transcriptPath(opts.transcripts, id)),
            });
          } else {
            foreground.push(entry);
            respond({ output: '' }); // filled in once it has run (below)
          }
        }
        // Cancelled while this turn's own tools ran: start nothing the cancel can no longer reach.
        if (signal.aborted) return await cancelled(turn);
        // Every sub-agent of one turn, background or foreground, shares one frozen prefix: the
        // conversation up to this model message, with the very tools the parent just declared. The
        // parent has just sent all of it but its own reply, so its cache entry is usable: nobody
        // waits for a warm-up. Frozen once, and only when a sub-agent starts.
        const prefix =
          forkTasks.length + foreground.length > 0 ? engine.freeze(dialect.withConversation(session, contents.slice(), tools)) : undefined;
        if (prefix !== undefined && forkTasks.length > 0) {
          const run = fanOut(
            prefix,
            forkTasks.map((f) => f.task),
          );
          for (const f of forkTasks) {
            opts.onEvent?.({
              type: 'task_started',
              forkId: f.task.id,
              toolUseId: f.toolUseId,
              description: f.description,
              subagentType: f.subagentType,
              ...(f.name !== undefined ? { name: f.name } : {}),
            });
          }
          watch(
            run,
            forkTasks.map((f) => f.task.id),
            false,
          );
        }
        for (const c of controls)
          responses[c.slot] = controlTask(c.name, c.args, { started, runOf, ended, revive, stopped: stoppedByParent });
        if (prefix !== undefined && foreground.length > 0) {
          // The parent's tool calls wait for these: each bounded by its fork timeout, all cancelled with the parent.
          const run = fanOut(
            prefix,
            foreground.map((f) => f.task),
          );
          runs.push(run);
          for (const result of await run.results()) {
            finished.push(result);
            ended.set(result.id, result.status);
            const entry = started.get(result.id) as StartedTask;
            responses[entry.slot] = { output: foregroundResult(result) };
          }
          if (signal.aborted) return await cancelled(turn);
        }
        append(dialect.answer(calls, responses, drainNotifications(unreported, started, opts.transcripts)).messages, turn);
        continue;
      }

      // A final answer: the run is over only when no fork is left to report.
      if (pending === 0 && unreported.length === 0)
        return { status: 'completed', text, turns: turn, forks: finished, usage, stoppedByParent, finish: outcome.finish };
      if (unreported.length === 0) {
        await new Promise<void>((resolve) => {
          wakeUp = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        wakeUp = undefined;
        if (signal.aborted) return await cancelled(turn);
      }
      append(dialect.answer([], [], drainNotifications(unreported, started, opts.transcripts)).messages, turn);
    }
    return await fail('max_turns', `the parent reached its limit of ${maxTurns} turns`, maxTurns);
  } finally {
    signal.removeEventListener('abort', cancelForks);
  }
}
