import { type Finish, isCut } from '../model/finish.js';
import { addCached, type TokenUsage } from '../model/types.js';
import type { CallRecord, CancelKind, FailureKind, ForkResult } from './fork-result.js';

/** A result for a fork that ended before its loop produced anything (never ran, or broke at once). */
export function emptyFailure(id: string, kind: Exclude<FailureKind, 'model_error'>, message: string, threadId = -1): ForkResult {
  return { ...nothingYet(id, threadId), status: 'failed', error: { kind, message } };
}

export function emptyCancelled(id: string, message: string, kind: CancelKind = 'cancelled'): ForkResult {
  return { ...nothingYet(id, -1), status: 'cancelled', error: { kind, message } };
}

function nothingYet(id: string, threadId: number) {
  return {
    id,
    text: '',
    turns: 0,
    toolCalls: 0,
    usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
    durationMs: 0,
    retries: 0,
    calls: [],
    worker: { threadId, decodedPrefix: false },
  };
}

/** The usage of some calls, summed (a fork's, or the part of it one run made). */
export function sumUsage(calls: readonly CallRecord[]): TokenUsage {
  const total: TokenUsage = { promptTokens: 0, cachedTokens: 0, outputTokens: 0 };
  for (const c of calls) {
    total.promptTokens += c.promptTokens;
    total.cachedTokens = addCached(total.cachedTokens, c.cachedTokens);
    total.outputTokens += c.outputTokens;
    if (c.reasoningTokens !== undefined) total.reasoningTokens = (total.reasoningTokens ?? 0) + c.reasoningTokens;
    if (c.toolUsePromptTokens !== undefined) total.toolUsePromptTokens = (total.toolUsePromptTokens ?? 0) + c.toolUsePromptTokens;
    if (c.cacheWriteTokens !== undefined) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + c.cacheWriteTokens;
    if (c.cacheWrite1hTokens !== undefined) total.cacheWrite1hTokens = (total.cacheWrite1hTokens ?? 0) + c.cacheWrite1hTokens;
  }
  return total;
}

/** What this run spent on a fork: its usage less the calls a resumed fork read back from its transcript. */
export function spentUsage(result: ForkResult): TokenUsage {
  return result.calls.some((c) => c.restored === true) ? sumUsage(result.calls.filter((c) => c.restored !== true)) : result.usage;
}

/** A completed fork whose last reply the provider cut or refused: why, else undefined (a whole answer, or a fork that did not complete). */
export function answerCut(result: Pick<ForkResult, 'status' | 'finish'>): Finish | undefined {
  return result.status === 'completed' && isCut(result.finish) ? result.finish : undefined;
}

/** A fork's result as far as this run made it: without the calls a resumed fork read back from its transcript. */
export function thisRunsPart(result: ForkResult): ForkResult {
  return { ...result, usage: spentUsage(result), calls: result.calls.filter((c) => c.restored !== true) };
}
