import { tallyCut, type CutAnswers, type RunReport } from '../engine/report.js';
import { efficiencyOf } from '../engine/cache-figures.js';
import { addCached } from '../model/types.js';
import type { FinishReason } from '../model/finish.js';
import type { CacheMissReason } from '../result/fork-result.js';
import type { ReadResultLine } from './result-line.js';
import {
  cached,
  counted,
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
    `time       ${span === undefined ? '' : `${(span / 1000).toFixed(2)} s from the first fork's start to the last one's end · `}${counted(turns, 'model turn')} · ${counted(toolCalls, 'tool call')}`,
    tokensLine(totals),
    cacheLine(lines, totals),
    ...missesAndCuts(totals),
    ...(costs.length > 0
      ? [
          `cost       $${usd(costs.reduce((n, l) => n + (l.costUsd ?? 0), 0))}${costs.length < lines.length ? ` (${num(costs.length)} of ${num(lines.length)} forks priced)` : ''}`,
        ]
      : []),
    ...failureLines(totals),
  ].join('\n');
}

/**
 * The hit rate, and the efficiency against the most the provider's rules let the forks have cached
 * when every line holds that maximum; lines of an older forkpool do not, and the line says so.
 */
function cacheLine(lines: readonly ReadResultLine[], totals: SummaryTotals): string {
  const served = `cache      hit rate ${pct(totals.hitRate)} · ${cached(totals.cachedTokens)} of ${num(totals.promptTokens)} prompt tokens served from the cache`;
  const lacking = lines.filter((l) => l.maxCachedTokens === undefined).length;
  if (lines.length === 0) return served;
  if (lacking > 0)
    return `${served} · efficiency not known: ${lacking === lines.length ? 'the lines do' : `${num(lacking)} of ${num(lines.length)} lines do`} not hold the most that could have been cached (written by an older forkpool)`;
  const max = lines.reduce((n, l) => n + (l.maxCachedTokens ?? 0), 0);
  // What the cache held before the run, unknown for one line: unknown for all (as the HTML report counts it).
  const held = lines.reduce<number | null>((n, l) => addCached(n, l.preexistingCachedTokens ?? null), 0);
  // In the words of run's own summary line: the same figures read the same.
  return `cache      hit rate ${pct(totals.hitRate)} · ${cached(totals.cachedTokens)} of ${num(max)} cacheable (efficiency ${pct(efficiencyOf(totals.cachedTokens, held, max))})`;
}

function rowOf(line: ReadResultLine): SummaryRow {
  return {
    id: line.id,
    status: line.status,
    promptTokens: line.usage.promptTokens,
    cachedTokens: line.usage.cachedTokens,
    ...(line.maxCachedTokens !== undefined
      ? {
          theoreticalCachedTokens: line.maxCachedTokens,
          efficiency: efficiencyOf(line.usage.cachedTokens, line.preexistingCachedTokens ?? null, line.maxCachedTokens),
        }
      : {}),
    ...(line.preexistingCachedTokens !== undefined ? { preexistingCachedTokens: line.preexistingCachedTokens } : {}),
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
