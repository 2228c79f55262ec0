import { randomBytes } from 'node:crypto';
import { tallyCut, type CutAnswers } from '../engine/report.js';
import { answersCut, type FinishReason } from '../model/finish.js';
import { addCached, addKnown } from '../model/types.js';
import type { ForkDetail, ForkRow, ForkState, RunSnapshot, Sample } from './view.js';
import { efficiencyOf } from '../engine/cache-figures.js';
import { pageHtml } from './page/html.js';

/*
 * A finished run as one self-contained HTML file: the live page's views over a snapshot made from
 * the run's result lines (`forkpool report results.jsonl --html report.html`). A line's end and
 * duration place its fork on the timeline and its figures in the figures over time (a line without
 * an end leaves both out); a line has no call times, so the bars carry no marks. Each fork's detail
 * shows what its line holds (its directive, turns, tool calls, cache maximum) and says what an
 * older forkpool's line does not.
 */

/** What a report reads of a result line (src/cli/result-line.ts checks it). */
export interface ReportLine {
  id: string;
  status: 'completed' | 'failed' | 'cancelled';
  subagentType?: string | undefined;
  text: string;
  turns: number;
  toolCalls: number;
  usage: {
    promptTokens: number;
    cachedTokens: number | null;
    outputTokens: number;
    reasoningTokens?: number | undefined;
    cacheWriteTokens?: number | undefined;
  };
  costUsd?: number | undefined;
  durationMs: number;
  /** ISO 8601. */
  endedAt?: string | undefined;
  cacheMiss?: { reason: string; tokens: number; detail: string } | undefined;
  /** A completed fork's answer the provider cut or refused. */
  cut?: { reason: FinishReason; raw: string } | undefined;
  error?: { kind: string; message: string } | undefined;
  directive?: string | undefined;
  perTurn?:
    | {
        promptTokens: number;
        cachedTokens: number | null;
        outputTokens: number;
        reasoningTokens?: number | undefined;
        cacheWriteTokens?: number | undefined;
        finish?: { reason: string; raw: string } | undefined;
      }[]
    | undefined;
  tools?: { tool: string; status: string; error?: string | undefined }[] | undefined;
  maxCachedTokens?: number | undefined;
  preexistingCachedTokens?: number | null | undefined;
}

export function snapshotOfResults(lines: readonly ReportLine[], options: { directives?: ReadonlyMap<string, string> } = {}): RunSnapshot {
  const counts: Record<ForkState, number> = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  const misses = new Map<string, { reason: string; forks: number; tokens: number }>();
  const details: Record<string, ForkDetail> = {};
  let promptTokens = 0;
  let cachedTokens: number | null = 0;
  let outputTokens = 0;
  let reasoningTokens: number | undefined;
  let cacheWriteTokens: number | undefined;
  const cut: CutAnswers[] = [];
  let costUsd: number | undefined;
  // The run's cache maximum and what the cache held before it: known only when every line carries them.
  let maxCached: number | undefined = 0;
  let preexisting: number | null = 0;
  let elapsedMs = 0;
  const times = timesOf(lines);
  const forks = lines.map((line, i): ForkRow => {
    counts[line.status]++;
    promptTokens += line.usage.promptTokens;
    cachedTokens = addCached(cachedTokens, line.usage.cachedTokens);
    outputTokens += line.usage.outputTokens;
    reasoningTokens = addKnown(reasoningTokens, line.usage.reasoningTokens);
    cacheWriteTokens = addKnown(cacheWriteTokens, line.usage.cacheWriteTokens);
    if (line.costUsd !== undefined) costUsd = (costUsd ?? 0) + line.costUsd;
    if (line.cut) tallyCut(cut, line.cut.reason, [line.cut.raw]);
    const time = times?.spans[i];
    elapsedMs = Math.max(elapsedMs, time?.endedAt ?? line.durationMs);
    if (line.cacheMiss) {
      const sum = misses.get(line.cacheMiss.reason) ?? { reason: line.cacheMiss.reason, forks: 0, tokens: 0 };
      sum.forks++;
      sum.tokens += line.cacheMiss.tokens;
      misses.set(sum.reason, sum);
    }
    maxCached = maxCached === undefined || line.maxCachedTokens === undefined ? undefined : maxCached + line.maxCachedTokens;
    preexisting = addCached(preexisting, line.preexistingCachedTokens ?? null);
    details[line.id] = detailOf(line, options.directives?.get(line.id));
    return {
      id: line.id,
      state: line.status,
      agent: line.subagentType ?? 'fork',
      ...(time ?? {}),
      turns: line.turns,
      toolCalls: line.toolCalls,
      promptTokens: line.usage.promptTokens,
      cachedTokens: line.usage.cachedTokens,
      outputTokens: line.usage.outputTokens,
      ...(line.usage.reasoningTokens !== undefined ? { reasoningTokens: line.usage.reasoningTokens } : {}),
      ...(line.usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: line.usage.cacheWriteTokens } : {}),
      ...(line.costUsd !== undefined ? { costUsd: line.costUsd } : {}),
      ...(line.cut ? { cut: { reason: line.cut.reason, raw: line.cut.raw } } : {}),
      ...(line.cacheMiss ? { cacheMiss: line.cacheMiss } : {}),
      ...(line.error ? { error: line.error } : {}),
      marks: [],
    };
  });
  const finalCached: number | null = cachedTokens;
  const lacking = lines.filter((line) => line.maxCachedTokens === undefined).length;
  return {
    summary: {
      startedAt: times?.runStart ?? 0,
      elapsedMs,
      ended: true,
      provider: '',
      model: '',
      forks: { ...counts, total: lines.length, totalKnown: true },
      promptTokens,
      cachedTokens: finalCached,
      outputTokens,
      ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
      ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
      hitRate: finalCached === null || promptTokens === 0 ? null : finalCached / promptTokens,
      efficiency: maxCached === undefined ? null : efficiencyOf(finalCached, preexisting, maxCached),
      theoreticalCachedTokens: maxCached ?? 0,
      ...(costUsd !== undefined ? { costUsd } : {}),
      cacheMisses: [...misses.values()],
      cutAnswers: cut.map((c) => ({ ...c, words: answersCut(c.forks, c.reason) })),
      ...(lacking > 0
        ? {
            lacks: [
              `the cache maximum in ${lacking === lines.length ? 'every line' : `${lacking} of ${lines.length} lines`} (written by an older forkpool): the efficiency is not known`,
            ],
          }
        : {}),
    },
    forks,
    samples: times ? samplesOf(lines, times.spans) : [],
    live: false,
    details,
  };
}

/** What a fork's detail shows of its line; what the line does not carry is named, never shown as zeros or empty tables. */
function detailOf(line: ReportLine, directiveFromTasks: string | undefined): ForkDetail {
  const directive = line.directive ?? directiveFromTasks;
  const lacks = [
    ...(directive === undefined ? ['its directive (give the run’s task file with --tasks to show it)'] : []),
    ...(line.perTurn === undefined ? ['its turns’ figures'] : []),
    ...(line.tools === undefined ? ['its tool calls'] : []),
    ...(line.maxCachedTokens === undefined ? ['its cache maximum (so its efficiency)'] : []),
  ];
  const efficiency =
    line.maxCachedTokens === undefined
      ? null
      : efficiencyOf(line.usage.cachedTokens, line.preexistingCachedTokens ?? null, line.maxCachedTokens);
  return {
    id: line.id,
    directive: directive ?? '',
    turns: (line.perTurn ?? []).map((t, i) => ({
      turn: i + 1,
      promptTokens: t.promptTokens,
      cachedTokens: t.cachedTokens,
      outputTokens: t.outputTokens,
      ...(t.reasoningTokens !== undefined ? { reasoningTokens: t.reasoningTokens } : {}),
      ...(t.cacheWriteTokens !== undefined ? { cacheWriteTokens: t.cacheWriteTokens } : {}),
      ...(t.finish ? { finish: { reason: t.finish.reason, raw: t.finish.raw } } : {}),
    })),
    tools: (line.tools ?? []).map((t) => ({ tool: t.tool, status: t.status, ...(t.error !== undefined ? { error: t.error } : {}) })),
    ...(line.text !== '' ? { text: line.text } : {}),
    ...(line.error ? { error: line.error } : {}),
    ...(lacks.length > 0 ? { lacks } : {}),
    ...(line.maxCachedTokens !== undefined ? { cache: { maxCachedTokens: line.maxCachedTokens, efficiency } } : {}),
  };
}

/** The figures over time: nothing at the run's start, then the run's totals as each fork ended, in the order they ended. */
function samplesOf(lines: readonly ReportLine[], spans: readonly { endedAt: number }[]): Sample[] {
  const order = lines.map((_, i) => i).sort((a, b) => (spans[a]?.endedAt ?? 0) - (spans[b]?.endedAt ?? 0));
  const samples: Sample[] = [{ at: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, efficiency: null }];
  let prompt = 0;
  let cached: number | null = 0;
  let output = 0;
  let cost: number | undefined;
  let max: number | undefined = 0;
  let held: number | null = 0;
  for (const i of order) {
    const line = lines[i] as ReportLine;
    prompt += line.usage.promptTokens;
    cached = addCached(cached, line.usage.cachedTokens);
    output += line.usage.outputTokens;
    if (line.costUsd !== undefined) cost = (cost ?? 0) + line.costUsd;
    max = max === undefined || line.maxCachedTokens === undefined ? undefined : max + line.maxCachedTokens;
    held = addCached(held, line.preexistingCachedTokens ?? null);
    samples.push({
      at: spans[i]?.endedAt ?? 0,
      promptTokens: prompt,
      cachedTokens: cached ?? 0,
      outputTokens: output,
      efficiency: max === undefined ? null : efficiencyOf(cached, held, max),
      ...(cost !== undefined ? { costUsd: cost } : {}),
    });
  }
  return samples;
}

/** Each fork's start and end in ms since the first one started, when every line says when it ended. */
function timesOf(lines: readonly ReportLine[]): { runStart: number; spans: { startedAt: number; endedAt: number }[] } | undefined {
  const ends = lines.map((line) => (line.endedAt === undefined ? Number.NaN : Date.parse(line.endedAt)));
  if (lines.length === 0 || ends.some((end) => Number.isNaN(end))) return undefined;
  // A loop, not Math.min(...): a run of a million lines would overflow the call's arguments.
  let runStart = Number.POSITIVE_INFINITY;
  ends.forEach((end, i) => {
    runStart = Math.min(runStart, end - (lines[i] as ReportLine).durationMs);
  });
  return {
    runStart,
    spans: ends.map((end, i) => ({ startedAt: end - (lines[i] as ReportLine).durationMs - runStart, endedAt: end - runStart })),
  };
}

/** The report's HTML: the page with the snapshot inside it (its own nonce, for its own CSP). */
export function reportHtml(snapshot: RunSnapshot, title: string): string {
  return pageHtml({ title, nonce: randomBytes(16).toString('base64'), snapshot });
}
