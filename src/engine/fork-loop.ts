import { threadId } from 'node:worker_threads';
import { ForkRejectedError, type ForkSeed } from '../fork/index.js';
import type { ToolResponse } from '../dialect/dialect.js';
import { viewMessage } from '../dialect/view.js';
import { toolCallOf } from '../tools/call.js';
import { requestDecorator } from '../model/decorate.js';
import { addCached, type ModelProvider, type TokenUsage } from '../model/types.js';
import type { ParentSession } from '../session/schema.js';
import type { HostClient } from './host-client.js';
import { openConversation } from './conversation.js';
import { seedForkTask } from './fork-seed.js';
import { checkOutput, repairMessage } from './output-schema.js';
import { seedWindow, type CallRecord, type FailureKind, type ForkJob, type ForkResult } from './thread-wire.js';

export interface LoopContext {
  job: ForkJob;
  session: Readonly<ParentSession>;
  decodedPrefix: boolean;
  provider: ModelProvider;
  host: HostClient;
  /** Aborted on cancel or timeout; `abortReason` says which. */
  signal: AbortSignal;
  abortReason(): 'cancelled' | 'timeout' | undefined;
  /** Set when the engine asked the fork to end before its next model call (the run's budget is spent). */
  stopReason(): 'budget' | 'cost' | undefined;
}

type Ending =
  | { status: 'completed'; output?: unknown }
  | { status: 'failed'; kind: FailureKind; message: string }
  | { status: 'cancelled'; kind?: 'budget'; message?: string };

/** One fork's reasoning loop: model call → tool calls → model call …, until a final answer. */
export async function runForkLoop(ctx: LoopContext): Promise<ForkResult> {
  const started = performance.now();
  const { job, session } = ctx;
  const task = job.task;
  const state = { text: '', turns: 0, toolCalls: 0, retries: 0, spent: 0, calls: [] as CallRecord[] };

  const finish = (ending: Ending): ForkResult => {
    const base = {
      id: task.id,
      text: state.text,
      turns: state.turns,
      toolCalls: state.toolCalls,
      usage: sumUsage(state.calls),
      durationMs: Math.round(performance.now() - started),
      retries: state.retries,
      calls: state.calls,
      worker: { threadId, decodedPrefix: ctx.decodedPrefix },
    };
    if (ending.status === 'completed') {
      return { ...base, status: 'completed', ...(ending.output !== undefined ? { output: ending.output } : {}) };
    }
    if (ending.status === 'cancelled') {
      return { ...base, status: 'cancelled', error: { kind: ending.kind ?? 'cancelled', message: ending.message ?? 'the fork was cancelled' } };
    }
    return { ...base, status: 'failed', error: { kind: ending.kind, message: ending.message } };
  };
  const interrupted = (): Ending =>
    ctx.abortReason() === 'timeout'
      ? { status: 'failed', kind: 'timeout', message: `the fork did not finish within ${job.timeoutMs} ms` }
      : { status: 'cancelled' };

  let seed: ForkSeed;
  try {
    // The prefix is deep-frozen and the loop never edits a message: share them, do not copy.
    seed = seedForkTask(session, task, { history: job.history, spawnTools: job.spawnTools });
  } catch (err) {
    const kind: FailureKind = err instanceof ForkRejectedError ? 'rejected' : 'error';
    return finish({ status: 'failed', kind, message: err instanceof Error ? err.message : String(err) });
  }

  const decorator = requestDecorator(job.plan, { shared: seed.sharedContents, window: seedWindow(task, job.history) });
  const conversation = openConversation(seed, decorator);
  const explicitTokens = decorator.explicitTokens;
  const maxTurns = task.maxTurns ?? job.maxTurns;
  const gate = ctx.host.gate(ctx.signal, job.retryBudget);
  let repaired = false;
  // For tokens-per-minute limits: the prefix at first, then what the last call sent and got.
  let tokenEstimate = explicitTokens !== undefined ? 0 : job.prefixTokens;
  // Anthropic's cache diagnostics, on every call (free, GA): each names the response before it, the
  // first the job's (or none, null: opting in so that the second can name it). Others ignore it.
  let previousResponseId: string | null = job.previousResponseId ?? null;

  const budget = task.maxTokens ?? job.maxTokens;
  const stopped = (): Ending | undefined => {
    const stop = ctx.stopReason();
    if (stop !== undefined) {
      const what = stop === 'cost' ? "the run's cost cap was reached" : "the run's token budget was spent";
      return { status: 'cancelled', kind: 'budget', message: `${what}; the fork stopped before its next model call` };
    }
    if (budget !== undefined && state.spent >= budget) {
      return { status: 'failed', kind: 'budget', message: `the fork spent its token budget: ${state.spent} of ${budget} tokens, before its next model call` };
    }
    return undefined;
  };

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (ctx.signal.aborted) return finish(interrupted());
    const stop = stopped();
    if (stop) return finish(stop);
    let announced = false;
    const outcome = await ctx.provider.generate(
      conversation.request(),
      {
        signal: ctx.signal,
        gate,
        tokenEstimate,
        previousResponseId,
        onResponseStart: (responseId) => {
          if (!announced) ctx.host.report({ type: 'response_start', turn, ...(responseId !== undefined ? { responseId } : {}) });
          announced = true;
        },
      },
    );
    state.retries += outcome.attempts - 1;
    if (!outcome.ok) {
      if (ctx.signal.aborted) return finish(interrupted());
      const stop = stopped();
      if (stop && outcome.error.kind === 'aborted') return finish(stop);
      const status = outcome.error.status !== undefined ? ` (HTTP ${outcome.error.status})` : '';
      return finish({ status: 'failed', kind: 'model_error', message: `${outcome.error.message}${status}` });
    }
    state.turns = turn;
    tokenEstimate = outcome.usage.promptTokens + outcome.usage.outputTokens;
    state.spent += tokenEstimate;
    // What a call shares with others is the engine's to work out (cache-accounting.ts), not the worker's.
    state.calls.push({
      ...outcome.usage,
      ...(explicitTokens !== undefined ? { explicitTokens } : {}),
      ...(outcome.responseId !== undefined ? { responseId: outcome.responseId } : {}),
      ...(outcome.diagnosedAgainst !== undefined ? { diagnosedAgainst: outcome.diagnosedAgainst } : {}),
      ...(outcome.cacheMiss !== undefined ? { cacheMiss: outcome.cacheMiss } : {}),
    });
    previousResponseId = outcome.responseId ?? null;
    conversation.push(outcome.message);
    const reply = viewMessage(outcome.message);
    const calls = reply.calls;
    const text = reply.texts.join('');
    if (text) state.text = text;
    ctx.host.report({ type: 'turn', turn, usage: outcome.usage, functionCalls: calls.length });

    if (calls.length === 0) {
      // A message from the parent that came while the fork answered gets another turn, not a lost word (the reference drains them too).
      const inbox = turn < maxTurns ? ctx.host.takeMessages() : [];
      if (inbox.length > 0) {
        conversation.say(inbox.map(fromParent).join('\n'));
        continue;
      }
      if (!task.outputSchema) return finish({ status: 'completed' });
      const checked = checkOutput(text, task.outputSchema);
      if (checked.ok) return finish({ status: 'completed', output: checked.value });
      if (repaired) return finish({ status: 'failed', kind: 'output_schema', message: checked.error.message });
      repaired = true;
      conversation.say(repairMessage(checked.error.message));
      continue;
    }

    const answers = await Promise.all(calls.map((call) => ctx.host.execTool(toolCallOf(call), ctx.signal, job.toolTimeoutMs)));
    state.toolCalls += calls.length;
    const responses: ToolResponse[] = [];
    for (const [i, answer] of answers.entries()) {
      if (!answer.ok) {
        if (answer.error.kind === 'aborted') return finish(interrupted());
        return finish({ status: 'failed', kind: 'host_gone', message: `the tool host did not answer ${calls[i]?.name} (${answer.error.kind})` });
      }
      responses.push(answer.value.response);
    }
    conversation.answer(calls, responses, ctx.host.takeMessages().map(fromParent));
  }
  return finish({ status: 'failed', kind: 'max_turns', message: `the fork reached its limit of ${maxTurns} model turns` });
}

/** The reference's wording for a message the parent sent a running task (agent-core.ts EXTERNAL_MESSAGE_PREFIX). */
function fromParent(text: string): string {
  return `[Message from parent agent]: ${text}`;
}

function sumUsage(calls: readonly CallRecord[]): TokenUsage {
  const total: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
  for (const c of calls) {
    total.promptTokens += c.promptTokens;
    total.cachedTokens = addCached(total.cachedTokens, c.cachedTokens);
    total.outputTokens += c.outputTokens;
    if (c.cacheWriteTokens !== undefined) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + c.cacheWriteTokens;
    if (c.cacheWrite1hTokens !== undefined) total.cacheWrite1hTokens = (total.cacheWrite1hTokens ?? 0) + c.cacheWrite1hTokens;
  }
  return total;
}
