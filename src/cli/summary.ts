import type { RunReport } from '../engine/report.js';
import { answersCut } from '../model/finish.js';

const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
const num = (x: number): string => x.toLocaleString('en-US');
/** Dollars to the cent, or to 4 significant digits below a cent. */
const usd = (x: number): string => (x >= 0.01 ? x.toFixed(2) : x.toPrecision(4));
/** Cached tokens a provider does not report are unknown, never 0. */
const cached = (x: number | null): string => (x === null ? 'unknown' : num(x));

/** The readable end-of-run summary for --output-format text. */
export function summaryText(report: RunReport, providerLabel: string): string {
  // The column of what the cache held before the run is there only when it held something.
  const held = report.perFork.some((f) => (f.preexistingCachedTokens ?? 0) > 0);
  // The column of why a fork missed is there only when one did.
  const missed = report.perFork.some((f) => f.cacheMiss !== undefined);
  // What each fork sent, when some named the parent's stored response (the others re-sent everything).
  const stored = report.perFork.some((f) => f.sent !== undefined);
  // Cache writes, where the provider reports them; why an answer is not whole, when one is not.
  const wrote = report.perFork.some((f) => f.cacheWriteTokens !== undefined);
  const cut = report.perFork.some((f) => f.cut !== undefined);
  const rows = report.perFork.map((f) => [
    f.id,
    f.status,
    num(f.promptTokens),
    cached(f.cachedTokens),
    ...(wrote ? [f.cacheWriteTokens === undefined ? '' : num(f.cacheWriteTokens)] : []),
    ...(held ? [cached(f.preexistingCachedTokens)] : []),
    num(f.theoreticalCachedTokens),
    pct(f.efficiency),
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
    'max cacheable',
    'efficiency',
    ...(stored ? ['sent'] : []),
    ...(missed ? ['missed'] : []),
    ...(cut ? ['answer cut'] : []),
  ];
  // Words, not figures: left-aligned.
  const words = new Set([...(missed ? [header.indexOf('missed')] : []), ...(cut ? [header.indexOf('answer cut')] : [])]);
  const preexisting = report.preexistingCachedTokens ?? 0;
  const budget = report.budget;
  const lines = [
    `forkpool run · ${providerLabel} · prefix ${report.prefix.id.slice(0, 12)} (${num(report.prefix.bytes)} bytes, ~${num(report.prefix.tokens)} tokens)`,
    '',
    // Without retained results (a run streaming to --out) there are no rows: they are in the file.
    ...(rows.length > 0 ? [...table([header, ...rows], report.perFork.length > 40 ? 40 : undefined, words), ''] : []),
    // Of every task of the input, or (a stream stopped before its end) of those taken: never a total not known.
    `forks      ${report.forks.completed} completed, ${report.forks.failed} failed, ${report.forks.cancelled} cancelled of ${report.forks.total}${report.forks.totalKnown ? '' : ' taken (the rest was not read)'}`,
    `time       ${(report.wallMs / 1000).toFixed(2)} s · ${report.forksPerSecond.toFixed(1)} forks/s · ${report.modelCalls} model calls · ${report.toolCalls} tool calls${report.retries ? ` · ${report.retries} retries` : ''}`,
    `tokens     ${num(report.promptTokens)} prompt${report.toolUsePromptTokens !== undefined ? ` (+${num(report.toolUsePromptTokens)} tool-use input)` : ''} · ${cached(report.cachedTokens)} cached${report.cacheWriteTokens !== undefined ? ` · ${num(report.cacheWriteTokens)} written to the cache` : ''} · ${num(report.outputTokens)} output${report.reasoningTokens !== undefined ? ` (${num(report.reasoningTokens)} reasoning)` : ''}`,
    `cache      hit rate ${pct(report.hitRate)} · ${cached(report.cachedTokens)} of ${num(report.theoreticalCachedTokens)} cacheable (efficiency ${pct(report.efficiency)}) · warmup ${report.warmup} · ${report.cache.effective}${report.cache.effective !== report.cache.requested ? ` (asked: ${report.cache.requested})` : ''}`,
    ...(preexisting > 0
      ? [
          `           the cache already held ${num(preexisting)} tokens of this prefix when the run began (an earlier run, or the parent beyond what it was assumed to send): served, not counted in the efficiency`,
        ]
      : []),
    ...(report.cache.note ? [`           ${report.cache.note}`] : []),
    ...(report.cacheMisses.length > 0
      ? [
          `misses     ${report.cacheMisses.map((m) => `${m.reason} ${m.forks} fork${m.forks === 1 ? '' : 's'} (${num(m.tokens)} tokens)`).join(' · ')}: first calls served less than their siblings share`,
        ]
      : []),
    ...(report.cutAnswers.length > 0
      ? [
          `cut        ${report.cutAnswers.map((c) => `${answersCut(c.forks, c.reason)} (${c.raw.join(', ')})`).join(' · ')}: the text that came is kept, not a whole answer`,
        ]
      : []),
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
    ...report.notes.map((n) => `note       ${n}`),
    ...report.failures.slice(0, 20).map((f) => `${f.status.padEnd(10)} ${f.id}: ${f.kind}: ${f.message}`),
  ];
  return lines.join('\n');
}

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
  if (shown.length < rows.length) out.push(`… and ${rows.length - shown.length} more forks`);
  return out;
}
