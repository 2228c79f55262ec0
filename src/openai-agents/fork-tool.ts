import { type FunctionTool, RunContext, type Tool, tool } from '@openai/agents';
import type { FrameworkTool } from '../fork-tool/agent-tools.js';
import type { ForkEngine } from '../engine/engine.js';
import type { ForkResult } from '../result/fork-result.js';
import {
  type BackgroundCall,
  DIRECTIVE_DESCRIPTION,
  FORK_TOOL_DESCRIPTION,
  forkStep,
  stepBatcher,
  toolAnswer,
  type StepCall,
  type StepOptions,
} from '../fork-tool/step.js';
import { requestRecorder, type RecordedStep } from './recorder.js';

/*
 * A fork tool for OpenAI Agents SDK agents: when the model calls it, the run's conversation so far
 * is forked on forkpool's pool and the fork's answer is the tool's output. A tool there gets its
 * input, the run context and its call, not the conversation; so the tool comes with a `fetch` for
 * the agent's OpenAI client, which keeps the Responses API request that produced each call (its
 * bytes) and the items it output (recorder.ts). A fork is that request's body, its input followed by
 * the model's output items (the calls of this tool among them), as an openai-responses session: its
 * first request is the agent's bytes up to its last input item, with the same instructions, tools
 * and settings, so the provider's cache serves what the agent just sent.
 */

export interface OpenAIAgentsForkToolOptions extends StepOptions {
  /** An engine whose provider reaches the agent's model (`{ kind: 'openai', … }`); give it `spawnTools: [name]` so that a fork does not see its siblings' directives. */
  engine: ForkEngine;
  /** The tool's name in the agent's tools (default "fork"). */
  name?: string;
  /** The tool's description (what the model is told). */
  description?: string;
  /**
   * Background mode: the call returns at once with a placeholder, and each fork's result comes
   * here when it ends, for the caller to give back to its agent (a user message, a later turn).
   */
  onResult?: (result: ForkResult, call: BackgroundCall) => void;
  /** The fetch the recording one calls (default: the global fetch). */
  fetch?: typeof fetch;
  /** The agent's other tools: a fork's calls of its function tools run on this thread through the tool's own `invoke` (its parsing, its errorFunction), with the calling run's context. */
  tools?: readonly Tool[];
}

/** Request fields that steer one call's transport, not the conversation: a fork sets its own. */
const TRANSPORT_FIELDS = new Set(['stream', 'stream_options']);

/**
 * The fork tool and the fetch that feeds it: `new OpenAI({ fetch: forks.fetch })` for the agent's
 * client (`setDefaultOpenAIClient`, or `new OpenAIResponsesModel(client, model)`), `forks.tool` in
 * its tools.
 */
export function forkTool(options: OpenAIAgentsForkToolOptions) {
  const name = options.name ?? 'fork';
  const recorder = requestRecorder(name, options.fetch);
  // The forks carry the agent's own prompt_cache_key (in its body), or none as it sent none: OpenAI
  // routes by key and prefix, and a key of forkpool's would send them away from the agent's entry.
  const step: StepOptions = {
    fanOut: { ...options.fanOut, promptCacheKey: options.fanOut?.promptCacheKey ?? null },
    ...(options.parentWarm !== undefined ? { parentWarm: options.parentWarm } : {}),
    ...(options.warmup !== undefined ? { warmup: options.warmup } : {}),
  };
  // The run context of the agent's run that made each step's calls: its tools get it when a fork calls them.
  const runContexts = new WeakMap<RecordedStep, RunContext>();
  const enqueue = stepBatcher(async (recorded: RecordedStep, calls: readonly StepCall[]) => {
    const runContext = runContexts.get(recorded) ?? new RunContext();
    const tools = (options.tools ?? []).filter((t): t is FunctionTool => t.type === 'function').map((t) => runnable(t, runContext));
    forkStep(options.engine, sessionOf(recorded), calls, { ...step, tools });
  });

  const forks = tool({
    name,
    description: options.description ?? FORK_TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { directive: { type: 'string', description: DIRECTIVE_DESCRIPTION } },
      required: ['directive'],
      additionalProperties: false,
    },
    strict: true,
    async execute(input, context, details) {
      const directive = (input as { directive?: unknown }).directive;
      if (typeof directive !== 'string' || directive.trim() === '')
        return 'The fork tool needs a directive: what the fork is to do, in full.';
      const toolCallId = details?.toolCall?.callId;
      if (toolCallId === undefined)
        throw new Error(`forkTool: the ${name} tool was called without its call (details.toolCall): it runs as an agent's function tool`);
      const recorded = await recorder.stepOf(toolCallId);
      if (recorded === undefined) {
        throw new Error(
          `forkTool: call ${toolCallId} of the ${name} tool is not in a Responses API answer this tool's fetch saw (or still keeps: the latest 256): give the agent's OpenAI client the tool's fetch (new OpenAI({ fetch: forks.fetch })), and use its Responses model`,
        );
      }
      if (context !== undefined) runContexts.set(recorded, context);
      return toolAnswer(enqueue(recorded, { toolCallId, directive, signal: details?.signal }), { toolCallId, directive }, options.onResult);
    },
  });
  return { tool: forks, fetch: recorder.fetch };
}

/**
 * An agent's function tool as a fork runs it: through its `invoke`, as the Agents SDK's runner does
 * (the input is parsed and checked there, and a failure becomes the model-visible text its
 * errorFunction makes), with the calling run's context; its needsApproval asked first.
 */
function runnable(agentTool: FunctionTool, runContext: RunContext): FrameworkTool {
  const detailsOf = (input: unknown, callId: string, signal: AbortSignal) => ({
    toolCall: { type: 'function_call' as const, callId, name: agentTool.name, arguments: JSON.stringify(input ?? {}) },
    signal,
  });
  return {
    name: agentTool.name,
    needsApproval: (input, call) => agentTool.needsApproval(runContext, input as never, call.callId),
    run: (input, call) => agentTool.invoke(runContext, JSON.stringify(input ?? {}), detailsOf(input, call.callId, call.signal)),
  };
}

/**
 * The step as a session: the request's own fields in their order (its transport fields left out),
 * its input followed by the items the model output. The session's validation says what a fork
 * cannot take (a request that named a previous response, a built-in tool).
 */
function sessionOf(recorded: RecordedStep): Record<string, unknown> {
  const sent = JSON.parse(recorded.body) as Record<string, unknown>;
  const session: Record<string, unknown> = { format: 'openai-responses' };
  for (const [key, value] of Object.entries(sent)) {
    if (!TRANSPORT_FIELDS.has(key)) session[key] = value;
  }
  const input = typeof sent.input === 'string' ? [{ role: 'user', content: sent.input }] : Array.isArray(sent.input) ? sent.input : [];
  session.input = [...input, ...recorded.output];
  return session;
}
