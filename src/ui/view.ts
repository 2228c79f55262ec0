/*
 * What the live page and the HTML report show, as plain data: the server sends it over server-sent
 * events, the report embeds it, the page (src/ui/page/) draws it. Times are ms since the run began.
 * Nothing here holds a key or a path: the page shows task ids, directives, texts and figures.
 */

export type ForkState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One fork's row: what the list, the filter and the timeline need. */
export interface ForkRow {
  id: string;
  state: ForkState;
  /** `fork`, or a general-purpose sub-agent's type. */
  agent: string;
  startedAt?: number;
  endedAt?: number;
  turns: number;
  toolCalls: number;
  promptTokens: number;
  /** null: the provider does not report them. */
  cachedTokens: number | null;
  /** Output as billed, thinking included. */
  outputTokens: number;
  /** Of the output, tokens spent thinking (where the provider says). */
  reasoningTokens?: number;
  /** Tokens its calls wrote into the provider's cache (where the provider reports them). */
  cacheWriteTokens?: number;
  costUsd?: number;
  /** It completed on a reply the provider cut or refused: why, in forkpool's word and the provider's. */
  cut?: { reason: string; raw: string };
  /** Why its first call was served less than its siblings share. */
  cacheMiss?: { reason: string; tokens: number; detail: string };
  error?: { kind: string; message: string };
  /** Its model calls' and tool calls' ends, for the timeline (at most MARKS_PER_FORK). */
  marks: Mark[];
}

export interface Mark {
  at: number;
  kind: 'call' | 'tool' | 'tool_failed';
}

/** A fork's detail, asked for when it is opened. */
export interface ForkDetail {
  id: string;
  directive: string;
  /** `at`, `functionCalls`: absent in a report (result lines carry neither). */
  turns: {
    turn: number;
    at?: number;
    promptTokens: number;
    cachedTokens: number | null;
    cacheWriteTokens?: number;
    outputTokens: number;
    reasoningTokens?: number;
    functionCalls?: number;
    /** Why the reply stopped (`stop`, `length`, …) and the provider's word, where it said. */
    finish?: { reason: string; raw: string };
  }[];
  tools: { at?: number; tool: string; status: string; error?: string }[];
  text?: string;
  error?: { kind: string; message: string };
  /** A report's fork whose result line does not carry some of this (an older forkpool's): what it lacks, in words. */
  lacks?: string[];
  /** A report's fork: the cache maximum of its calls and its efficiency against it, when its line carries them. */
  cache?: { maxCachedTokens: number; efficiency: number | null };
}

/** The run as a whole, now. */
export interface RunSummary {
  /** Epoch ms. */
  startedAt: number;
  elapsedMs: number;
  ended: boolean;
  provider: string;
  model: string;
  /** The states add up to `total`; `totalKnown` false: a stream of tasks still open (the total so far, more may come). */
  forks: Record<ForkState, number> & { total: number; totalKnown: boolean };
  promptTokens: number;
  cachedTokens: number | null;
  outputTokens: number;
  reasoningTokens?: number;
  cacheWriteTokens?: number;
  hitRate: number | null;
  efficiency: number | null;
  theoreticalCachedTokens: number;
  costUsd?: number;
  cacheMisses: { reason: string; forks: number; tokens: number }[];
  /** Completed forks whose answer was cut or refused, by reason, in words ("2 answers cut at the output limit"). */
  cutAnswers: { reason: string; forks: number; raw: string[]; words: string }[];
  gate?: { inFlight: number; limit: number; waiting: number; rateLimited: number; retries: number };
  /** A distributed run's workers: forks each finished, and the task ids each runs now. */
  workers?: { id: string; forks: number; running: string[] }[];
  /** A report's: what some of its result lines do not carry (lines of an older forkpool), in words. */
  lacks?: string[];
}

/** One point of the figures over time. */
export interface Sample {
  at: number;
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  efficiency: number | null;
  costUsd?: number;
}

/** One turn of a headless parent agent (`forkpool prompt --ui`): its call's usage, its reply, the calls it made. */
export interface ParentTurn {
  turn: number;
  at: number;
  promptTokens: number;
  cachedTokens: number | null;
  outputTokens: number;
  /** Its reply's text (cut when long). */
  text: string;
  /** Its function calls; an agent call that started a task names it. */
  calls: { name: string; callId: string; taskId?: string }[];
}

/** The parent agent whose tasks the forks are. */
export interface ParentView {
  state: 'running' | 'completed' | 'failed' | 'cancelled';
  turns: ParentTurn[];
  error?: string;
}

/** The whole view, as a page opens or a report is written. */
export interface RunSnapshot {
  summary: RunSummary;
  forks: ForkRow[];
  samples: Sample[];
  /** The live page can stop forks; a report cannot. */
  live: boolean;
  /** A report's forks' details, by id (the live page asks the server for one when it is opened). */
  details?: Record<string, ForkDetail>;
  /** Present when the forks are a parent agent's tasks. */
  parent?: ParentView;
}

/** What changed since the last message: rows that changed, the summary, new samples, the parent (whole) when it changed. */
export interface RunPatch {
  summary: RunSummary;
  forks: ForkRow[];
  samples: Sample[];
  parent?: ParentView;
}

export const MARKS_PER_FORK = 400;
