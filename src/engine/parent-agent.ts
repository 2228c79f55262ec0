import { spentUsage, sumUsage } from '../result/results.js';
import {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_NAME,
  SEND_MESSAGE_DECLARATION,
  SEND_MESSAGE_TOOL_NAME,
  TASK_STOP_DECLARATION,
  TASK_STOP_TOOL_NAME,
  TASK_TOOL_TEXT,
  isForkChild,
  parseSendMessage,
  parseTaskStop,
  validateAgentParams,
} from '../fork/index.js';
import { failure, type Failure } from '../input/failure.js';
import { dialectOf, viewMessage, type AnyMessage, type Dialect, type ToolResponse } from '../shapes/index.js';
import { requestDecorator } from '../model/decorate.js';
import type { CachePlan } from '../model/plan.js';
import type { ModelProvider, TokenUsage } from '../model/types.js';
import type { Finish } from '../model/finish.js';
import type { ForkTask, SubagentType } from '../session/schema.js';
import type { ParentSession } from '../shapes/registry.js';
import { toolCallOf } from '../tools/call.js';
import { declaredToolNames } from '../shapes/tool-names.js';
import type { ToolHost } from '../tools/host.js';
import { formatTaskNotification } from './notification.js';
import type { ForkResult } from '../result/fork-result.js';
import type { FanOutRun } from './run.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { FanOutOptions } from './options.js';
import { transcriptPath } from '../transcript/writer.js';
import { traceParent, type ParentTrace } from '../telemetry/parent-trace.js';

/**
 * `toolUseId` is the model's call id (one is made up when the model gave none); `forkId` is
 * `<subagent type>-<toolUseId>` (`fork-…`, `general-purpose-…`), as the reference names its tasks.
 * Only background tasks start and notify: a foreground one's result is its tool call's result.
 */
export type ParentEvent =
  | { type: 'task_started'; forkId: string; toolUseId: string; description: string; subagentType: SubagentType; name?: string }
  /** `revived`: the task ran again on a message sent to it once it had completed (same ids, no new task_started). */
  | { type: 'task_notification'; forkId: string; toolUseId: string; description: string; subagentType: SubagentType; result: ForkResult; revived?: boolean }
  | { type: 'turn'; turn: number; usage: TokenUsage }
  /**
   * A message of the conversation as it grows, in the session's shape: the parent model's replies
   * (`assistant`, with the call's usage) and what answers them (`user`: tool results,
   * notifications); with `parentToolUseId`, a message of that task's own conversation instead
   * (its transcript's: messages of background tasks only, and only with transcripts).
   */
  | {
      type: 'message';
      role: 'assistant' | 'user';
      message: unknown;
      turn: number;
      usage?: TokenUsage;
      parentToolUseId?: string;
      /** The parent's reply: the id each of its calls goes by (the model's, or the one made up for a call without). */
      callIds?: readonly string[];
    };

/** What every outcome has: the answer so far, and the tasks it ran. */
interface OutcomeBase {
  text: string;
  turns: number;
  forks: ForkResult[];
  usage: TokenUsage;
  /** Tasks the parent itself stopped with task_stop (they end cancelled: its choice, not a failure). */
  stoppedByParent: readonly string[];
}

export type ParentOutcome =
  /** `finish`: why its last reply ended (a cut or refused one is not a whole answer: isCut). */
  | (OutcomeBase & { status: 'completed'; finish: Finish | undefined })
  | (OutcomeBase & { status: 'failed'; error: Failure<'model_error' | 'max_turns'> })
  | (OutcomeBase & { status: 'cancelled'; error: Failure<'cancelled'> });

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

/** What a background launch returns at once: the reference's words (agent.ts), its output file the task's transcript (when there is one). */
const PLACEHOLDER = (id: string, transcript: string | undefined): string =>
  [
    'Background agent launched successfully.',
    `task_id: ${id} (internal ID \u2014 do not mention to the user. Use ${SEND_MESSAGE_TOOL_NAME} to continue this agent, or ${TASK_STOP_TOOL_NAME} to cancel.)`,
    'The agent is working in the background. Its result arrives as a <task-notification> for this task_id in a later turn; you will not see it in this turn.',
    'Do not treat the agent as cancelled or relaunch it because the notification has not arrived yet \u2014 the result comes under the original task_id.',
    "Do not duplicate this agent's work \u2014 avoid working with the same files or topics it is using. Work on non-overlapping tasks, or briefly tell the user what you launched and end your response.",
    'Never predict its findings. If the user asks about progress before the notification lands, say the agent is still running and report only the status you know.',
    ...(transcript !== undefined
      ? [`output_file: ${transcript}`, 'If asked, you can check progress before completion by using read_file', '  or run_shell_command tail on the output file.']
      : []),
  ].join('\n');

interface StartedTask {
  toolUseId: string;
  description: string;
  subagentType: SubagentType;
  /** The label the model gave it (the agent tool's `name`). */
  name?: string;
  task: ForkTask;
  /** Where its tool call's response goes in this turn's answer. */
  slot: number;
}

/**
 * A headless parent agent loop that offers its model the `agent` tool. A fork request returns a
 * placeholder at once and runs in the background on the engine; each fork's notification comes
 * back to the model as a user turn; the loop ends only when the model answers and no fork is left.
 */
export async function runParentAgent(opts: ParentAgentOptions): Promise<ParentOutcome> {
  const traced = traceParent({ agentId: opts.cacheKey, provider: opts.plan.provider, shape: opts.plan.shape, model: opts.session.model, captureContent: opts.captureContent === true });
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
    return { status: 'cancelled', text, turns, forks: finished, usage, stoppedByParent, error: failure('cancelled', 'the parent run was cancelled') };
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
            const result = await opts.tools.execute(toolCallOf(call), { forkId: 'parent', declaredTools: declared, spawnTools: new Set(), mainSession: true }, signal);
            endTool(result);
            respond(result.response);
            continue;
          }
          const checked = call.argsError !== undefined ? invalidArguments(call.argsError) : validateAgentParams(call.args ?? {}, { insideFork });
          if (!checked.ok) {
            respond({ error: checked.error.message });
            continue;
          }
          // task_id is <subagent type>-<tool_use_id>; a repeated id keeps its tool_use_id and only its task_id is made unique.
          const toolUseId = callIds[k] as string;
          let id = `${checked.subagentType}-${toolUseId}`;
          while (started.has(id)) id = `${checked.subagentType}-${toolUseId}-${++callCount}`;
          const task: ForkTask = checked.fork
            ? {
                id,
                directive: checked.params.prompt,
                ...(checked.fork.forkTurns !== 'all' ? { forkTurns: checked.fork.forkTurns } : {}),
                ...(checked.fork.allowedTools !== undefined ? { tools: checked.fork.allowedTools } : {}),
              }
            : { id, directive: checked.params.prompt, subagentType: 'general-purpose' };
          const entry: StartedTask = {
            toolUseId,
            description: checked.params.description,
            subagentType: checked.subagentType,
            ...(checked.params.name !== undefined ? { name: checked.params.name } : {}),
            task,
            slot: responses.length,
          };
          started.set(id, entry);
          if (checked.runInBackground) {
            forkTasks.push(entry);
            respond({ output: PLACEHOLDER(id, opts.transcripts === undefined ? undefined : transcriptPath(opts.transcripts, id)) });
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
        const prefix = forkTasks.length + foreground.length > 0 ? engine.freeze(dialect.withConversation(session, contents.slice(), tools)) : undefined;
        if (prefix !== undefined && forkTasks.length > 0) {
          const run = fanOut(prefix, forkTasks.map((f) => f.task));
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
          watch(run, forkTasks.map((f) => f.task.id), false);
        }
        for (const c of controls) responses[c.slot] = controlTask(c.name, c.args, { started, runOf, ended, revive, stopped: stoppedByParent });
        if (prefix !== undefined && foreground.length > 0) {
          // The parent's tool calls wait for these: each bounded by its fork timeout, all cancelled with the parent.
          const run = fanOut(prefix, foreground.map((f) => f.task));
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
      if (pending === 0 && unreported.length === 0) return { status: 'completed', text, turns: turn, forks: finished, usage, stoppedByParent, finish: outcome.finish };
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

/** task_stop and send_message: what they did to one background task, in the reference's words. */
function controlTask(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  tasks: {
    started: ReadonlyMap<string, StartedTask>;
    runOf: ReadonlyMap<string, FanOutRun>;
    ended: ReadonlyMap<string, ForkResult['status']>;
    revive: (id: string, message: string) => boolean;
    /** The tasks task_stop stopped, added to. */
    stopped: string[];
  },
): ToolResponse {
  const message = tool === SEND_MESSAGE_TOOL_NAME ? parseSendMessage(args) : undefined;
  const checked = message ?? parseTaskStop(args);
  if (!checked.ok) return { error: checked.message };
  const id = checked.params.task_id;
  const entry = tasks.started.get(id);
  if (entry === undefined) return { error: TASK_TOOL_TEXT.unknown(id) };
  // A foreground task of this same reply has not run yet: it cannot be reached, and reads as not running.
  const status = tasks.ended.get(id) ?? (tasks.runOf.has(id) ? 'running' : 'pending');
  const run = status === 'running' ? tasks.runOf.get(id) : undefined;
  if (message?.ok) {
    if (run !== undefined) {
      const sent = run.send(id, message.params.message);
      if (sent.status === 'delivered') return { output: TASK_TOOL_TEXT.messageQueued(id) };
      if (sent.status === 'not-delivered') return { error: TASK_TOOL_TEXT.notDelivered(id, sent.reason) };
    }
    if (status === 'completed') return tasks.revive(id, message.params.message) ? { output: TASK_TOOL_TEXT.revived(id) } : { error: TASK_TOOL_TEXT.notRevived(id) };
    if (status === 'running') return { error: TASK_TOOL_TEXT.notRevived(id) };
    return { error: TASK_TOOL_TEXT.messageToStopped(id, status) };
  }
  if (run?.cancel(id)) {
    tasks.stopped.push(id);
    return { output: TASK_TOOL_TEXT.stopRequested(id, entry.description) };
  }
  return { error: TASK_TOOL_TEXT.notRunning(id, status) };
}

/** The messages of a run's tasks as they go, as the parent's events (with the task's tool_use id). */
async function forwardMessages(run: FanOutRun, started: ReadonlyMap<string, StartedTask>, onEvent: (event: ParentEvent) => void): Promise<void> {
  for await (const event of run.events()) {
    if (event.type !== 'message') continue;
    const toolUseId = started.get(event.forkId)?.toolUseId;
    if (toolUseId === undefined) continue;
    onEvent({
      type: 'message',
      role: event.role === 'model' ? 'assistant' : 'user',
      message: event.message,
      turn: event.turn,
      ...(event.usage !== undefined ? { usage: event.usage } : {}),
      parentToolUseId: toolUseId,
    });
  }
}

/** A foreground sub-agent's result as its tool call returns it: the reference's texts (agent.ts). */
function foregroundResult(result: ForkResult): string {
  const text = result.text.trim();
  if (result.status === 'cancelled') return `Agent was cancelled by the user. Partial result follows:\n\n${text || '(no partial result captured)'}`;
  // The reference answers a timeout or a turn limit as it answers an ended run; only an error is "failed".
  if (result.status === 'failed' && result.error.kind !== 'timeout' && result.error.kind !== 'max_turns') return text || 'Subagent execution failed.';
  return text || '(subagent produced no model-visible output)';
}

function drainNotifications(unreported: ForkResult[], started: ReadonlyMap<string, StartedTask>, transcripts: string | undefined): string[] {
  return unreported.splice(0).map((r) => {
    const entry = started.get(r.id);
    return formatTaskNotification(r, entry?.description ?? r.id, {
      ...(entry !== undefined ? { toolUseId: entry.toolUseId } : {}),
      ...(transcripts !== undefined ? { outputFile: transcriptPath(transcripts, r.id) } : {}),
    });
  });
}

/** The session's tools plus the agent tool and the task tools (in the session's shape), each unless it declares it already. */
function withAgentTool(dialect: Dialect<AnyMessage, ParentSession>, session: Readonly<ParentSession>): readonly unknown[] {
  const tools = dialect.tools(session) ?? [];
  const declared = declaredToolNames(tools);
  const added = [AGENT_TOOL_DECLARATION, TASK_STOP_DECLARATION, SEND_MESSAGE_DECLARATION].filter((d) => !declared.has(d.name));
  return added.length === 0 ? tools : [...tools, ...added.map((d) => dialect.declareFunction(d))];
}

function invalidArguments(why: string): { ok: false; error: Failure<'invalid_params'> } {
  return { ok: false, error: failure('invalid_params', `the agent tool's arguments could not be read: ${why}`) };
}
