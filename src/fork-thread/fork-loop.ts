import { threadId } from 'node:worker_threads';
import { requestContent, replyContent } from '../shapes/call-content.js';
import { errorTypeOf } from '../telemetry/conventions.js';
import { ForkRejectedError } from '../fork/guards.js';
import type { ForkSeed } from '../fork/seed.js';
import type { ToolResponse } from '../shapes/dialect.js';
import { viewMessage } from '../shapes/registry.js';
import type { MessageView } from '../shapes/view.js';
import { toolCallOf } from '../tools/call.js';
import { itemsAfterStoredResponse, requestDecorator } from '../model/decorate.js';
import { billedTokens, type ModelMessage, type ModelProvider } from '../model/types.js';
import { sessionMessages, type ParentSession } from '../shapes/registry.js';
import type { TranscriptEntry, TranscriptUsage } from '../transcript/format.js';
import { continuationOf, type Continuation } from '../transcript/continuation.js';
import type { HostClient } from '../wire/fork-end.js';
import { openConversation } from './conversation.js';
import { seedForkTask, storedHeld } from '../fork/fork-seed.js';
import { sumUsage } from '../result/results.js';
import { repairMessage } from '../fork/output-schema.js';
import { seedWindow } from '../fork/seed-window.js';
import type { CallRecord, FailureKind, ForkFailure, ForkResult } from '../result/fork-result.js';
import { modelFailureFields, type ModelFailure } from '../result/model-failure.js';
import type { ForkJob } from '../wire/protocol.js';

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
  | { status: 'failed'; kind: FailureKind; message: string; model?: Omit<ModelFailure, 'kind' | 'message'> }
  | { status: 'cancelled'; kind?: 'budget'; message?: string };

/** One fork's reasoning loop: model call → tool calls → model call …, until a final answer. */
export async function runForkLoop(ctx: LoopContext): Promise<ForkResult> {
  const started = performance.now();
  const { job, session } = ctx;
  const task = job.task;
  const state = {
    text: '',
    turns: 0,
    toolCalls: 0,
    retries: 0,
    spent: 0,
    calls: [] as CallRecord[],
    sent: undefined as ForkResult['sent'],
    finish: undefined as ForkResult['finish'],
  };

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
      ...(state.sent !== undefined ? { sent: state.sent } : {}),
      ...(state.finish !== undefined ? { finish: state.finish } : {}),
    };
    if (ending.status === 'completed') {
      return { ...base, status: 'completed', ...(ending.output !== undefined ? { output: ending.output } : {}) };
    }
    if (ending.status === 'cancelled') {
      return {
        ...base,
        status: 'cancelled',
        error: { kind: ending.kind ?? 'cancelled', message: ending.message ?? 'the fork was cancelled' },
      };
    }
    const error: ForkFailure =
      ending.kind === 'model_error'
        ? { kind: 'model_error', message: ending.message, ...(ending.model ?? { category: 'other' }) }
        : { kind: ending.kind, message: ending.message };
    return { ...base, status: 'failed', error };
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

  // The transcript: what this fork adds to its seed, reported line by line for the main thread to write.
  const record =
    job.transcript === undefined ? undefined : (entry: TranscriptEntry): void => ctx.host.report({ type: 'transcript', entry });
  let from: Continuation | undefined;
  try {
    from = job.transcript?.continueFrom === undefined ? undefined : await continuation(job, session, seed);
  } catch (err) {
    return finish({ status: 'failed', kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  const stored = job.plan.request.mechanism === 'stored-response' ? storedHeld(session, seed) : undefined;
  const decorator = requestDecorator(job.plan, { shared: seed.sharedContents, window: seedWindow(task, job.history), stored });
  // The response a fork names, when it names one: its first request says how many items of its own it sent.
  const named = stored !== undefined && job.plan.request.mechanism === 'stored-response' ? job.plan.request.responseId : undefined;
  let turnOf = 0;
  const conversation = openConversation(seed, decorator, (added, role) => {
    for (const [i, message] of added.entries()) {
      record?.({ type: 'message', turn: turnOf, role, message, ...(added.length > 1 ? { part: i + 1, parts: added.length } : {}) });
    }
  });
  const revivedWith = job.transcript?.continueFrom === 'message' ? job.transcript.message : undefined;
  if (from !== undefined) {
    conversation.restore(from.messages);
    // A revived fork starts a stretch of its own (turns, usage, text); a resumed one goes on with its figures.
    if (revivedWith === undefined) {
      Object.assign(state, {
        turns: from.turns,
        toolCalls: from.toolCalls,
        text: from.text,
        calls: from.calls.map((c): CallRecord => ({ ...c, restored: true })),
      });
      state.spent = from.calls.reduce((sum, c) => sum + billedTokens(c), 0);
    }
    record?.({ type: 'resumed', from: revivedWith === undefined ? 'crash' : 'message', at: new Date().toISOString() });
  } else if (record !== undefined) {
    const own = ownSeedMessages(session, seed);
    record({ type: 'seed', inherited: seed.contents.length - own.length, trimmed: seed.trimmedMessages, seedCase: seed.seedCase });
    for (const message of own) record({ type: 'message', turn: 0, role: 'seed', message });
  }
  const explicitTokens = decorator.explicitTokens;
  const maxTurns = task.maxTurns ?? job.maxTurns;
  const gate = ctx.host.gate(ctx.signal, job.retry?.forkBudget);
  let repaired = false;
  // For tokens-per-minute limits: the prefix at first, then what the last call sent and got.
  // A continued fork sends its whole conversation so far: what its last call sent and got.
  const lastCall = from?.calls.at(-1);
  let tokenEstimate = lastCall !== undefined ? billedTokens(lastCall) : explicitTokens !== undefined ? 0 : job.prefixTokens;
  // Cache diagnostics, on every call (free): each names the response before it, the first the job's
  // (or none, null: with Anthropic, opting in so that the second can name it). Anthropic's, and
  // OpenAI's on Responses from GPT-5.6; other providers and models ignore it.
  let previousResponseId: string | null = job.previousResponseId ?? null;

  const budget = task.maxTokens ?? job.maxTokensPerFork;
  const stopped = (): Ending | undefined => {
    const stop = ctx.stopReason();
    if (stop !== undefined) {
      const what = stop === 'cost' ? "the run's cost cap was reached" : "the run's token budget was spent";
      return { status: 'cancelled', kind: 'budget', message: `${what}; the fork stopped before its next model call` };
    }
    if (budget !== undefined && state.spent >= budget) {
      return {
        status: 'failed',
        kind: 'budget',
        message: `the fork spent its token budget: ${state.spent} of ${budget} tokens, before its next model call`,
      };
    }
    return undefined;
  };

  /** One model call: its reply's view once the reply is in the conversation, or how the fork ended. */
  const modelTurn = async (turn: number): Promise<MessageView | Ending> => {
    if (ctx.signal.aborted) return interrupted();
    const stop = stopped();
    if (stop) return stop;
    let announced = false;
    const startedAt = epochMs();
    const request = conversation.request();
    const items = named !== undefined && state.sent === undefined ? itemsAfterStoredResponse(request) : undefined;
    if (named !== undefined && items !== undefined) state.sent = { storedResponse: named, items };
    const content = job.captureContent === true ? requestContent(request) : undefined;
    const outcome = await ctx.provider.generate(request, {
      signal: ctx.signal,
      gate,
      tokenEstimate,
      previousResponseId,
      onResponseStart: (responseId) => {
        if (!announced) ctx.host.report({ type: 'response_start', turn, ...(responseId !== undefined ? { responseId } : {}) });
        announced = true;
      },
    });
    // A call the gate never let go made no attempt: it is no retry either.
    state.retries += Math.max(0, outcome.attempts - 1);
    if (!outcome.ok) {
      const error = outcome.error;
      // A call the gate never let go (a spent budget, a cancel while it waited) was not made: no span for it.
      if (outcome.attempts > 0)
        ctx.host.report({
          type: 'call_failed',
          turn,
          startedAt,
          endedAt: epochMs(),
          errorType: errorTypeOf(error),
          message: error.message,
          ...(content !== undefined ? { content } : {}),
        });
      if (ctx.signal.aborted) return interrupted();
      const stop = stopped();
      if (stop && outcome.error.kind === 'aborted') return stop;
      const status = outcome.error.status !== undefined ? ` (HTTP ${outcome.error.status})` : '';
      return {
        status: 'failed',
        kind: 'model_error',
        message: `${outcome.error.message}${status}`,
        model: modelFailureFields(outcome.error),
      };
    }
    state.turns = turn;
    tokenEstimate = billedTokens(outcome.usage);
    state.spent += tokenEstimate;
    // What a call shares with others is the engine's to work out (cache-accounting.ts), not the worker's.
    const call: CallRecord = {
      ...outcome.usage,
      ...(explicitTokens !== undefined ? { explicitTokens } : {}),
      ...(outcome.responseId !== undefined ? { responseId: outcome.responseId } : {}),
      ...(outcome.diagnosedAgainst !== undefined ? { diagnosedAgainst: outcome.diagnosedAgainst } : {}),
      ...(outcome.cacheMiss !== undefined ? { cacheMiss: outcome.cacheMiss } : {}),
      ...(outcome.finish !== undefined ? { finish: outcome.finish } : {}),
    };
    state.calls.push(call);
    state.finish = outcome.finish;
    previousResponseId = outcome.responseId ?? null;
    conversation.push(outcome.message);
    record?.({ type: 'message', turn, role: 'model', message: outcome.message, usage: transcriptUsage(call) });
    const reply = viewMessage(outcome.message);
    ctx.host.report({
      type: 'turn',
      turn,
      usage: outcome.usage,
      functionCalls: reply.calls.length,
      startedAt,
      endedAt: epochMs(),
      ...(outcome.finish !== undefined ? { finish: outcome.finish } : {}),
      ...(outcome.responseId !== undefined ? { responseId: outcome.responseId } : {}),
      ...(outcome.responseModel !== undefined ? { responseModel: outcome.responseModel } : {}),
      ...(content !== undefined
        ? { content: { ...content, output: replyContent(request.format, outcome.message, outcome.finish?.raw) } }
        : {}),
    });
    return reply;
  };

  // A transcript that ends on the model's answer has it acted on first, without a call (turn 0 for
  // a revived fork, whose turns count afresh, with the parent's message as what it acts on).
  let answered = from?.endsOnAnswer === true ? (from.messages.at(-1) as ModelMessage) : undefined;
  let message = revivedWith;
  for (let turn = answered !== undefined ? state.turns : state.turns + 1; turn <= maxTurns; turn++) {
    turnOf = turn;
    // The last allowed turn: no message sent from now on could be read, so none is taken (the sender
    // is told, and can revive the fork once it has completed); one already here joins this turn.
    if (turn === maxTurns && answered === undefined) {
      await ctx.host.closing();
      const waiting = ctx.host.takeMessages();
      if (waiting.length > 0) conversation.say(waiting.map(fromParent).join('\n'));
    }
    const reply = answered !== undefined ? viewMessage(answered) : await modelTurn(turn);
    answered = undefined;
    if (!('calls' in reply)) return finish(reply);
    const calls = reply.calls;
    const text = reply.texts.join('');
    if (text) state.text = text;

    if (calls.length === 0) {
      // A message from the parent that came while the fork answered gets another turn, not a lost word (the reference drains them too).
      const inbox = [...(message !== undefined ? [message] : []), ...(turn < maxTurns ? ctx.host.takeMessages() : [])];
      message = undefined;
      if (inbox.length > 0) {
        conversation.say(inbox.map(fromParent).join('\n'));
        continue;
      }
      let output: unknown;
      if (task.outputSchema) {
        // Loaded at a fork's first structured answer: checking it takes zod, which a thread loads only then.
        const { checkOutput } = await import('../fork/output-check.js');
        const checked = checkOutput(text, task.outputSchema);
        if (!checked.ok && repaired) return finish({ status: 'failed', kind: 'output_schema', message: checked.error.message });
        if (!checked.ok) {
          repaired = true;
          conversation.say(repairMessage(checked.error.message));
          continue;
        }
        output = checked.value;
      }
      // Ending: the fork says so and waits for the answer, by which every message sent before has
      // arrived; one that did still gets its turn (later ones are refused to their sender).
      await ctx.host.closing();
      // (On the last allowed turn the channel was closed before its call: nothing can be here.)
      const late = turn < maxTurns ? ctx.host.takeMessages() : [];
      if (late.length > 0) {
        ctx.host.reopen();
        conversation.say(late.map(fromParent).join('\n'));
        continue;
      }
      return finish({ status: 'completed', ...(output !== undefined ? { output } : {}) });
    }

    const answers = await Promise.all(calls.map((call) => ctx.host.execTool(toolCallOf(call), ctx.signal, job.toolTimeoutMs)));
    const responses: ToolResponse[] = [];
    for (const [i, answer] of answers.entries()) {
      if (!answer.ok) {
        if (answer.error.kind === 'aborted') return finish(interrupted());
        return finish({
          status: 'failed',
          kind: 'host_gone',
          message: `the tool host did not answer ${calls[i]?.name} (${answer.error.kind})`,
        });
      }
      responses.push(answer.value.response);
    }
    state.toolCalls += calls.length;
    conversation.answer(calls, responses, ctx.host.takeMessages().map(fromParent));
  }
  return finish({ status: 'failed', kind: 'max_turns', message: `the fork reached its limit of ${maxTurns} model turns` });
}

/**
 * Where the fork picks up from its transcript. Its seed is made again from the prefix and must be
 * what the transcript recorded (the same session and task): a fork never continues a conversation
 * it did not have. (A resumed fork with no transcript yet is sent without `continueFrom`: fork-start.ts.)
 */
async function continuation(job: ForkJob, session: Readonly<ParentSession>, seed: ForkSeed): Promise<Continuation | undefined> {
  const target = job.transcript;
  if (target?.continueFrom === undefined) return undefined;
  // Loaded only to continue: reading a transcript checks its lines with zod, which a thread loads only then.
  const { readTranscript } = await import('../transcript/read.js');
  const transcript = await readTranscript(target.path);
  const { header } = transcript;
  const where = `the transcript ${target.path}`;
  if (header.taskId !== job.task.id)
    throw new Error(`${where} is task ${JSON.stringify(header.taskId)}'s, not ${JSON.stringify(job.task.id)}'s`);
  if (header.prefixId !== job.prefix.id)
    throw new Error(
      `${where} continues another conversation (prefix ${header.prefixId.slice(0, 12)}, not ${job.prefix.id.slice(0, 12)}): it cannot be continued from this session`,
    );
  const from = continuationOf(transcript);
  const own = JSON.stringify(ownSeedMessages(session, seed));
  if (JSON.stringify(from.seedMessages) !== own)
    throw new Error(`${where} was seeded with other messages than this task's seed: the task changed since it was written`);
  if (target.continueFrom === 'message' && from.ended !== 'completed') {
    throw new Error(
      `${where} does not end on a completed run (${from.ended ?? 'it is still running or was cut off'}): only a completed task is revived`,
    );
  }
  return from;
}

/** The messages the seeding added after the parent's messages it sends as they are (the same objects: a frozen prefix's). */
function ownSeedMessages(session: Readonly<ParentSession>, seed: ForkSeed): readonly unknown[] {
  const parents = new Set(sessionMessages(session));
  const contents: readonly unknown[] = seed.contents;
  let inherited = 0;
  while (inherited < contents.length && parents.has(contents[inherited])) inherited++;
  return contents.slice(inherited);
}

function transcriptUsage(call: CallRecord): TranscriptUsage {
  return {
    promptTokens: call.promptTokens,
    cachedTokens: call.cachedTokens,
    outputTokens: call.outputTokens,
    ...(call.cacheWriteTokens !== undefined ? { cacheWriteTokens: call.cacheWriteTokens } : {}),
    ...(call.cacheWrite1hTokens !== undefined ? { cacheWrite1hTokens: call.cacheWrite1hTokens } : {}),
    ...(call.responseId !== undefined ? { responseId: call.responseId } : {}),
  };
}

/** Now, in ms since the epoch: the wall clock every thread shares, and the span SDK reads (performance's origin is per thread). */
function epochMs(): number {
  return Date.now();
}

/** The reference's wording for a message the parent sent a running task (agent-core.ts EXTERNAL_MESSAGE_PREFIX). */
function fromParent(text: string): string {
  return `[Message from parent agent]: ${text}`;
}
