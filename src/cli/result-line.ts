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
  /** Why its first call was served less than its siblings share, when it was. */
  cacheMiss?: ForkResult['cacheMiss'];
  error?: { kind: string; message: string };
}

export function resultLine(r: ForkResult, subagentType: SubagentType): ResultLine {
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
    ...(r.cacheMiss !== undefined ? { cacheMiss: r.cacheMiss } : {}),
    ...(r.status !== 'completed' ? { error: r.error } : {}),
  };
}
