import { z } from 'zod';
import type { Tool, ToolContext } from '../tools/define.js';

/*
 * The agent's own tools, run for its forks: a fork's call of one reaches the engine's tool host on
 * the main thread (forkpool's checks: spawn tools, allowlists, the headless guard), which hands it
 * to the framework's own entry point here. The framework validates the input and runs the tool, as
 * it would for the agent; forkpool neither parses the input nor declares the tool (the step's
 * session already declares it as the framework rendered it).
 */

/** A call of an agent's tool, as a fork made it. */
export interface AgentToolCall {
  /** The fork's id (the fork tool's call id). */
  forkId: string;
  /** The model's id for this call (made up when its API gives none). */
  callId: string;
  signal: AbortSignal;
}

/** An agent's tool, as its fork tool runs it for the forks. */
export interface FrameworkTool {
  name: string;
  /** true, or true for this call: never run in a fork (nobody is there to approve it); the call is denied. */
  needsApproval: boolean | ((input: unknown, call: AgentToolCall) => Promise<boolean>);
  /** Runs one call through the framework; absent, the agent's tool has no implementation (the call fails, and the fork's answer says so). */
  run?: (input: unknown, call: AgentToolCall) => Promise<unknown>;
}

/** The agent's tools as the tool host takes them; `cannotRun` hears each call that no one could run. */
export function hostedTools(tools: readonly FrameworkTool[], cannotRun: (forkId: string, why: string) => void): Tool[] {
  return tools.map((tool) => {
    const execute = async (input: unknown, ctx: ToolContext): Promise<unknown> => {
      if (tool.run === undefined) {
        const why = `${tool.name} (the agent's tool has no execute: nothing can run it for a fork)`;
        cannotRun(ctx.forkId, why);
        throw new Error(`the agent's tool ${tool.name} has no implementation that a fork can run`);
      }
      const call = { forkId: ctx.forkId, callId: ctx.callId ?? `${ctx.forkId}-${tool.name}`, signal: ctx.signal };
      if (typeof tool.needsApproval === 'function' && (await tool.needsApproval(input, call)))
        throw new Error(
          `${tool.name} needs a person's approval for this call, and a fork cannot ask for it: do without it, or report that it is needed`,
        );
      return tool.run(input, call);
    };
    return Object.freeze({
      name: tool.name,
      description: '',
      // The framework validates the input against the tool's own schema.
      parameters: z.unknown(),
      approval: tool.needsApproval === true ? ('required' as const) : ('never' as const),
      interactive: false,
      timeoutMs: undefined,
      forks: true,
      cpu: false,
      module: undefined,
      declaration: { name: tool.name, description: '', parametersJsonSchema: { type: 'object' } },
      execute,
    });
  });
}
