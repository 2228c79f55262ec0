import { z } from 'zod';
import type { ForkEngine } from '../engine/engine.js';
import type { ForkResult } from '../result/fork-result.js';
import { importFromProject } from '../model/project-import.js';
import type { AiSdkMessage, AiSdkSession } from '../shapes/registry.js';
import type { AgentToolCall, FrameworkTool } from '../fork-tool/agent-tools.js';
import {
  type BackgroundCall,
  DIRECTIVE_DESCRIPTION,
  FORK_TOOL_DESCRIPTION,
  forkStep,
  type StepCall,
  type StepOptions,
  stepBatcher,
  toolAnswer,
} from '../fork-tool/step.js';

/*
 * A fork tool for Vercel AI SDK agents (`generateText`, `streamText`, `Agent`): when the model calls
 * it, the agent's conversation so far is forked on forkpool's pool and the fork's answer is the
 * tool's output. A tool's `execute` gets the messages that were sent for the step, but neither the
 * system prompt nor the assistant message that made the call: the tool is given the agent's system
 * prompt, tools and settings when it is made, and rebuilds the calling message from the step's
 * calls of this tool (calls of one step reach `execute` together, with the same messages), so each
 * fork is seeded mid-turn as the parent's next request would be. What that message held besides
 * these calls (its text, its reasoning, other tools' calls) cannot be rebuilt: the fork does not see it.
 */

type AiModule = typeof import('ai');

/** A tool of the agent's, as the AI SDK holds it: what the model is told of it, and how it runs. */
interface AgentTool {
  description?: string;
  inputSchema: unknown;
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Run for a fork's calls on the main thread, as the AI SDK runs it for the agent. */
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's own tools are typed by their schema; any of them is taken here.
  execute?: (input: any, options: ToolExecutionOptions) => unknown;
  /** Set (true, or a function that says true for this input): a fork's call of it is denied, as nobody is there to approve it. */
  // biome-ignore lint/suspicious/noExplicitAny: as execute.
  needsApproval?: boolean | ((input: any, options: ApprovalOptions) => boolean | PromiseLike<boolean>);
}

/** What the AI SDK gives a tool's `execute` (its ToolExecutionOptions). */
interface ToolExecutionOptions {
  toolCallId: string;
  messages: AiSdkMessage[];
  abortSignal?: AbortSignal;
  experimental_context?: unknown;
}

type ApprovalOptions = Pick<ToolExecutionOptions, 'toolCallId' | 'messages' | 'experimental_context'>;

/** The agent's call settings, as its generateText call gives them (the fork's requests repeat them). */
type CallSettings = Pick<
  AiSdkSession,
  | 'toolChoice'
  | 'providerOptions'
  | 'maxOutputTokens'
  | 'temperature'
  | 'topP'
  | 'topK'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'stopSequences'
  | 'seed'
>;

export interface ForkToolOptions {
  /** An engine with an AI SDK provider (`{ kind: 'ai-sdk', … }`) for the agent's model; give it `spawnTools: [name]` so that a fork does not see its siblings' directives. */
  engine: ForkEngine;
  /** The agent's model id (the session's `model`: reports and prices). */
  model: string;
  /** The agent's system prompt, as it gives it. */
  system?: AiSdkSession['system'];
  /** The agent's other tools, in the order it passes them; this tool comes after them, under `name`. */
  tools?: Readonly<Record<string, AgentTool>>;
  /** The agent's call settings (temperature, providerOptions, …), as it passes them. */
  settings?: CallSettings;
  /** The tool's name in the agent's tools (default "fork"). */
  name?: string;
  /** The tool's description (what the model is told). */
  description?: string;
  /**
   * Background mode: the call returns at once with a placeholder, and each fork's result comes
   * here when it ends, for the caller to give back to its agent (a user message, a later turn).
   */
  onResult?: (result: ForkResult, call: BackgroundCall) => void;
  /** The agent's `experimental_context`, given to its tools when a fork calls them. */
  context?: unknown;
  /** The fan-out's own options (transcripts, onResponseStart, …). */
  fanOut?: StepOptions['fanOut'];
  /** true (the default): the agent has just sent this conversation, so its cache entry is there and no fork waits for another. */
  parentWarm?: boolean;
  /**
   * 'auto': of a step's several forks the first goes alone until its response begins, so that what
   * they share beyond the agent's request is cached once; 'none': all at once. Default: 'none' when
   * the parent is warm, else 'auto'.
   */
  warmup?: 'auto' | 'none';
}

const ForkInput = z.object({ directive: z.string().min(1).describe(DIRECTIVE_DESCRIPTION) });

export function forkTool(options: ForkToolOptions) {
  const name = options.name ?? 'fork';
  if (options.tools !== undefined && Object.hasOwn(options.tools, name))
    throw new TypeError(`forkTool: the agent's tools already have a tool named ${JSON.stringify(name)}`);
  const description = options.description ?? FORK_TOOL_DESCRIPTION;

  /** The step's calls: the conversation, the calling message rebuilt, the tools as the AI SDK rendered them. */
  const run = async (messages: readonly unknown[], calls: readonly StepCall[]): Promise<void> => {
    const ai = await importFromProject<AiModule>('ai');
    const tools: Record<string, unknown> = {};
    for (const [toolName, tool] of Object.entries(options.tools ?? {})) tools[toolName] = await declared(ai, tool);
    tools[name] = await declared(ai, { description, inputSchema: ForkInput });
    const calling: AiSdkMessage = {
      role: 'assistant',
      content: calls.map((c) => ({ type: 'tool-call', toolCallId: c.toolCallId, toolName: name, input: { directive: c.directive } })),
    };
    // A JSON copy: what the agent holds as objects (a URL, bytes) is what its provider sent as text.
    const conversation = [...(JSON.parse(JSON.stringify(messages)) as AiSdkMessage[]), calling];
    const session = {
      format: 'ai-sdk',
      model: options.model,
      ...(options.system !== undefined ? { system: options.system } : {}),
      messages: conversation,
      tools,
      ...options.settings,
    };
    forkStep(options.engine, session, calls, {
      ...(options.fanOut !== undefined ? { fanOut: options.fanOut } : {}),
      ...(options.parentWarm !== undefined ? { parentWarm: options.parentWarm } : {}),
      ...(options.warmup !== undefined ? { warmup: options.warmup } : {}),
      tools: Object.entries(options.tools ?? {}).map(([toolName, tool]) => runnable(ai, toolName, tool, conversation, options.context)),
    });
  };
  // A step's calls reach `execute` with the same messages array.
  const enqueue = stepBatcher(run);

  return {
    description,
    inputSchema: ForkInput,
    async execute(
      input: z.infer<typeof ForkInput>,
      call: { toolCallId: string; messages: readonly unknown[]; abortSignal?: AbortSignal },
    ): Promise<string> {
      const fork = enqueue(call.messages, { toolCallId: call.toolCallId, directive: input.directive, signal: call.abortSignal });
      return toolAnswer(fork, { toolCallId: call.toolCallId, directive: input.directive }, options.onResult);
    },
  };
}

/**
 * An agent's tool as a fork runs it: through the AI SDK's own entry point (executeTool: an execute
 * that returns an async iterable ends with its last value), its input validated against the tool's
 * schema by the AI SDK, with the conversation the fork started from as `messages`.
 */
function runnable(ai: AiModule, name: string, tool: AgentTool, messages: AiSdkMessage[], context: unknown): FrameworkTool {
  const { execute, needsApproval } = tool;
  const optionsOf = (call: AgentToolCall) => ({
    toolCallId: call.callId,
    messages,
    abortSignal: call.signal,
    experimental_context: context,
  });
  return {
    name,
    needsApproval:
      typeof needsApproval === 'function'
        ? async (input, call) => needsApproval(await validated(ai, name, tool.inputSchema, input), optionsOf(call))
        : needsApproval === true,
    ...(execute !== undefined
      ? { run: async (input, call) => lastOf(await execute(await validated(ai, name, tool.inputSchema, input), optionsOf(call))) }
      : {}),
  };
}

/** The input as the tool's schema takes it, checked as the AI SDK checks a call (asSchema(…).validate); a clear error when it is not. */
async function validated(ai: AiModule, name: string, schema: unknown, input: unknown): Promise<unknown> {
  const validate = ai.asSchema(schema as Parameters<AiModule['asSchema']>[0]).validate;
  if (validate === undefined) return input;
  const result = await validate(input);
  if (!result.success) throw new Error(`invalid input for ${name}: ${result.error.message}. Fix it and call again.`);
  return result.value;
}

/** A tool's result: an execute that returns an async iterable (preliminary results) ends with its last value. */
async function lastOf(output: unknown): Promise<unknown> {
  if (output === null || typeof output !== 'object' || !(Symbol.asyncIterator in output)) return output;
  let last: unknown;
  for await (const value of output as AsyncIterable<unknown>) last = value;
  return last;
}

/** A tool as the model is told of it: its description and its input's JSON Schema, as the AI SDK renders them. */
async function declared(ai: AiModule, tool: AgentTool): Promise<Record<string, unknown>> {
  const inputSchema = await ai.asSchema(tool.inputSchema as Parameters<AiModule['asSchema']>[0]).jsonSchema;
  return {
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema,
    ...(tool.providerOptions !== undefined ? { providerOptions: tool.providerOptions } : {}),
  };
}
