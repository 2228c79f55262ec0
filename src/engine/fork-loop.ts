import { threadId } from 'node:worker_threads';
import { DIRECTIVE_PREFIX, ForkRejectedError, seedTask, type ForkSeed } from '../fork/index.js';
import { prefixFields } from '../model/request.js';
import type { ModelProvider, ModelRequest, TokenUsage } from '../model/types.js';
import type { Content, ParentSession, Part } from '../session/schema.js';
import type { ToolCall } from '../tools/host.js';
import type { HostClient } from './host-client.js';
import { checkOutput, outputSchemaInstruction, repairMessage } from './output-schema.js';
import { seedWindow, type CallRecord, type FailureKind, type ForkJob, type ForkResult } from './protocol.js';

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
  stopReason(): 'budget' | undefined;
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
    const directive = task.outputSchema ? task.directive + outputSchemaInstruction(task.outputSchema) : task.directive;
    // The prefix is deep-frozen and the loop never edits a message: share them, do not copy.
    seed = seedTask(session, task, directive, { history: job.history, spawnTools: job.spawnTools });
  } catch (err) {
    const kind: FailureKind = err instanceof ForkRejectedError ? 'rejected' : 'error';
    return finish({ status: 'failed', kind, message: err instanceof Error ? err.message : String(err) });
  }

  const cache = job.cache;
  const fixed: Omit<ModelRequest, 'contents'> = cache
    ? { model: seed.model, cachedContent: cache.name, ...(seed.generationConfig ? { generationConfig: seed.generationConfig } : {}) }
    : prefixFields(seed);
  const contents: Content[] = cache ? seed.contents.slice(cache.sharedContents) : seed.contents;
  const share = cache
    ? { shared: 0, base: 0, parent: 0 }
    : sharedShares(
        memoHead(`${job.prefix.id}|${seedWindow(task, job.history)}`, () =>
          measureHead(fixed, seed.contents.slice(0, seed.sharedContents), session.history),
        ),
        seed.contents.slice(seed.sharedContents),
      );
  const maxTurns = task.maxTurns ?? job.maxTurns;
  const gate = ctx.host.gate(ctx.signal, job.retryBudget);
  let repaired = false;
  // For tokens-per-minute limits: the prefix at first, then what the last call sent and got.
  let tokenEstimate = cache ? 0 : job.prefixTokens;

  const budget = task.maxTokens ?? job.maxTokens;
  const stopped = (): Ending | undefined => {
    if (ctx.stopReason() === 'budget') {
      return { status: 'cancelled', kind: 'budget', message: "the run's token budget was spent; the fork stopped before its next model call" };
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
      { ...fixed, contents },
      {
        signal: ctx.signal,
        gate,
        tokenEstimate,
        onResponseStart: () => {
          if (!announced) ctx.host.report({ type: 'response_start', turn });
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
    state.calls.push(
      cache
        ? { ...outcome.usage, explicitTokens: cache.tokens }
        : turn === 1
          ? {
              ...outcome.usage,
              sharedTokens: Math.round(outcome.usage.promptTokens * share.shared),
              baseTokens: Math.round(outcome.usage.promptTokens * share.base),
              parentTokens: Math.round(outcome.usage.promptTokens * share.parent),
            }
          : { ...outcome.usage },
    );
    contents.push(outcome.content);
    const calls = functionCalls(outcome.content.parts);
    const text = answerText(outcome.content.parts);
    if (text) state.text = text;
    ctx.host.report({ type: 'turn', turn, usage: outcome.usage, functionCalls: calls.length });

    if (calls.length === 0) {
      if (!task.outputSchema) return finish({ status: 'completed' });
      const checked = checkOutput(text, task.outputSchema);
      if (checked.ok) return finish({ status: 'completed', output: checked.value });
      if (repaired) return finish({ status: 'failed', kind: 'output_schema', message: checked.error.message });
      repaired = true;
      contents.push({ role: 'user', parts: [{ text: repairMessage(checked.error.message) }] });
      continue;
    }

    const responses = await Promise.all(calls.map((call) => ctx.host.execTool(call, ctx.signal, job.toolTimeoutMs)));
    state.toolCalls += calls.length;
    const parts: Part[] = [];
    for (const [i, answer] of responses.entries()) {
      if (!answer.ok) {
        if (answer.error.kind === 'aborted') return finish(interrupted());
        return finish({ status: 'failed', kind: 'host_gone', message: `the tool host did not answer ${calls[i]?.name} (${answer.error.kind})` });
      }
      const call = calls[i] as ToolCall;
      parts.push({ functionResponse: { ...(call.id ? { id: call.id } : {}), name: call.name, response: answer.value.response } } as Part);
    }
    contents.push({ role: 'user', parts });
  }
  return finish({ status: 'failed', kind: 'max_turns', message: `the fork reached its limit of ${maxTurns} model turns` });
}

function functionCalls(parts: readonly Part[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of parts) {
    const fc = (part as { functionCall?: { id?: string; name?: string; args?: Record<string, unknown> } }).functionCall;
    if (fc?.name) calls.push({ name: fc.name, ...(fc.id ? { id: fc.id } : {}), args: fc.args ?? {} });
  }
  return calls;
}

/** The visible answer: text parts that are not the model's thoughts. */
function answerText(parts: readonly Part[]): string {
  return parts
    .filter((p) => typeof (p as { text?: unknown }).text === 'string' && !(p as { thought?: boolean }).thought)
    .map((p) => (p as { text: string }).text)
    .join('');
}

function sumUsage(calls: readonly CallRecord[]): TokenUsage {
  const total: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
  for (const c of calls) {
    total.promptTokens += c.promptTokens;
    total.cachedTokens += c.cachedTokens;
    total.outputTokens += c.outputTokens;
  }
  return total;
}

/**
 * The shares of a fork's first request that others send byte for byte. `shared`: what siblings of
 * the same seed window send (prefix fields, shared seed contents, and the child message's fixed
 * opening up to the directive: the boilerplate is the same for every fork, so a provider caches
 * it too). `base`: what forks of other windows send too (prefix fields and the untouched leading
 * part of the parent's history). `parent`: what the parent itself sent (prefix fields and the
 * untouched history up to its last request: a trailing model message is the parent's response).
 * Providers count tokens their own way, so shares of characters estimate shares of tokens.
 */
function sharedShares(head: SeedHead, tailContents: readonly Content[]): { shared: number; base: number; parent: number } {
  const tail = JSON.stringify(tailContents);
  const at = tail.indexOf(DIRECTIVE_PREFIX);
  const common = at < 0 ? 0 : at + DIRECTIVE_PREFIX.length;
  const total = head.chars + tail.length;
  if (total === 0) return { shared: 0, base: 0, parent: 0 };
  const base = head.wholeHistory ? head.chars + common : head.baseChars;
  return { shared: (head.chars + common) / total, base: base / total, parent: head.parentChars / total };
}

/** Sizes of the part of a first request that does not depend on the directive. */
interface SeedHead {
  /** Prefix fields plus the seed contents every sibling of the window shares. */
  chars: number;
  /** Prefix fields plus the leading seed contents that are the parent's history unchanged. */
  baseChars: number;
  /** baseChars without a trailing model message of the history: the response, which the parent did not send. */
  parentChars: number;
  /** The window is the whole history as is: the child message then opens alike in every window. */
  wholeHistory: boolean;
}

function measureHead(fixed: Omit<ModelRequest, 'contents'>, shared: readonly Content[], history: readonly Content[]): SeedHead {
  const fixedSize = JSON.stringify([fixed.systemInstruction ?? null, fixed.tools ?? null, fixed.toolConfig ?? null]).length;
  let chars = fixedSize;
  let baseChars = fixedSize;
  let unchanged = true;
  let response = 0;
  shared.forEach((content, i) => {
    const json = JSON.stringify(content);
    chars += json.length;
    // With `copy: false` the seed's messages are the history's own objects: identity is enough.
    unchanged &&= i < history.length && (content === history[i] || json === JSON.stringify(history[i]));
    if (unchanged) baseChars += json.length;
    if (unchanged && i === history.length - 1 && content.role === 'model') response = json.length;
  });
  return { chars, baseChars, parentChars: baseChars - response, wholeHistory: unchanged && shared.length === history.length };
}

/** Siblings share their seed head: measure it once per prefix and seed window, not once per fork. */
const heads = new Map<string, SeedHead>();
function memoHead(key: string, measure: () => SeedHead): SeedHead {
  let head = heads.get(key);
  if (!head) {
    head = measure();
    if (heads.size >= 64) heads.delete(heads.keys().next().value as string);
    heads.set(key, head);
  }
  return head;
}
