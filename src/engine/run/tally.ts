import type { CachePlan, CachePricing } from '../../model/plan.js';
import { addCached, addKnown, type TokenUsage } from '../../model/types.js';
import type { FrozenPrefix } from '../../prefix/index.js';
import type { CacheMiss, ForkResult } from '../../result/fork-result.js';
import { answerCut, spentUsage } from '../../result/results.js';
import type { ForkTask } from '../../session/schema.js';
import { efficiencyOf, inputUnits, ratio } from '../cache-figures.js';
import type { FigureCorrection } from '../opening-wave.js';
import {
  tallyCut,
  type CutAnswers,
  type ForkCacheFigures,
  type RunBudget,
  type RunCacheStorage,
  type RunCost,
  type RunReport,
} from '../report.js';

/** A settled fork, kept only with retainResults. */
export interface Kept {
  task: ForkTask;
  result: ForkResult;
  figures: ForkCacheFigures;
}

/** Running sums of every settled fork: the report without keeping the results. */
export type Totals = Record<ForkResult['status'], number> &
  Pick<
    RunReport,
    | 'modelCalls'
    | 'toolCalls'
    | 'retries'
    | 'promptTokens'
    | 'cachedTokens'
    | 'outputTokens'
    | 'theoreticalCachedTokens'
    | 'preexistingCachedTokens'
    | 'cacheMisses'
    | 'failures'
  > & {
    /** Forks the budgets ended: queued ones cancelled, running ones stopped, forks over their own budget. */
    budgetStopped: number;
    /** Input in units of one uncached input token (with pricing only). */
    inputUnits: number;
    /** Tokens the forks' calls wrote into the provider's cache; undefined until a provider reports writes. */
    cacheWriteTokens: number | undefined;
    /** Of the output, tokens spent thinking; undefined until a provider says. */
    reasoningTokens: number | undefined;
    /** Input billed beyond the prompt; undefined until a provider reports it. */
    toolUsePromptTokens: number | undefined;
    cutAnswers: CutAnswers[];
  };

/** Failures listed in a report whose results are not retained (the rest are counted). */
const MAX_LISTED_FAILURES = 100;

const FIVE_MINUTES_MS = 5 * 60_000;

/** The report's note on a run that kept no results (the CLI, which chose that itself, says it in its own words). */
export const NOT_RETAINED_NOTE = 'results were not retained (retainResults: false): no per-fork rows; totals cover every fork.';

/** What a run's report reads of the run besides its tally, at the moment it is asked for. */
export interface RunView {
  prefix: FrozenPrefix;
  /** The run's plan as it is now (with its explicit caches once made). */
  plan: CachePlan;
  /** The opening wave's corrections of figures given at settle (cache-accounting.ts). */
  corrections: readonly FigureCorrection[];
  wallMs: number;
  /** The run is over. */
  ended: boolean;
  forks: {
    /** Every task, when their number is known. */
    total: number | undefined;
    taken: number;
    running: number;
    /** Taken and waiting to be dispatched. */
    waiting: number;
  };
  /** The run stopped taking tasks before the source's end. */
  stoppedEarly: boolean;
  /** Why the taking stopped at a bad task, if it did. */
  tasksError: Error | undefined;
  /** A task trimmed the history (forkTurns). */
  trimmedTurns: boolean;
  warmup: RunReport['warmup'];
  cache: {
    requested: RunReport['cache']['requested'];
    /** At least one explicit cache served the run. */
    explicit: boolean;
    note: string | undefined;
    storage: RunCacheStorage | undefined;
  };
  cost: RunCost | undefined;
  /** The budget section, given how many forks a budget ended. */
  budget(stoppedForks: number): RunBudget | undefined;
}

/**
 * The report: every settled fork counted into running sums (so a run that keeps no results still
 * reports its totals), the settled forks kept with retainResults, and the report made of both and
 * of the run as it is.
 */
export class RunTally {
  private readonly t: Totals = {
    completed: 0,
    failed: 0,
    cancelled: 0,
    modelCalls: 0,
    toolCalls: 0,
    retries: 0,
    promptTokens: 0,
    cachedTokens: 0,
    outputTokens: 0,
    theoreticalCachedTokens: 0,
    preexistingCachedTokens: 0,
    cacheWriteTokens: undefined,
    reasoningTokens: undefined,
    toolUsePromptTokens: undefined,
    cutAnswers: [],
    budgetStopped: 0,
    inputUnits: 0,
    cacheMisses: [],
    failures: [],
  };
  /** Settled forks by index, with retainResults only (holes where forks still run). */
  readonly kept: Kept[] = [];

  constructor(private readonly retainResults: boolean) {}

  get totals(): Readonly<Totals> {
    return this.t;
  }

  /** What the settled forks spent together. */
  usage(): TokenUsage {
    const t = this.t;
    return {
      promptTokens: t.promptTokens,
      cachedTokens: t.cachedTokens,
      outputTokens: t.outputTokens,
      ...(t.reasoningTokens !== undefined ? { reasoningTokens: t.reasoningTokens } : {}),
      ...(t.toolUsePromptTokens !== undefined ? { toolUsePromptTokens: t.toolUsePromptTokens } : {}),
      ...(t.cacheWriteTokens !== undefined ? { cacheWriteTokens: t.cacheWriteTokens } : {}),
    };
  }

  /** Forks settled so far. */
  get settled(): number {
    return this.t.completed + this.t.failed + this.t.cancelled;
  }

  /** A fork settled: counted, and kept with retainResults. `pricing`: the plan's, when it prices cache reads and writes apart. */
  add(
    index: number,
    task: ForkTask,
    result: ForkResult,
    figures: ForkCacheFigures,
    miss: CacheMiss | undefined,
    pricing: CachePricing | undefined,
  ): void {
    if (this.retainResults) this.kept[index] = { task, result, figures };
    const t = this.t;
    if (miss) {
      const sum = t.cacheMisses.find((m) => m.reason === miss.reason) ?? { reason: miss.reason, forks: 0, tokens: 0 };
      if (sum.forks === 0) t.cacheMisses.push(sum);
      sum.forks++;
      sum.tokens += miss.tokens;
    }
    const spent = spentUsage(result);
    t[result.status]++;
    t.modelCalls += result.calls.filter((c) => c.restored !== true).length;
    t.toolCalls += result.toolCalls;
    t.retries += result.retries;
    t.promptTokens += spent.promptTokens;
    t.cachedTokens = addCached(t.cachedTokens, spent.cachedTokens);
    t.outputTokens += spent.outputTokens;
    t.cacheWriteTokens = addKnown(t.cacheWriteTokens, spent.cacheWriteTokens);
    t.reasoningTokens = addKnown(t.reasoningTokens, spent.reasoningTokens);
    t.toolUsePromptTokens = addKnown(t.toolUsePromptTokens, spent.toolUsePromptTokens);
    const cut = answerCut(result);
    if (cut) tallyCut(t.cutAnswers, cut.reason, [cut.raw]);
    t.theoreticalCachedTokens += figures.theoreticalCachedTokens;
    t.preexistingCachedTokens = addCached(t.preexistingCachedTokens, figures.preexistingCachedTokens);
    if (pricing) t.inputUnits += inputUnits(spent, pricing);
    if (result.status !== 'completed') {
      if (result.error.kind === 'budget') t.budgetStopped++;
      if (this.retainResults || t.failures.length < MAX_LISTED_FAILURES) {
        t.failures.push({ id: result.id, status: result.status, kind: result.error.kind, message: result.error.message });
      }
    }
  }

  /** The run's report now: its totals, its figures with the opening wave's corrections, and what a reader must know of them. */
  report(run: RunView): RunReport {
    const t = this.t;
    // The opening wave's first request, once known, moves the opening maximum to another fork (opening-wave.ts).
    const corrected = new Map(run.corrections.map((c) => [c.after.id, c.after]));
    let theoretical = t.theoreticalCachedTokens;
    let preexisting = t.preexistingCachedTokens;
    for (const { before, after } of run.corrections) {
      theoretical += after.theoreticalCachedTokens - before.theoreticalCachedTokens;
      if (preexisting !== null && before.preexistingCachedTokens !== null && after.preexistingCachedTokens !== null) {
        preexisting += after.preexistingCachedTokens - before.preexistingCachedTokens;
      }
    }
    const { wallMs, plan } = run;
    const { total } = run.forks;
    const cost = run.cost;
    const budget = run.budget(t.budgetStopped);
    return {
      forks: {
        total: total ?? run.forks.taken,
        totalKnown: total !== undefined,
        taken: run.forks.taken,
        completed: t.completed,
        failed: t.failed,
        cancelled: t.cancelled,
        running: run.forks.running,
        queued: run.forks.waiting + (total !== undefined ? total - run.forks.taken : 0),
      },
      wallMs: Math.round(wallMs),
      forksPerSecond: wallMs > 0 ? this.settled / (wallMs / 1000) : 0,
      modelCalls: t.modelCalls,
      toolCalls: t.toolCalls,
      retries: t.retries,
      ...this.usage(),
      cutAnswers: t.cutAnswers.map((c) => ({ ...c, raw: [...c.raw] })),
      hitRate: t.cachedTokens === null ? null : t.promptTokens > 0 ? t.cachedTokens / t.promptTokens : 0,
      theoreticalCachedTokens: theoretical,
      preexistingCachedTokens: preexisting,
      efficiency: efficiencyOf(t.cachedTokens, preexisting, theoretical),
      warmup: run.warmup,
      cache: {
        requested: run.cache.requested,
        effective: run.cache.explicit ? 'explicit' : plan.effective,
        ...(run.cache.note ? { note: run.cache.note } : {}),
        ...(run.cache.storage !== undefined ? { storage: { ...run.cache.storage } } : {}),
      },
      ...(plan.pricing
        ? {
            inputCost: {
              uncachedUnits: t.promptTokens,
              units: Math.round(t.inputUnits),
              relative: ratio(t.inputUnits, t.promptTokens),
              pricing: plan.pricing,
            },
          }
        : {}),
      ...(cost !== undefined ? { cost } : {}),
      ...(budget !== undefined ? { budget } : {}),
      prefix: { id: run.prefix.id, bytes: run.prefix.byteLength, tokens: run.prefix.tokenEstimate },
      notes: this.notes(run),
      cacheMisses: t.cacheMisses.map((m) => ({ ...m })),
      // flatMap skips the holes of forks still running.
      perFork: this.kept.flatMap((k) => [corrected.get(k.figures.id) ?? k.figures]),
      failures: t.failures,
    };
  }

  /** What a reader of the report must know to read its figures. */
  private notes(run: RunView): string[] {
    const notes: string[] = [];
    // A stream stopped early (a cancel, a spent budget, a bad task) leaves its unread tasks unrun, and in no result: say so.
    if (run.stoppedEarly && run.tasksError === undefined) {
      notes.push(
        `the run stopped taking tasks after ${run.forks.taken} (cancelled, or its budget spent): the rest of the stream was not read; its tasks did not run and have no result (a journal's --resume runs them)`,
      );
    }
    if (run.cache.explicit) {
      notes.push(
        'explicit cache: every call is served from the cachedContent and nothing more, so that is each call’s maximum; a fork’s own earlier turns are not cached alongside it.',
      );
    }
    if (run.trimmedTurns) {
      notes.push(
        'forkTurns trimmed the history: forks no longer share the parent conversation’s cache, only system instruction and tools (siblings with the same window still share theirs).',
      );
    }
    if (!this.retainResults) notes.push(NOT_RETAINED_NOTE);
    if (run.tasksError) notes.push(`tasks stopped at a bad one (the forks before it ran): ${run.tasksError.message}`);
    const request = run.plan.request;
    // Anthropic bills 1-hour writes 2× input and 5-minute ones 1.25×: the longer TTL pays only for a run (or a reuse) past 5 minutes.
    if (request.mechanism === 'breakpoints' && request.ttl === '1h' && run.ended && run.wallMs < FIVE_MINUTES_MS) {
      notes.push(
        `1-hour cache breakpoints: their writes cost 2× input where 5-minute ones cost 1.25×, and this run ended in ${Math.round(run.wallMs / 1000)} s, within 5 minutes: cacheTtl '5m' (--cache-ttl 5m) would have served it for less, unless the prefix is reused later`,
      );
    }
    return notes;
  }
}
