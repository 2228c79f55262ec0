import { randomBytes } from 'node:crypto';
import { tallyCut, type CutAnswers } from '../engine/report.js';
import { answersCut, type FinishReason } from '../model/finish.js';
import { addCached, addKnown } from '../model/types.js';
import type { ForkDetail, ForkRow, ForkState, RunSnapshot } from './view.js';
import { pageHtml } from './page/html.js';

/*
 * A finished run as one self-contained HTML file: the live page's views over a snapshot made from
 * the run's result lines (`forkpool report results.jsonl --html report.html`). A line's end and
 * duration place its fork on the timeline (a line without an end leaves the timeline out); a line
 * has no call times, so the bars carry no marks.
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
    details[line.id] = {
      id: line.id,
      directive: options.directives?.get(line.id) ?? '',
      turns: [],
      tools: [],
      ...(line.text !== '' ? { text: line.text } : {}),
      ...(line.error ? { error: line.error } : {}),
    };
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
  return {
    summary: {
      startedAt: times?.runStart ?? 0,
      elapsedMs,
      ended: true,
      provider: '',
      model: '',
      forks: { ...counts, total: lines.length },
      promptTokens,
      cachedTokens: finalCached,
      outputTokens,
      ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
      ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
      hitRate: finalCached === null || promptTokens === 0 ? null : finalCached / promptTokens,
      // The theoretical maximum is the engine's, from each call's request: a result line does not carry it.
      efficiency: null,
      theoreticalCachedTokens: 0,
      ...(costUsd !== undefined ? { costUsd } : {}),
      cacheMisses: [...misses.values()],
      cutAnswers: cut.map((c) => ({ ...c, words: answersCut(c.forks, c.reason) })),
    },
    forks,
    samples: [],
    live: false,
    details,
  };
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
