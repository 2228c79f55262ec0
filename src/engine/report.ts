import type { Finish, FinishReason } from '../model/finish.js';
import type { CachePricing } from '../model/plan.js';
import type { CacheStorage } from './explicit-cache.js';
import type { CacheMiss, CacheMissReason, ForkStatus } from '../result/fork-result.js';

/** The price of cached input relative to a normal input token (Anthropic: reads 0.1×, writes 1.25× with the 5-minute TTL and 2× with 1 hour). */
export type { CachePricing };

export interface ForkCacheFigures {
  id: string;
  status: ForkStatus;
  promptTokens: number;
  /** null: the provider does not report cached tokens. */
  cachedTokens: number | null;
  /**
   * The most the provider's rules let it serve from cache for this fork's calls, given what this
   * run had sent before each of them (never what was served).
   */
  theoreticalCachedTokens: number;
  /** Served beyond each call's maximum: the cache held it before the run began (an earlier run, the parent). null when cached is. */
  preexistingCachedTokens: number | null;
  /** (cached − preexisting) / theoretical: never above 1; null when nothing was cacheable or cached tokens are unknown. */
  efficiency: number | null;
  /** What this fork's input cost relative to sending it uncached (providers that price cache reads and writes). */
  relativeInputCost?: number | null;
  /** Present when its first call was served less than it shares with its siblings: how much, and why. */
  cacheMiss?: CacheMiss;
  /** Present when its requests named the parent's stored response: which, and how many items of its own the first sent. */
  sent?: { storedResponse: string; items: number };
  /** Tokens its calls wrote into the provider's cache: present when the provider reported writes. */
  cacheWriteTokens?: number;
  /** Present when it completed on a reply the provider cut or refused (its text is kept, but is not a whole answer). */
  cut?: Finish;
}

/** One tool call of a fork, as the run tells its result listeners (the first TOOL_CALLS_KEPT of each fork). */
export interface ToolCallRecord {
  tool: string;
  status: 'ok' | 'rejected' | 'failed';
  /** Why it did not succeed, in words. */
  error?: string;
}

/** What the run knows of a fork at its end besides its result: its cache figures and the tool calls it made. */
export interface ForkEnd {
  /** As at its end: the report may still move the opening maximum of a run's first wave to a sibling (opening-wave.ts). */
  figures: ForkCacheFigures;
  tools: readonly ToolCallRecord[];
}

/** Completed forks whose last reply was cut or refused, by reason, with the providers' own words for it. */
export interface CutAnswers {
  reason: FinishReason;
  forks: number;
  /** The providers' words (`length`, `MAX_TOKENS`, `max_tokens`, `insufficient_system_resource`, …). */
  raw: string[];
}

/** Adds `forks` answers cut for one reason to a tally: each reason once, its providers' words without repeats, in the order met. */
export function tallyCut(tally: CutAnswers[], reason: FinishReason, raw: readonly string[], forks = 1): void {
  let sum = tally.find((c) => c.reason === reason);
  if (sum === undefined) {
    sum = { reason, forks: 0, raw: [] };
    tally.push(sum);
  }
  sum.forks += forks;
  for (const word of raw) if (!sum.raw.includes(word)) sum.raw.push(word);
}

/** A run's input cost in units of one uncached input token: what it cost, against the same tokens sent uncached. */
export interface InputCost {
  /** Input tokens as an uncached run would pay for them (every prompt token at 1×). */
  uncachedUnits: number;
  /** What the run paid: uncached tokens 1×, cache reads and writes at their prices. */
  units: number;
  /** units / uncachedUnits: below 1 the cache saved money, above 1 it cost more than it saved. */
  relative: number | null;
  pricing: CachePricing;
}

export interface CacheMode {
  requested: 'implicit' | 'explicit' | 'off';
  /** What ran: explicit falls back to implicit when the prefix is too small or creation fails. */
  effective: 'implicit' | 'explicit' | 'off';
  note?: string;
  /** Present once the explicit caches the run made are deleted (at its end): how long they were stored, and at what cost. */
  storage?: RunCacheStorage;
}

/** The explicit caches' storage: `usd` at the model's storage price, absent when its price has none (then not in the run's cost either). */
export interface RunCacheStorage extends CacheStorage {
  usd?: number;
}

export interface RunReport {
  forks: {
    /**
     * The forks of the run: every task when their number is known (see totalKnown), else those of
     * the tasks taken so far.
     */
    total: number;
    /**
     * true once the number of tasks is known: given as an array, a task file checked whole, or a
     * stream that ended. false while a stream may still give more, and for good when the run stopped
     * reading one before its end (a cancel, a budget, a bad task): its total is then not known.
     */
    totalKnown: boolean;
    /** Tasks taken from the source so far (all of them, once it ended). */
    taken: number;
    completed: number;
    failed: number;
    cancelled: number;
    running: number;
    queued: number;
  };
  wallMs: number;
  forksPerSecond: number;
  modelCalls: number;
  toolCalls: number;
  retries: number;
  promptTokens: number;
  /** null: the provider does not report cached tokens (the report says "unknown", never 0). */
  cachedTokens: number | null;
  /** Output as billed: thinking included. */
  outputTokens: number;
  /** Of outputTokens, those spent thinking: present when a provider said. */
  reasoningTokens?: number;
  /** Input billed beyond the prompt (Gemini's tool-use prompt): present when a provider reported it. */
  toolUsePromptTokens?: number;
  /** Tokens written into the provider's cache: present when a provider reported writes (Anthropic, DashScope, OpenAI's newer models, the AI SDK's). */
  cacheWriteTokens?: number;
  /** Forks that completed on a cut or refused reply, by reason (empty when every answer was whole). */
  cutAnswers: CutAnswers[];
  /** cached / prompt tokens; null when cached tokens are unknown. */
  hitRate: number | null;
  /** The sum of the forks' maxima. */
  theoreticalCachedTokens: number;
  /** Of cachedTokens, what the cache held before the run began (an earlier run, the parent beyond what it was assumed to send); null when cached tokens are unknown. */
  preexistingCachedTokens: number | null;
  /** (cachedTokens − preexistingCachedTokens) / theoreticalCachedTokens: never above 1. */
  efficiency: number | null;
  /** 'parent': the caller said the parent had just sent the prefix, so no fork waited. */
  warmup: 'auto' | 'none' | 'parent';
  cache: CacheMode;
  /** Present for providers that price cache reads and writes apart (Anthropic): the estimated input cost. */
  inputCost?: InputCost;
  /** Present when the model has a price (`prices`, else forkpool's table): what the run cost. */
  cost?: RunCost;
  /** Present when a token budget was set: what was spent and how many forks the budgets ended. */
  budget?: RunBudget;
  prefix: { id: string; bytes: number; tokens: number };
  /** Set when forkTurns trimmed the history: only system instruction and tools match the parent's cache. */
  notes: string[];
  /** Forks whose first call was served less than it shares with its siblings, by reason (cache-miss.ts): how many, and the tokens not served. */
  cacheMisses: { reason: CacheMissReason; forks: number; tokens: number }[];
  /** One row per fork that ended, in task order (empty when results are not retained). */
  perFork: ForkCacheFigures[];
  /** Forks that did not complete (failed or cancelled), each with its status and reason. */
  failures: { id: string; status: 'failed' | 'cancelled'; kind: string; message: string }[];
}

/** A run's cost in US dollars at its model's price. */
export interface RunCost {
  usd: number;
  model: string;
  /** Where the price comes from, and when it was read (absent for a price of one's own without them). */
  source?: string;
  read?: string;
  /** Calls whose cached tokens the provider did not report: priced as uncached, so `usd` may be high. */
  uncachedPricedCalls: number;
  /** Of `usd`, the storage of the explicit caches the run made (`cache.storage`), once they are deleted. */
  storageUsd?: number;
}

export interface RunBudget {
  maxTokens?: number;
  maxTokensPerFork?: number;
  /** The cost cap, what was spent (every call that returned) and how far past the cap (calls in flight when it was reached). */
  maxCost?: number;
  spentUsd?: number;
  overshootUsd?: number;
  /** Prompt + output tokens of every call that returned, as the provider counted them. */
  spentTokens: number;
  /** The run's budget ran out: queued forks were cancelled and running ones stopped. */
  spent: boolean;
  /** Forks a budget ended (kind "budget"): cancelled before they started, stopped at a model call, or over their own budget. */
  stoppedForks: number;
}
