import type { ForkCacheFigures, RunReport } from '../engine/report.js';
import { answersCut } from '../model/finish.js';
import { NOT_RETAINED_NOTE } from '../engine/run/tally.js';

const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
const num = (x: number): string => x.toLocaleString('en-US');
/** Dollars to the cent, or to 4 significant digits below a cent. */
const usd = (x: number): string => (x >= 0.01 ? x.toFixed(2) : x.toPrecision(4));
/** Cached tokens a provider does not report are unknown, never 0. */
const cached = (x: number | null): string => (x === null ? 'unknown' : num(x));
/** A count and its noun: `1 tool call`, `2 tool calls`. */
const counted = (n: number, noun: string, nouns = `${noun}s`): string => `${num(n)} ${n === 1 ? noun : nouns}`;

/** One fork's row of the table: a run's figures, or what a result line holds (no maximum, no efficiency). */
export type SummaryRow = Pick<ForkCacheFigures, 'id' | 'status' | 'promptTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'sent'> & {
  theoreticalCachedTokens?: number;
  efficiency?: number | null;
  preexistingCachedTokens?: number | null;
  cacheMiss?: { reason: string; tokens: number };
  cut?: { reason: string; raw: string };
};

/** The figures a summary's lines read: a run's report, or the sums of a results file. */
export type SummaryTotals = Pick<
  RunReport,
  | 'forks'
  | 'promptTokens'
  | 'toolUsePromptTokens'
  | 'cachedTokens'
  | 'cacheWriteTokens'
  | 'outputTokens'
  | 'reasoningTokens'
  | 'hitRate'
  | 'cacheMisses'
  | 'cutAnswers'
  | 'failures'
>;

/** Above this many forks, `run`'s text summary has no per-fork table: it would not be read, and its rows would grow with the run. */
export const TABLE_MAX_FORKS = 50;

/**
 * The readable end-of-run summary for --output-format text. `rows`: the per-fork table's, or
 * undefined when the run had more than TABLE_MAX_FORKS forks; `resultsFile`: the result lines went
 * there (--out), one a fork.
 */
export function summaryText(
  report: RunReport,
  providerLabel: string,
  { rows, resultsFile }: { rows: readonly SummaryRow[] | undefined; resultsFile?: string },
): string {
  const preexisting = report.preexistingCachedTokens ?? 0;
  const budget = report.budget;
  const lines = [
    `forkpool run · ${providerLabel} · prefix ${report.prefix.id.slice(0, 12)} (${num(report.prefix.bytes)} bytes, ~${num(report.prefix.tokens)} tokens)`,
    '',
    ...forkTable(rows ?? []),
    forksLine(report),
    `time       ${(report.wallMs / 1000).toFixed(2)} s · ${report.forksPerSecond.toFixed(1)} forks/s · ${counted(report.modelCalls, 'model call')} · ${counted(report.toolCalls, 'tool call')}${report.retries ? ` · ${counted(report.retries, 'retry', 'retries')}` : ''}`,
    tokensLine(report),
    `cache      hit rate ${pct(report.hitRate)} · ${cached(report.cachedTokens)} of ${num(report.theoreticalCachedTokens)} cacheable (efficiency ${pct(report.efficiency)}) · warmup ${report.warmup} · ${report.cache.effective}${report.cache.effective !== report.cache.requested ? ` (asked: ${report.cache.requested})` : ''}`,
    ...(preexisting > 0
      ? [
          `           the cache already held ${num(preexisting)} tokens of this prefix when the run began (an earlier run, or the parent beyond what it was assumed to send): served, not counted in the efficiency`,
        ]
      : []),
    ...(report.cache.note ? [`           ${report.cache.note}`] : []),
    ...missesAndCuts(report),
    ...(report.inputCost
      ? [
          `cost       input ≈ ${pct(report.inputCost.relative)} of an uncached run (${num(report.inputCost.units)} of ${num(report.inputCost.uncachedUnits)} input-token units; reads ${report.inputCost.pricing.read}×, writes ${report.inputCost.pricing.write5m}× (5 min) / ${report.inputCost.pricing.write1h}× (1 h))`,
        ]
      : []),
    ...(report.cost
      ? [
          `cost       $${usd(report.cost.usd)} at ${report.cost.model}'s price${report.cost.read ? ` (read ${report.cost.read})` : ''}${report.cost.uncachedPricedCalls > 0 ? ` · ${num(report.cost.uncachedPricedCalls)} calls priced as uncached: the provider did not report cached tokens` : ''}`,
        ]
      : []),
    ...(report.cache.storage
      ? [
          `storage    ${num(report.cache.storage.tokens)} tokens in ${report.cache.storage.caches} explicit cache${report.cache.storage.caches === 1 ? '' : 's'}, stored ${report.cache.storage.tokenHours.toPrecision(3)} token-hours${report.cache.storage.usd !== undefined ? `: $${usd(report.cache.storage.usd)}, in the cost` : ": not priced (the model's price has no storage rate)"}`,
        ]
      : []),
    ...(budget
      ? [
          `budget     ${num(budget.spentTokens)} tokens spent${budget.maxTokens !== undefined ? ` of ${num(budget.maxTokens)} for the run` : ''}${budget.maxTokensPerFork !== undefined ? ` · at most ${num(budget.maxTokensPerFork)} per fork` : ''}${budget.maxCost !== undefined ? ` · $${usd(budget.spentUsd ?? 0)} of a $${budget.maxCost} cap${(budget.overshootUsd ?? 0) > 0 ? ` (over by $${usd(budget.overshootUsd ?? 0)}: calls in flight)` : ''}` : ''}${budget.stoppedForks > 0 ? ` · ${budget.stoppedForks} fork${budget.stoppedForks === 1 ? '' : 's'} stopped by the budget` : ''}${budget.spent ? ' · run budget spent' : ''}`,
        ]
      : []),
    ...(resultsFile !== undefined
      ? [
          `results    one line per fork in ${resultsFile} (its figures: forkpool report ${resultsFile})${rows === undefined ? `; no table on screen above ${TABLE_MAX_FORKS} forks` : ''}`,
        ]
      : rows === undefined
        ? [
            `per fork   no table on screen above ${TABLE_MAX_FORKS} forks: run with --out FILE for one result line per fork, then forkpool report FILE`,
          ]
        : []),
    ...report.notes.filter((n) => n !== NOT_RETAINED_NOTE).map((n) => `note       ${n}`),
    ...failureLines(report),
  ];
  return lines.join('\n');
}

/** The table of forks (at most TABLE_MAX_FORKS rows shown) and a blank line after it; nothing without rows. */
export function forkTable(forks: readonly SummaryRow[]): string[] {
  if (forks.length === 0) return [];
  // The column of what the cache held before the run is there only when it held something.
  const held = forks.some((f) => (f.preexistingCachedTokens ?? 0) > 0);
  // The maximum and the efficiency: a run knows them, a result line does not hold them.
  const maxima = forks.some((f) => f.theoreticalCachedTokens !== undefined);
  // The column of why a fork missed is there only when one did.
  const missed = forks.some((f) => f.cacheMiss !== undefined);
  // What each fork sent, when some named the parent's stored response (the others re-sent everything).
  const stored = forks.some((f) => f.sent !== undefined);
  // Cache writes, where the provider reports them; why an answer is not whole, when one is not.
  const wrote = forks.some((f) => f.cacheWriteTokens !== undefined);
  const cut = forks.some((f) => f.cut !== undefined);
  const rows = forks.map((f) => [
    f.id,
    f.status,
    num(f.promptTokens),
    cached(f.cachedTokens),
    ...(wrote ? [f.cacheWriteTokens === undefined ? '' : num(f.cacheWriteTokens)] : []),
    ...(held ? [cached(f.preexistingCachedTokens ?? null)] : []),
    ...(maxima ? [f.theoreticalCachedTokens === undefined ? '' : num(f.theoreticalCachedTokens), pct(f.efficiency ?? null)] : []),
    ...(stored
      ? [f.sent ? `${num(f.sent.items)} item${f.sent.items === 1 ? '' : 's'} after ${f.sent.storedResponse}` : 'the conversation']
      : []),
    ...(missed ? [f.cacheMiss ? `${f.cacheMiss.reason} (${num(f.cacheMiss.tokens)})` : ''] : []),
    ...(cut ? [f.cut ? `${f.cut.reason} (${f.cut.raw})` : ''] : []),
  ]);
  const header = [
    'fork',
    'status',
    'prompt',
    'cached',
    ...(wrote ? ['written'] : []),
    ...(held ? ['held before'] : []),
    ...(maxima ? ['max cacheable', 'efficiency'] : []),
    ...(stored ? ['sent'] : []),
    ...(missed ? ['missed'] : []),
    ...(cut ? ['answer cut'] : []),
  ];
  // Words, not figures: left-aligned.
  const words = new Set([...(missed ? [header.indexOf('missed')] : []), ...(cut ? [header.indexOf('answer cut')] : [])]);
  return [...table([header, ...rows], forks.length > TABLE_MAX_FORKS ? TABLE_MAX_FORKS : undefined, words), ''];
}

/** How many forks ended how, of every task of the input or (a stream stopped before its end) of those taken: never a total not known. */
export function forksLine(t: SummaryTotals): string {
  return `forks      ${num(t.forks.completed)} completed, ${num(t.forks.failed)} failed, ${num(t.forks.cancelled)} cancelled of ${num(t.forks.total)}${t.forks.totalKnown ? '' : ' taken (the rest was not read)'}`;
}

export function tokensLine(t: SummaryTotals): string {
  return `tokens     ${num(t.promptTokens)} prompt${t.toolUsePromptTokens !== undefined ? ` (+${num(t.toolUsePromptTokens)} tool-use input)` : ''} · ${cached(t.cachedTokens)} cached${t.cacheWriteTokens !== undefined ? ` · ${num(t.cacheWriteTokens)} written to the cache` : ''} · ${num(t.outputTokens)} output${t.reasoningTokens !== undefined ? ` (${num(t.reasoningTokens)} reasoning)` : ''}`;
}

/** The cache misses and the answers cut, by reason, when there are any. */
export function missesAndCuts(t: SummaryTotals): string[] {
  return [
    ...(t.cacheMisses.length > 0
      ? [
          `misses     ${t.cacheMisses.map((m) => `${m.reason} ${counted(m.forks, 'fork')} (${num(m.tokens)} tokens)`).join(' · ')}: first calls served less than their siblings share`,
        ]
      : []),
    ...(t.cutAnswers.length > 0
      ? [
          `cut        ${t.cutAnswers.map((c) => `${answersCut(c.forks, c.reason)} (${c.raw.join(', ')})`).join(' · ')}: the text that came is kept, not a whole answer`,
        ]
      : []),
  ];
}

/** The first 20 forks that did not complete, each with why. */
export function failureLines(t: SummaryTotals): string[] {
  return t.failures.slice(0, 20).map((f) => `${f.status.padEnd(10)} ${f.id}: ${f.kind}: ${f.message}`);
}

export { pct, num, cached, usd, counted };

/** Names and words to the left (the first two columns, and `textColumns`), figures to the right. */
function table(rows: string[][], limit: number | undefined, textColumns: ReadonlySet<number>): string[] {
  const shown = limit !== undefined && rows.length > limit + 1 ? rows.slice(0, limit + 1) : rows;
  const widths = shown[0]?.map((_, c) => Math.max(...shown.map((r) => (r[c] ?? '').length))) ?? [];
  const out = shown.map((r) =>
    r
      .map((cell, c) => (c < 2 || textColumns.has(c) ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  if (shown.length < rows.length) out.push(`… and ${counted(rows.length - shown.length, 'more fork')}`);
  return out;
}
