import { AGENT_TOOL_DECLARATION, AGENT_TOOL_NAME, validateAgentParams } from '../fork/index.js';
import type { ModelProvider, TokenUsage } from '../model/types.js';
import type { Content, ParentSession, Part } from '../session/schema.js';
import { declaredToolNames, type ToolCall, type ToolHost } from '../tools/host.js';
import type { ForkEngine } from './engine.js';
import { formatTaskNotification } from './notification.js';
import type { ForkResult } from './protocol.js';
import type { FanOutRun } from './run.js';

export type ParentEvent =
  | { type: 'task_started'; forkId: string; toolUseId: string; description: string }
  | { type: 'task_notification'; forkId: string; result: ForkResult }
  | { type: 'turn'; turn: number; usage: TokenUsage };

export type ParentOutcome =
  | { status: 'completed'; text: string; turns: number; forks: ForkResult[]; usage: TokenUsage }
  | { status: 'failed' | 'cancelled'; text: string; turns: number; forks: ForkResult[]; usage: TokenUsage; error: string };

export interface ParentAgentOptions {
  engine: ForkEngine;
  /** The parent model's client, on this thread. */
  provider: ModelProvider;
  /** Executes the parent's own (non-agent) tool calls. */
  tools: ToolHost;
  session: ParentSession;
  prompt: string;
  maxTurns?: number;
  signal?: AbortSignal;
  onEvent?: (event: ParentEvent) => void;
}

const PLACEHOLDER = (id: string): string =>
  `Fork ${id} is running in the background. Its result will arrive as a <task-notification>; do not wait or poll for it.`;

/**
 * A headless parent agent loop that offers its model the `agent` tool. A fork request returns a
 * placeholder at once and runs in the background on the engine; each fork's notification comes
 * back to the model as a user turn; the loop ends only when the model answers and no fork is left.
 */
export async function runParentAgent(opts: ParentAgentOptions): Promise<ParentOutcome> {
  const { engine, session } = opts;
  const signal = opts.signal ?? new AbortController().signal;
  const maxTurns = opts.maxTurns ?? 50;
  const tools = [...(session.tools ?? []), { functionDeclarations: [AGENT_TOOL_DECLARATION] }];
  const declared = declaredToolNames(tools);
  const contents: Content[] = [...structuredClone(session.history), { role: 'user', parts: [{ text: opts.prompt }] }];
  const runs: FanOutRun[] = [];
  const descriptions = new Map<string, string>();
  const finished: ForkResult[] = [];
  const unreported: ForkResult[] = [];
  let pending = 0;
  let wakeUp: (() => void) | undefined;
  const usage: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
  let text = '';
  let forkCount = 0;

  const cancelForks = (): void => runs.forEach((r) => r.cancelAll());
  signal.addEventListener('abort', cancelForks, { once: true });
  const end = async (status: 'failed' | 'cancelled', error: string, turns: number): Promise<ParentOutcome> => {
    cancelForks();
    await Promise.all(runs.map((r) => r.results()));
    return { status, text, turns, forks: finished, usage, error };
  };

  try {
    for (let turn = 1; turn <= maxTurns; turn++) {
      if (signal.aborted) return await end('cancelled', 'the parent run was cancelled', turn - 1);
      const outcome = await opts.provider.generate(
        {
          model: session.model,
          contents,
          tools,
          ...(session.systemInstruction !== undefined ? { systemInstruction: session.systemInstruction } : {}),
          ...(session.toolConfig !== undefined ? { toolConfig: session.toolConfig } : {}),
          ...(session.generationConfig !== undefined ? { generationConfig: session.generationConfig } : {}),
        },
        { signal },
      );
      if (!outcome.ok) {
        return await end(signal.aborted ? 'cancelled' : 'failed', `the parent model call failed: ${outcome.error.message}`, turn - 1);
      }
      usage.promptTokens += outcome.usage.promptTokens;
      usage.cachedTokens += outcome.usage.cachedTokens;
      usage.outputTokens += outcome.usage.outputTokens;
      opts.onEvent?.({ type: 'turn', turn, usage: outcome.usage });
      contents.push(outcome.content);
      const answer = outcome.content.parts.flatMap((p) => (typeof p.text === 'string' && !(p as { thought?: boolean }).thought ? [p.text] : [])).join('');
      if (answer) text = answer;
      const calls = outcome.content.parts.flatMap((p) => (p.functionCall ? [p.functionCall as ToolCall] : []));

      if (calls.length > 0) {
        const forkTasks: { id: string; toolUseId: string; description: string; task: Parameters<ForkEngine['fanOut']>[1][number] }[] = [];
        const responses: Part[] = [];
        for (const call of calls) {
          const respond = (response: Record<string, unknown>): void => {
            responses.push({ functionResponse: { ...(call.id ? { id: call.id } : {}), name: call.name, response } } as Part);
          };
          if (call.name !== AGENT_TOOL_NAME) {
            const result = await opts.tools.execute(call, { forkId: 'parent', declaredTools: declared, spawnTools: new Set() }, signal);
            respond(result.response);
            continue;
          }
          const checked = validateAgentParams(call.args ?? {}, { headless: true });
          if (!checked.ok) {
            respond({ error: checked.error });
            continue;
          }
          if (!checked.fork) {
            respond({ error: `subagent_type: only "fork" sub-agents are available in forkpool (got ${JSON.stringify(checked.params.subagent_type)})` });
            continue;
          }
          const id = `fork-${++forkCount}`;
          forkTasks.push({
            id,
            toolUseId: call.id ?? id,
            description: checked.params.description,
            task: {
              id,
              directive: checked.params.prompt,
              ...(checked.fork.forkTurns !== 'all' ? { forkTurns: checked.fork.forkTurns } : {}),
              ...(checked.fork.allowedTools !== undefined ? { tools: checked.fork.allowedTools } : {}),
            },
          });
          respond({ output: PLACEHOLDER(id) });
        }
        if (forkTasks.length > 0) {
          // Siblings of one turn share one frozen prefix: the conversation up to this model message.
          const prefix = engine.freeze({ ...session, history: contents.slice() });
          const run = engine.fanOut(prefix, forkTasks.map((f) => f.task));
          runs.push(run);
          pending += forkTasks.length;
          for (const f of forkTasks) {
            descriptions.set(f.id, f.description);
            opts.onEvent?.({ type: 'task_started', forkId: f.id, toolUseId: f.toolUseId, description: f.description });
          }
          run.onResult((result) => {
            pending--;
            finished.push(result);
            unreported.push(result);
            opts.onEvent?.({ type: 'task_notification', forkId: result.id, result });
            wakeUp?.();
          });
        }
        contents.push({ role: 'user', parts: [...responses, ...drainNotifications(unreported, descriptions)] });
        continue;
      }

      // A final answer: the run is over only when no fork is left to report.
      if (pending === 0 && unreported.length === 0) return { status: 'completed', text, turns: turn, forks: finished, usage };
      if (unreported.length === 0) {
        await new Promise<void>((resolve) => {
          wakeUp = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        wakeUp = undefined;
        if (signal.aborted) return await end('cancelled', 'the parent run was cancelled', turn);
      }
      contents.push({ role: 'user', parts: drainNotifications(unreported, descriptions) });
    }
    return await end('failed', `the parent reached its limit of ${maxTurns} turns`, maxTurns);
  } finally {
    signal.removeEventListener('abort', cancelForks);
  }
}

function drainNotifications(unreported: ForkResult[], descriptions: ReadonlyMap<string, string>): Part[] {
  return unreported.splice(0).map((r) => ({ text: formatTaskNotification(r, descriptions.get(r.id) ?? r.id) }) as Part);
}
