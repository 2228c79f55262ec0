import { z } from 'zod';
import type { ForkResult } from '../engine/thread-wire.js';
import type { SubagentType } from '../session/schema.js';

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
  error?: { kind: string; message: string };
}

/** `endedAt`: epoch ms of the moment the result came. */
export function resultLine(r: ForkResult, subagentType: SubagentType, endedAt: number): ResultLine {
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
    ...(r.status !== 'completed' ? { error: r.error } : {}),
  };
}

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
  usage: z.looseObject({ promptTokens: z.number().nonnegative(), cachedTokens: z.number().nonnegative().nullable(), outputTokens: z.number().nonnegative() }),
  costUsd: z.number().nonnegative().optional(),
  durationMs: z.number().nonnegative(),
  // Lines written before it was added have none: their report has no timeline.
  endedAt: z.iso.datetime().optional(),
  cacheMiss: z.object({ reason: z.string(), tokens: z.number(), detail: z.string() }).optional(),
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
});

export type ReadResultLine = z.infer<typeof ResultLineSchema>;
