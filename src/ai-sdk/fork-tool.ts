import { type Context, context } from '@opentelemetry/api';
import { z } from 'zod';
import type { ForkEngine } from '../engine/engine.js';
import type { FanOutOptions } from '../engine/options.js';
import type { ForkResult } from '../engine/thread-wire.js';
import { importFromProject } from '../model/project-import.js';
import type { AiSdkMessage, AiSdkSession } from '../session/ai-sdk-schema.js';

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

/** A tool of the agent's, as the AI SDK holds it: what the model is told of it. */
interface AgentTool {
  description?: string;
  inputSchema: unknown;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** The agent's call settings, as its generateText call gives them (the fork's requests repeat them). */
type CallSettings = Pick<AiSdkSession, 'toolChoice' | 'providerOptions' | 'maxOutputTokens' | 'temperature' | 'topP' | 'topK' | 'presencePenalty' | 'frequencyPenalty' | 'stopSequences' | 'seed'>;

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
  onResult?: (result: ForkResult, call: { toolCallId: string; directive: string }) => void;
  /** The fan-out's own options (transcripts, onResponseStart, …). */
  fanOut?: Omit<FanOutOptions, 'parentWarm'>;
  /**
   * 'auto' (the default): of a step's several forks the first goes alone until its response begins,
   * so that what they share beyond the agent's request is cached once; 'none': all at once.
   */
  warmup?: 'auto' | 'none';
}

/** The longest the step's other forks wait for the first one's response to begin. */
const WARMUP_CAP_MS = 5_000;

const DESCRIPTION =
  'Fork yourself: a copy of you with this whole conversation so far works on the directive and returns its final answer. Use it for independent pieces of work that can run in parallel; call it several times at once for several forks.';

const ForkInput = z.object({ directive: z.string().min(1).describe('What the fork is to do, in full: it sees this conversation, and acts on this directive alone.') });

/** The step's calls of this tool, gathered as they reach `execute` (one step's share its messages). */
interface PendingCall {
  toolCallId: string;
  directive: string;
  /** The context its `execute` ran in: the AI SDK's tool-call span, when the agent is traced. */
  trace: Context;
  signal: AbortSignal | undefined;
  settle(result: ForkResult | Error): void;
}

export function forkTool(options: ForkToolOptions) {
  const name = options.name ?? 'fork';
  if (options.tools !== undefined && Object.hasOwn(options.tools, name)) throw new TypeError(`forkTool: the agent's tools already have a tool named ${JSON.stringify(name)}`);
  const description = options.description ?? DESCRIPTION;
  const batches = new Map<readonly unknown[], PendingCall[]>();

  /**
   * The step's calls: the conversation, the calling message rebuilt, the tools as the AI SDK
   * rendered them, frozen once; then a fan-out per call, under its own tool-call span.
   */
  const run = async (messages: readonly unknown[], calls: readonly PendingCall[]): Promise<void> => {
    const ai = await importFromProject<AiModule>('ai');
    const tools: Record<string, unknown> = {};
    for (const [toolName, tool] of Object.entries(options.tools ?? {})) tools[toolName] = await declared(ai, tool);
    tools[name] = await declared(ai, { description, inputSchema: ForkInput });
    const calling: AiSdkMessage = {
      role: 'assistant',
      content: calls.map((c) => ({ type: 'tool-call', toolCallId: c.toolCallId, toolName: name, input: { directive: c.directive } })),
    };
    const session = {
      format: 'ai-sdk',
      model: options.model,
      ...(options.system !== undefined ? { system: options.system } : {}),
      // A JSON copy: what the agent holds as objects (a URL, bytes) is what its provider sent as text.
      messages: [...(JSON.parse(JSON.stringify(messages)) as AiSdkMessage[]), calling],
      tools,
      ...options.settings,
    };
    const prefix = options.engine.freeze(session);
    const start = (call: PendingCall, onResponseStart?: () => void): void => {
      const own = options.fanOut?.onResponseStart;
      const fanOut = options.engine.fanOut(
        prefix,
        [{ id: call.toolCallId, directive: call.directive }],
        // The agent has just sent this conversation: its cache entry is there.
        {
          ...options.fanOut,
          parentWarm: true,
          traceParent: call.trace,
          ...(onResponseStart !== undefined || own !== undefined
            ? {
                onResponseStart: (taskId: string, turn: number) => {
                  own?.(taskId, turn);
                  onResponseStart?.();
                },
              }
            : {}),
        },
      );
      call.signal?.addEventListener('abort', () => fanOut.cancelAll(), { once: true });
      fanOut.onResult((result) => {
        // A lead that ended without a response (failed, cancelled) must not hold its siblings back.
        onResponseStart?.();
        call.settle(result);
      });
    };
    // What the step's forks share beyond the agent's request (its calls, their placeholders, the
    // fork's wording) is cached by the first fork's request: the others go once its response has
    // begun (or after WARMUP_CAP_MS), and read it from the cache instead of all sending it cold.
    const [lead, ...rest] = calls;
    if (lead === undefined) return;
    if (rest.length === 0 || options.warmup === 'none') {
      for (const call of calls) start(call);
      return;
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(cap);
      for (const call of rest) start(call);
    };
    const cap = setTimeout(release, WARMUP_CAP_MS);
    start(lead, release);
  };

  const enqueue = (toolCallId: string, directive: string, messages: readonly unknown[], signal: AbortSignal | undefined): Promise<ForkResult> =>
    new Promise<ForkResult>((resolve, reject) => {
      const call: PendingCall = { toolCallId, directive, trace: context.active(), signal, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) };
      const batch = batches.get(messages);
      if (batch !== undefined) {
        batch.push(call);
        return;
      }
      batches.set(messages, [call]);
      // The step's other calls of this tool arrive before the next turn of the event loop.
      setImmediate(() => {
        const calls = batches.get(messages) ?? [];
        batches.delete(messages);
        run(messages, calls).catch((err: unknown) => {
          for (const c of calls) c.settle(err instanceof Error ? err : new Error(String(err)));
        });
      });
    });

  return {
    description,
    inputSchema: ForkInput,
    async execute(input: z.infer<typeof ForkInput>, call: { toolCallId: string; messages: readonly unknown[]; abortSignal?: AbortSignal }): Promise<string> {
      const result = enqueue(call.toolCallId, input.directive, call.messages, call.abortSignal);
      if (options.onResult !== undefined) {
        const deliver = options.onResult;
        void result.then((r) => deliver(r, { toolCallId: call.toolCallId, directive: input.directive }));
        return `Fork ${call.toolCallId} started in the background; its result will be given to you when it ends.`;
      }
      return answerOf(await result);
    },
  };
}

/** A tool as the model is told of it: its description and its input's JSON Schema, as the AI SDK renders them. */
async function declared(ai: AiModule, tool: AgentTool): Promise<Record<string, unknown>> {
  const inputSchema = await ai.asSchema(tool.inputSchema as Parameters<AiModule['asSchema']>[0]).jsonSchema;
  return { ...(tool.description !== undefined ? { description: tool.description } : {}), inputSchema, ...(tool.providerOptions !== undefined ? { providerOptions: tool.providerOptions } : {}) };
}

/** What the tool returns to the agent: the fork's answer, or why it has none. */
function answerOf(result: ForkResult): string {
  if (result.status === 'completed') return result.text;
  return `The fork ${result.status === 'cancelled' ? 'was cancelled' : 'failed'} (${result.error.kind}): ${result.error.message}${result.text !== '' ? `\nIts partial answer:\n${result.text}` : ''}`;
}
