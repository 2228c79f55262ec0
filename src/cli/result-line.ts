import { z } from 'zod';
import { answerCut } from '../result/results.js';
import type { ForkResult } from '../result/fork-result.js';
import { type Finish, FINISH_REASONS, type FinishReason } from '../model/finish.js';
import type { ForkTask, SubagentType } from '../session/schema.js';
import type { ForkEnd } from '../engine/report.js';

/** The documented result line; engine diagnostics (per-call records, worker ids) stay out of it. */
export interface ResultLine {
  id: string;
  status: ForkResult['status'];
  /** What ran: a fork of the conversation, or a general-purpose sub-agent that sees only its directive. */
  subagentType: SubagentType;
  text: string;
  output?: unknown;
  turns: number;
  toolCalls: number;
  usage: ForkResult['usage'];
  /** US dollars, at the run's model price (absent without one). */
  costUsd?: number;
  durationMs: number;
  /** When its result came (ISO 8601): with durationMs, when it ran (a report's timeline). */
  endedAt: string;
  /** Why its first call was served less than its siblings share, when it was. */
  cacheMiss?: ForkResult['cacheMiss'];
  /** Its requests named the parent's stored response and sent only its own items (`--previous-response`). */
  sent?: ForkResult['sent'];
  /** Why its last reply stopped, in forkpool's words and the provider's (absent when the provider did not say, or no call answered). */
  finish?: ForkResult['finish'];
  /** Present when it completed on a reply the provider cut or refused: `text` is what came, not a whole answer. */
  cut?: CutMark;
  error?: { kind: string; message: string };
  /** The task's whole directive. */
  directive?: string;
  /** Each model call's figures, in order (a report's turns). */
  perTurn?: TurnFigures[];
  /** Its tool calls, in order (the first thousand). */
  tools?: ForkEnd['tools'];
  /** The most the provider's rules let it serve from cache, given what the run had sent before each call (efficiency's denominator). */
  maxCachedTokens?: number;
  /** Of its cached tokens, what the cache held before the run began; null when cached tokens are unknown. */
  preexistingCachedTokens?: number | null;
}

/** One model call's usage and why its reply stopped. */
interface TurnFigures {
  promptTokens: number;
  cachedTokens: number | null;
  outputTokens: number;
  reasoningTokens?: number;
  cacheWriteTokens?: number;
  finish?: Finish;
}

/** A completed fork's answer that is not whole: why (`length`, `content_filter`, `refusal`, `error`) and the provider's word. */
interface CutMark {
  reason: Finish['reason'];
  raw: string;
}

/**
 * `endedAt`: epoch ms of the moment the result came. `ran`: the task and what the run told of the
 * fork's end (a run's onResult), for the directive, the turns, the tool calls and the cache maximum.
 */
export function resultLine(r: ForkResult, subagentType: SubagentType, endedAt: number, ran?: { task: ForkTask; end: ForkEnd }): ResultLine {
  return {
    id: r.id,
    status: r.status,
    subagentType,
    text: r.text,
    ...(r.status === 'completed' && r.output !== undefined ? { output: r.output } : {}),
    turns: r.turns,
    toolCalls: r.toolCalls,
    usage: r.usage,
    ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
    durationMs: r.durationMs,
    endedAt: new Date(endedAt).toISOString(),
    ...(r.cacheMiss !== undefined ? { cacheMiss: r.cacheMiss } : {}),
    ...(r.sent !== undefined ? { sent: r.sent } : {}),
    ...(r.finish !== undefined ? { finish: r.finish } : {}),
    ...cutOf(r),
    ...(r.status !== 'completed' ? { error: r.error } : {}),
    ...(ran === undefined ? {} : ranFields(r, ran.task, ran.end)),
  };
}

function ranFields(
  r: ForkResult,
  task: ForkTask,
  end: ForkEnd,
): Pick<ResultLine, 'directive' | 'perTurn' | 'tools' | 'maxCachedTokens' | 'preexistingCachedTokens'> {
  return {
    directive: task.directive,
    perTurn: r.calls.map((c) => ({
      promptTokens: c.promptTokens,
      cachedTokens: c.cachedTokens,
      outputTokens: c.outputTokens,
      ...(c.reasoningTokens !== undefined ? { reasoningTokens: c.reasoningTokens } : {}),
      ...(c.cacheWriteTokens !== undefined ? { cacheWriteTokens: c.cacheWriteTokens } : {}),
      ...(c.finish !== undefined ? { finish: { reason: c.finish.reason, raw: c.finish.raw } } : {}),
    })),
    tools: end.tools,
    maxCachedTokens: end.figures.theoreticalCachedTokens,
    preexistingCachedTokens: end.figures.preexistingCachedTokens,
  };
}

function cutOf(r: ForkResult): { cut?: CutMark } {
  const cut = answerCut(r);
  return cut === undefined ? {} : { cut: { reason: cut.reason, raw: cut.raw } };
}

const FinishSchema = z.object({
  reason: z.custom<FinishReason>((v) => typeof v === 'string' && FINISH_REASONS.has(v), {
    message: `one of ${[...FINISH_REASONS].join(', ')}`,
  }),
  raw: z.string(),
});

/**
 * A result line as a reader takes it back (`forkpool report`): the fields it reads, checked; other
 * fields (`output`) pass as they are.
 */
export const ResultLineSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(['completed', 'failed', 'cancelled']),
  subagentType: z.string().optional(),
  text: z.string(),
  turns: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  usage: z.looseObject({
    promptTokens: z.number().nonnegative(),
    cachedTokens: z.number().nonnegative().nullable(),
    outputTokens: z.number().nonnegative(),
    reasoningTokens: z.number().nonnegative().optional(),
    cacheWriteTokens: z.number().nonnegative().optional(),
  }),
  costUsd: z.number().nonnegative().optional(),
  durationMs: z.number().nonnegative(),
  // Lines written before it was added have none: their report has no timeline.
  endedAt: z.iso.datetime().optional(),
  cacheMiss: z.object({ reason: z.string(), tokens: z.number(), detail: z.string() }).optional(),
  // Lines written before finish reasons were kept have neither.
  finish: FinishSchema.optional(),
  cut: FinishSchema.optional(),
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
  // Lines written before these were added have none: a report says what they lack.
  directive: z.string().optional(),
  perTurn: z
    .array(
      z.object({
        promptTokens: z.number().nonnegative(),
        cachedTokens: z.number().nonnegative().nullable(),
        outputTokens: z.number().nonnegative(),
        reasoningTokens: z.number().nonnegative().optional(),
        cacheWriteTokens: z.number().nonnegative().optional(),
        finish: FinishSchema.optional(),
      }),
    )
    .optional(),
  tools: z.array(z.object({ tool: z.string(), status: z.enum(['ok', 'rejected', 'failed']), error: z.string().optional() })).optional(),
  maxCachedTokens: z.number().nonnegative().optional(),
  preexistingCachedTokens: z.number().nonnegative().nullable().optional(),
});

export type ReadResultLine = z.infer<typeof ResultLineSchema>;
