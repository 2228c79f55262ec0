import {
  AGENT_TOOL_DECLARATION,
  type AgentParamsResult,
  SEND_MESSAGE_DECLARATION,
  TASK_STOP_DECLARATION,
  validateAgentParams,
} from '../fork/index.js';
import { failure } from '../input/failure.js';
import type { AnyMessage, Dialect } from '../shapes/index.js';
import type { ParentSession } from '../shapes/registry.js';
import { declaredToolNames } from '../shapes/tool-names.js';
import type { CallView } from '../shapes/view.js';
import type { ForkTask, SubagentType } from '../session/schema.js';

/* The parent's side of the agent tool: declaring it, checking a call of it, and the task a call starts. */

/** A sub-agent the parent started with the agent tool. */
export interface StartedTask {
  toolUseId: string;
  description: string;
  subagentType: SubagentType;
  /** The label the model gave it (the agent tool's `name`). */
  name?: string;
  task: ForkTask;
  /** Where its tool call's response goes in this turn's answer. */
  slot: number;
}

/** The session's tools plus the agent tool and the task tools (in the session's shape), each unless it declares it already. */
export function withAgentTool(dialect: Dialect<AnyMessage, ParentSession>, session: Readonly<ParentSession>): readonly unknown[] {
  const tools = dialect.tools(session) ?? [];
  const declared = declaredToolNames(tools);
  const added = [AGENT_TOOL_DECLARATION, TASK_STOP_DECLARATION, SEND_MESSAGE_DECLARATION].filter((d) => !declared.has(d.name));
  return added.length === 0 ? tools : [...tools, ...added.map((d) => dialect.declareFunction(d))];
}

/** An agent call's parameters, checked (`insideFork`: a fork may not start sub-agents; refused when called). */
export function checkAgentCall(call: Pick<CallView, 'args' | 'argsError'>, insideFork: boolean): AgentParamsResult {
  if (call.argsError !== undefined)
    return { ok: false, error: failure('invalid_params', `the agent tool's arguments could not be read: ${call.argsError}`) };
  return validateAgentParams(call.args ?? {}, { insideFork });
}

/**
 * What an accepted agent call starts, as task `id` (`toolUseId`: its call's id): a fork of the
 * conversation (its turns and tools as the call asks) or a general-purpose sub-agent; its tool
 * call's response goes in `slot` of this turn's answer.
 */
export function startedTaskOf(checked: Extract<AgentParamsResult, { ok: true }>, id: string, toolUseId: string, slot: number): StartedTask {
  const task: ForkTask = checked.fork
    ? {
        id,
        directive: checked.params.prompt,
        ...(checked.fork.forkTurns !== 'all' ? { forkTurns: checked.fork.forkTurns } : {}),
        ...(checked.fork.allowedTools !== undefined ? { tools: checked.fork.allowedTools } : {}),
      }
    : { id, directive: checked.params.prompt, subagentType: 'general-purpose' };
  return {
    toolUseId,
    description: checked.params.description,
    subagentType: checked.subagentType,
    ...(checked.params.name !== undefined ? { name: checked.params.name } : {}),
    task,
    slot,
  };
}
