import { randomBytes } from 'node:crypto';
import { addCached } from '../model/types.js';
import type { ForkDetail, ForkRow, ForkState, RunSnapshot } from './view.js';
import { pageHtml } from './page/html.js';

/*
 * A finished run as one self-contained HTML file: the live page's views over a snapshot made from
 * the run's result lines (`forkpool report results.jsonl --html report.html`). Result lines carry
 * no times of day, so the timeline has none; everything else the page shows is there.
 */

/** What a report reads of a result line (src/cli/result-line.ts checks it). */
export interface ReportLine {
  id: string;
  status: 'completed' | 'failed' | 'cancelled';
  subagentType?: string | undefined;
  text: string;
  turns: number;
  toolCalls: number;
  usage: { promptTokens: number; cachedTokens: number | null; outputTokens: number };
  costUsd?: number | undefined;
  durationMs: number;
  cacheMiss?: { reason: string; tokens: number; detail: string } | undefined;
  error?: { kind: string; message: string } | undefined;
}

export function snapshotOfResults(lines: readonly ReportLine[], options: { directives?: ReadonlyMap<string, string> } = {}): RunSnapshot {
  const counts: Record<ForkState, number> = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  const misses = new Map<string, { reason: string; forks: number; tokens: number }>();
  const details: Record<string, ForkDetail> = {};
  let promptTokens = 0;
  let cachedTokens: number | null = 0;
  let outputTokens = 0;
  let costUsd: number | undefined;
  let elapsedMs = 0;
  const forks = lines.map((line): ForkRow => {
    counts[line.status]++;
    promptTokens += line.usage.promptTokens;
    cachedTokens = addCached(cachedTokens, line.usage.cachedTokens);
    outputTokens += line.usage.outputTokens;
    if (line.costUsd !== undefined) costUsd = (costUsd ?? 0) + line.costUsd;
    elapsedMs = Math.max(elapsedMs, line.durationMs);
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
      turns: line.turns,
      toolCalls: line.toolCalls,
      promptTokens: line.usage.promptTokens,
      cachedTokens: line.usage.cachedTokens,
      outputTokens: line.usage.outputTokens,
      ...(line.costUsd !== undefined ? { costUsd: line.costUsd } : {}),
      ...(line.cacheMiss ? { cacheMiss: line.cacheMiss } : {}),
      ...(line.error ? { error: line.error } : {}),
      marks: [],
    };
  });
  const finalCached: number | null = cachedTokens;
  return {
    summary: {
      startedAt: 0,
      elapsedMs,
      ended: true,
      provider: '',
      model: '',
      forks: { ...counts, total: lines.length },
      promptTokens,
      cachedTokens: finalCached,
      outputTokens,
      hitRate: finalCached === null || promptTokens === 0 ? null : finalCached / promptTokens,
      // The theoretical maximum is the engine's, from each call's request: a result line does not carry it.
      efficiency: null,
      theoreticalCachedTokens: 0,
      ...(costUsd !== undefined ? { costUsd } : {}),
      cacheMisses: [...misses.values()],
    },
    forks,
    samples: [],
    live: false,
    details,
  };
}

/** The report's HTML: the page with the snapshot inside it (its own nonce, for its own CSP). */
export function reportHtml(snapshot: RunSnapshot, title: string): string {
  return pageHtml({ title, nonce: randomBytes(16).toString('base64'), snapshot });
}
