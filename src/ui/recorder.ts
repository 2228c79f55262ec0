import type { ForkEvent } from '../engine/events.js';
import { answersCut } from '../model/finish.js';
import { addCached, addKnown } from '../model/types.js';
import { answerCut, spentUsage } from '../result/results.js';
import type { ForkResult } from '../result/fork-result.js';
import type { RunReport } from '../engine/report.js';
import {
  MARKS_PER_FORK,
  type ForkDetail,
  type ForkRow,
  type ForkState,
  type ParentView,
  type RunPatch,
  type RunSnapshot,
  type RunSummary,
  type Sample,
} from './view.js';

/*
 * A run's view, kept up to date from its events: one row per fork (queued ones from the task list
 * given, a streamed run's as they start), each fork's detail, and the figures over time. Every
 * change marks its row, and `patch()` hands out what changed since the last one: a page with
 * 10,000 forks gets the few rows that moved, not the whole list, at most a few times a second.
 */

/** What the recorder knows of a task before it runs. */
interface TaskInfo {
  id: string;
  directive: string;
  subagentType?: string;
}

/** What a summary reads of a run's report (a parent's page sums its fan-outs' into one). */
export type ReportFigures = Pick<
  RunReport,
  | 'promptTokens'
  | 'cachedTokens'
  | 'outputTokens'
  | 'reasoningTokens'
  | 'cacheWriteTokens'
  | 'hitRate'
  | 'efficiency'
  | 'theoreticalCachedTokens'
  | 'cacheMisses'
  | 'cutAnswers'
  | 'retries'
> & {
  /** `totalKnown` false: a stream of tasks still open, whose total so far is a floor (absent: known). */
  forks: { total: number; totalKnown?: boolean };
  cost?: { usd: number };
};

/** Figures read from the run when a summary is made (its report, the call gate, the workers). */
export interface RunFigures {
  report(): ReportFigures;
  gate?(): { inFlight: number; limit: number; waiting: number; rateLimited: number; retriesSpent: number };
  workers?(): NonNullable<RunSummary['workers']>;
}

/** At most this many turns and tool calls kept per fork for its detail (a fork of 200 turns keeps them all). */
const DETAIL_LIMIT = 1_000;
/** A final text longer than this is cut in the detail (the directive is kept whole: it is the task, and the run holds it anyway). */
const TEXT_LIMIT = 20_000;

export interface RunRecorder {
  /** Forks known before they start (an array of tasks): queued rows. */
  queued(tasks: readonly TaskInfo[]): void;
  apply(event: ForkEvent): void;
  /** Takes a sample of the figures (call it once a second or so). */
  sample(): void;
  snapshot(live: boolean): RunSnapshot;
  /** What changed since the last patch, for every page open; undefined when nothing did. */
  patch(): RunPatch | undefined;
  detail(id: string): ForkDetail | undefined;
  /** The parent agent whose tasks these forks are: its view, given again (same object or not) whenever it changed. */
  parent(view: ParentView): void;
  end(): void;
}

export function createRunRecorder(info: { provider: string; model: string; figures: RunFigures; now?: () => number }): RunRecorder {
  const now = info.now ?? Date.now;
  const startedAt = now();
  const at = (): number => now() - startedAt;
  const rows = new Map<string, ForkRow>();
  const details = new Map<string, ForkDetail>();
  const samples: Sample[] = [];
  let sentSamples = 0;
  let dirty = new Set<string>();
  let summaryChanged = true;
  let ended = false;
  let parent: ParentView | undefined;
  let parentChanged = false;

  const rowOf = (id: string, agent = 'fork'): ForkRow => {
    let row = rows.get(id);
    if (row === undefined) {
      row = { id, state: 'queued', agent, turns: 0, toolCalls: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, marks: [] };
      rows.set(id, row);
    }
    return row;
  };
  const detailOf = (id: string): ForkDetail => {
    let detail = details.get(id);
    if (detail === undefined) {
      detail = { id, directive: '', turns: [], tools: [] };
      details.set(id, detail);
    }
    return detail;
  };
  const changed = (id: string): void => {
    dirty.add(id);
    summaryChanged = true;
  };
  const mark = (row: ForkRow, kind: ForkRow['marks'][number]['kind']): void => {
    if (row.marks.length < MARKS_PER_FORK) row.marks.push({ at: at(), kind });
  };

  const settle = (row: ForkRow, result: ForkResult): void => {
    row.state = result.status;
    row.endedAt = at();
    row.turns = result.turns;
    row.toolCalls = result.toolCalls;
    // This run's spending, as the run's report counts it (a resumed fork's calls read back are not), so that the rows add up to its totals.
    const usage = spentUsage(result);
    row.promptTokens = usage.promptTokens;
    row.cachedTokens = usage.cachedTokens;
    row.outputTokens = usage.outputTokens;
    if (usage.reasoningTokens !== undefined) row.reasoningTokens = usage.reasoningTokens;
    if (usage.cacheWriteTokens !== undefined) row.cacheWriteTokens = usage.cacheWriteTokens;
    if (result.costUsd !== undefined) row.costUsd = result.costUsd;
    const cutAnswer = answerCut(result);
    if (cutAnswer !== undefined) row.cut = { reason: cutAnswer.reason, raw: cutAnswer.raw };
    if (result.cacheMiss !== undefined) row.cacheMiss = { ...result.cacheMiss };
    const detail = detailOf(row.id);
    if (result.text !== '') detail.text = cut(result.text);
    if (result.status !== 'completed') {
      row.error = { kind: result.error.kind, message: result.error.message };
      detail.error = row.error;
    }
  };

  const summary = (): RunSummary => {
    const report = info.figures.report();
    const counts: Record<ForkState, number> = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    // The header's tokens are the rows' sum: running forks' calls count as they answer, ended forks' as their result says.
    const tokens = {
      prompt: 0,
      cached: 0 as number | null,
      output: 0,
      reasoning: undefined as number | undefined,
      written: undefined as number | undefined,
    };
    for (const row of rows.values()) {
      counts[row.state]++;
      tokens.prompt += row.promptTokens;
      tokens.cached = addCached(tokens.cached, row.cachedTokens);
      tokens.output += row.outputTokens;
      tokens.reasoning = addKnown(tokens.reasoning, row.reasoningTokens);
      tokens.written = addKnown(tokens.written, row.cacheWriteTokens);
    }
    // Tasks the run has taken or will take that have no row yet (a stream's, before they start) are queued: the counts add up to the total.
    const total = Math.max(rows.size, report.forks.total);
    counts.queued += total - rows.size;
    const gate = info.figures.gate?.();
    const workers = info.figures.workers?.();
    return {
      startedAt,
      elapsedMs: at(),
      ended,
      provider: info.provider,
      model: info.model,
      forks: { ...counts, total, totalKnown: report.forks.totalKnown ?? true },
      promptTokens: tokens.prompt,
      cachedTokens: tokens.cached,
      outputTokens: tokens.output,
      ...(tokens.reasoning !== undefined ? { reasoningTokens: tokens.reasoning } : {}),
      ...(tokens.written !== undefined ? { cacheWriteTokens: tokens.written } : {}),
      hitRate: tokens.cached === null ? null : tokens.prompt > 0 ? tokens.cached / tokens.prompt : 0,
      // Known for ended forks only (each call's maximum is the run's, at the fork's end): the summary says so while forks run.
      efficiency: report.efficiency,
      theoreticalCachedTokens: report.theoreticalCachedTokens,
      ...(report.cost !== undefined ? { costUsd: report.cost.usd } : {}),
      cacheMisses: report.cacheMisses.map((m) => ({ ...m })),
      cutAnswers: report.cutAnswers.map((c) => ({
        reason: c.reason,
        forks: c.forks,
        raw: [...c.raw],
        words: answersCut(c.forks, c.reason),
      })),
      ...(gate !== undefined
        ? {
            gate: {
              inFlight: gate.inFlight,
              limit: gate.limit,
              waiting: gate.waiting,
              rateLimited: gate.rateLimited,
              retries: report.retries,
            },
          }
        : {}),
      ...(workers !== undefined ? { workers } : {}),
    };
  };

  return {
    queued(tasks) {
      for (const task of tasks) {
        rowOf(task.id, task.subagentType ?? 'fork');
        detailOf(task.id).directive = task.directive;
        changed(task.id);
      }
    },
    apply(event) {
      switch (event.type) {
        case 'task_started': {
          const row = rowOf(event.forkId, event.subagentType ?? 'fork');
          row.state = 'running';
          row.startedAt = at();
          const detail = detailOf(event.forkId);
          if (detail.directive === '') detail.directive = event.directive;
          break;
        }
        case 'turn': {
          const row = rowOf(event.forkId);
          row.turns = Math.max(row.turns, event.turn);
          row.promptTokens += event.usage.promptTokens;
          row.cachedTokens = addCached(row.cachedTokens, event.usage.cachedTokens);
          row.outputTokens += event.usage.outputTokens;
          if (event.usage.reasoningTokens !== undefined) row.reasoningTokens = (row.reasoningTokens ?? 0) + event.usage.reasoningTokens;
          if (event.usage.cacheWriteTokens !== undefined) row.cacheWriteTokens = (row.cacheWriteTokens ?? 0) + event.usage.cacheWriteTokens;
          mark(row, 'call');
          const turns = detailOf(event.forkId).turns;
          if (turns.length < DETAIL_LIMIT) {
            const { promptTokens, cachedTokens, outputTokens, reasoningTokens, cacheWriteTokens } = event.usage;
            turns.push({
              turn: event.turn,
              at: at(),
              promptTokens,
              cachedTokens,
              ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
              outputTokens,
              ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
              functionCalls: event.functionCalls,
              ...(event.finish !== undefined ? { finish: { reason: event.finish.reason, raw: event.finish.raw } } : {}),
            });
          }
          break;
        }
        case 'tool_call': {
          const row = rowOf(event.forkId);
          row.toolCalls++;
          mark(row, event.status === 'ok' ? 'tool' : 'tool_failed');
          const tools = detailOf(event.forkId).tools;
          if (tools.length < DETAIL_LIMIT)
            tools.push({
              at: at(),
              tool: event.tool,
              status: event.status,
              ...(event.error !== undefined ? { error: event.error.message } : {}),
            });
          break;
        }
        case 'task_notification':
          settle(rowOf(event.forkId), event.result);
          break;
        case 'message':
          return;
      }
      changed(event.forkId);
    },
    sample() {
      const s = summary();
      samples.push({
        at: s.elapsedMs,
        promptTokens: s.promptTokens,
        cachedTokens: s.cachedTokens ?? 0,
        outputTokens: s.outputTokens,
        efficiency: s.efficiency,
        ...(s.costUsd !== undefined ? { costUsd: s.costUsd } : {}),
      });
      summaryChanged = true;
    },
    snapshot(live) {
      // Changes not yet patched stay pending for the pages already open; this page gets them again
      // with the next patch (rows are replaced by id), and the samples it has not, only then.
      return {
        summary: summary(),
        forks: [...rows.values()],
        samples: samples.slice(0, sentSamples),
        live,
        ...(parent !== undefined ? { parent } : {}),
      };
    },
    patch() {
      if (dirty.size === 0 && !summaryChanged && !parentChanged && sentSamples === samples.length) return undefined;
      const forks = [...dirty].map((id) => rows.get(id)).filter((row): row is ForkRow => row !== undefined);
      const fresh = samples.slice(sentSamples);
      const withParent = parentChanged && parent !== undefined ? { parent } : {};
      dirty = new Set();
      summaryChanged = false;
      parentChanged = false;
      sentSamples = samples.length;
      return { summary: summary(), forks, samples: fresh, ...withParent };
    },
    parent(view) {
      parent = view;
      parentChanged = true;
    },
    detail(id) {
      return details.get(id);
    },
    end() {
      ended = true;
      summaryChanged = true;
    },
  };
}

function cut(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}… (${text.length - TEXT_LIMIT} more characters)` : text;
}
