import type { ForkStatus } from './protocol.js';

export interface ForkCacheFigures {
  id: string;
  status: ForkStatus;
  promptTokens: number;
  /** null: the provider does not report cached tokens. */
  cachedTokens: number | null;
  /** The most the provider could have served from cache for this fork's calls. */
  theoreticalCachedTokens: number;
  /** cached / theoretical; null when nothing was cacheable. */
  efficiency: number | null;
}

export interface CacheMode {
  requested: 'implicit' | 'explicit' | 'off';
  /** What ran: explicit falls back to implicit when the prefix is too small or creation fails. */
  effective: 'implicit' | 'explicit' | 'off';
  note?: string;
}

export interface RunReport {
  forks: { total: number; completed: number; failed: number; cancelled: number; running: number; queued: number };
  wallMs: number;
  forksPerSecond: number;
  modelCalls: number;
  toolCalls: number;
  retries: number;
  promptTokens: number;
  /** null: the provider does not report cached tokens (the report says "unknown", never 0). */
  cachedTokens: number | null;
  outputTokens: number;
  /** cached / prompt tokens; null when cached tokens are unknown. */
  hitRate: number | null;
  theoreticalCachedTokens: number;
  efficiency: number | null;
  /** 'parent': the caller said the parent had just sent the prefix, so no fork waited. */
  warmup: 'auto' | 'none' | 'parent';
  cache: CacheMode;
  /** Present when a token budget was set: what was spent and how many forks the budgets ended. */
  budget?: RunBudget;
  prefix: { id: string; bytes: number; tokens: number };
  /** Set when forkTurns trimmed the history: only system instruction and tools match the parent's cache. */
  notes: string[];
  /** One row per fork that ended, in task order (empty when results are not retained). */
  perFork: ForkCacheFigures[];
  failures: { id: string; kind: string; message: string }[];
}

export interface RunBudget {
  maxTokens?: number;
  maxTokensPerFork?: number;
  /** Prompt + output tokens of every call that returned, as the provider counted them. */
  spentTokens: number;
  /** The run's budget ran out: queued forks were cancelled and running ones stopped. */
  spent: boolean;
  /** Forks a budget ended (kind "budget"): cancelled before they started, stopped at a model call, or over their own budget. */
  stoppedForks: number;
}
