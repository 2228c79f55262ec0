import { tallyCut, type CutAnswers, type RunReport } from '../engine/report.js';
import type { FinishReason } from '../model/finish.js';
import type { CacheMissReason } from '../result/fork-result.js';
import type { ReadResultLine } from './result-line.js';
import {
  cached,
  failureLines,
  forksLine,
  forkTable,
  missesAndCuts,
  num,
  pct,
  tokensLine,
  usd,
  type SummaryRow,
  type SummaryTotals,
} from './summary.js';

/**
 * `forkpool report FILE`: the summary `run` prints, made from its result lines (run --out). A line
 * holds each fork's own figures, not the run's (its prefix, the most it could have had cached, its
 * wall time): those lines are left out, and the time is the span the lines' ends cover.
 */
export function resultsSummaryText(lines: readonly ReadResultLine[], file: string): string {
  const totals = totalsOf(lines);
  const costs = lines.filter((l) => l.costUsd !== undefined);
  const span = spanMs(lines);
  const turns = lines.reduce((n, l) => n + l.turns, 0);
  const toolCalls = lines.reduce((n, l) => n + l.toolCalls, 0);
  return [
    `forkpool report · ${file} · ${num(lines.length)} fork${lines.length === 1 ? '' : 's'}`,
    '',
    ...forkTable(lines.map(rowOf)),
    forksLine(totals),
    `time       ${span === undefined ? '' : `${(span / 1000).toFixed(2)} s from the first fork's start to the last one's end · `}${num(turns)} model turns · ${num(toolCalls)} tool calls`,
    tokensLine(totals),
    `cache      hit rate ${pct(totals.hitRate)} · ${cached(totals.cachedTokens)} of ${num(totals.promptTokens)} prompt tokens served from the cache`,
    ...missesAndCuts(totals),
    ...(costs.length > 0
      ? [
          `cost       $${usd(costs.reduce((n, l) => n + (l.costUsd ?? 0), 0))}${costs.length < lines.length ? ` (${num(costs.length)} of ${num(lines.length)} forks priced)` : ''}`,
        ]
      : []),
    ...failureLines(totals),
  ].join('\n');
}

function rowOf(line: ReadResultLine): SummaryRow {
  return {
    id: line.id,
    status: line.status,
    promptTokens: line.usage.promptTokens,
    cachedTokens: line.usage.cachedTokens,
    ...(line.usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: line.usage.cacheWriteTokens } : {}),
    ...(line.cacheMiss !== undefined ? { cacheMiss: line.cacheMiss } : {}),
    ...(line.cut !== undefined ? { cut: line.cut } : {}),
  };
}

function totalsOf(lines: readonly ReadResultLine[]): SummaryTotals {
  const count = (status: ReadResultLine['status']): number => lines.filter((l) => l.status === status).length;
  const sum = (field: 'promptTokens' | 'outputTokens'): number => lines.reduce((n, l) => n + l.usage[field], 0);
  const some = (field: 'cacheWriteTokens' | 'reasoningTokens'): number | undefined =>
    lines.some((l) => l.usage[field] !== undefined) ? lines.reduce((n, l) => n + (l.usage[field] ?? 0), 0) : undefined;
  // Unknown for one fork: unknown for the run (never counted as 0).
  const cachedTokens = lines.some((l) => l.usage.cachedTokens === null) ? null : lines.reduce((n, l) => n + (l.usage.cachedTokens ?? 0), 0);
  const promptTokens = sum('promptTokens');
  const cacheWriteTokens = some('cacheWriteTokens');
  const reasoningTokens = some('reasoningTokens');
  const misses = new Map<string, { reason: CacheMissReason; forks: number; tokens: number }>();
  for (const l of lines) {
    if (l.cacheMiss === undefined) continue;
    const miss = misses.get(l.cacheMiss.reason) ?? { reason: l.cacheMiss.reason as CacheMissReason, forks: 0, tokens: 0 };
    miss.forks++;
    miss.tokens += l.cacheMiss.tokens;
    misses.set(l.cacheMiss.reason, miss);
  }
  const cutAnswers: CutAnswers[] = [];
  for (const l of lines) if (l.cut !== undefined) tallyCut(cutAnswers, l.cut.reason as FinishReason, [l.cut.raw]);
  const forks: RunReport['forks'] = {
    total: lines.length,
    totalKnown: true,
    taken: lines.length,
    completed: count('completed'),
    failed: count('failed'),
    cancelled: count('cancelled'),
    running: 0,
    queued: 0,
  };
  return {
    forks,
    promptTokens,
    cachedTokens,
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
    outputTokens: sum('outputTokens'),
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    hitRate: cachedTokens === null ? null : promptTokens > 0 ? cachedTokens / promptTokens : 0,
    cacheMisses: [...misses.values()],
    cutAnswers,
    failures: lines.flatMap((l) =>
      l.status === 'completed' ? [] : [{ id: l.id, status: l.status, kind: l.error?.kind ?? 'unknown', message: l.error?.message ?? '' }],
    ),
  };
}

/** From the first fork's start to the last one's end, when the lines say when they ended. */
function spanMs(lines: readonly ReadResultLine[]): number | undefined {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const l of lines) {
    if (l.endedAt === undefined) return undefined;
    const end = Date.parse(l.endedAt);
    first = Math.min(first, end - l.durationMs);
    last = Math.max(last, end);
  }
  return lines.length > 0 ? last - first : undefined;
}
