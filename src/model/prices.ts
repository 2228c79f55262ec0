import { z } from 'zod';
import type { TokenUsage } from './types.js';

/*
 * What a model call costs in US dollars: a price per provider and model, each with the page it was
 * read from and when. Prices change; a run's own (`prices`, `--prices FILE`) win over these, and a
 * model with no price has no cost (the report says so) rather than a guessed one.
 */

/** US dollars per million tokens. `cacheWrite1h`: Anthropic's 1-hour writes; other providers' writes are `cacheWrite`. */
const ModelPriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  cachedInput: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative().optional(),
  cacheWrite1h: z.number().nonnegative().optional(),
  output: z.number().nonnegative(),
  /** Where the figures come from, and the date they were read. */
  source: z.string().min(1).optional(),
  read: z.string().min(1).optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** A run's own prices: model id (or id prefix) → price, over the table below. */
export const PriceTableSchema = z.record(z.string().min(1), ModelPriceSchema);
export type PriceTable = z.infer<typeof PriceTableSchema>;

const ANTHROPIC = { source: 'https://platform.claude.com/docs/en/about-claude/pricing', read: '2026-12-02' };
const DEEPSEEK = { source: 'https://api-docs.deepseek.com/quick_start/pricing (peak hours; off-peak is half)', read: '2026-12-02' };
const OPENAI = { source: "https://developers.openai.com/api/docs/pricing, as transcribed by third parties (OpenAI's page was not readable here); writes 1.25× input per the prompt caching guide", read: '2026-12-02' };
const GEMINI = { source: 'https://ai.google.dev/gemini-api/docs/pricing (prompts up to 200k tokens)', read: '2026-12-02' };

/**
 * By provider kind, then model-id prefix (the longest that matches wins). Anthropic: input, 5-minute
 * write, 1-hour write, cache read, output, as its pricing table lists them. DeepSeek: cache hit, cache
 * miss and output at peak-hour rates. OpenAI from GPT-5.6 on: writes at 1.25× input ("cache writes
 * cost 1.25× the uncached input token rate"). Gemini: the paid tier.
 */
const TABLE: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = {
  anthropic: {
    'claude-fable-5-1': { input: 10, cacheWrite: 12.5, cacheWrite1h: 20, cachedInput: 0.25, output: 50, ...ANTHROPIC },
    'claude-mythos-5-1': { input: 10, cacheWrite: 12.5, cacheWrite1h: 20, cachedInput: 0.25, output: 50, ...ANTHROPIC },
    'claude-fable-5': { input: 10, cacheWrite: 12.5, cacheWrite1h: 20, cachedInput: 1, output: 50, ...ANTHROPIC },
    'claude-mythos-5': { input: 10, cacheWrite: 12.5, cacheWrite1h: 20, cachedInput: 1, output: 50, ...ANTHROPIC },
    'claude-opus-5-5': { input: 4, cacheWrite: 5, cacheWrite1h: 8, cachedInput: 0.2, output: 20, ...ANTHROPIC },
    'claude-opus-5': { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25, ...ANTHROPIC },
    'claude-opus-4-8': { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25, ...ANTHROPIC },
    'claude-opus-4-7': { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25, ...ANTHROPIC },
    'claude-opus-4-6': { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25, ...ANTHROPIC },
    'claude-opus-4-5': { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25, ...ANTHROPIC },
    'claude-sonnet-5-5': { input: 2, cacheWrite: 2.5, cacheWrite1h: 4, cachedInput: 0.1, output: 10, ...ANTHROPIC },
    'claude-sonnet-5': { input: 2, cacheWrite: 2.5, cacheWrite1h: 4, cachedInput: 0.2, output: 10, ...ANTHROPIC },
    'claude-sonnet-4-6': { input: 3, cacheWrite: 3.75, cacheWrite1h: 6, cachedInput: 0.3, output: 15, ...ANTHROPIC },
    'claude-sonnet-4-5': { input: 3, cacheWrite: 3.75, cacheWrite1h: 6, cachedInput: 0.3, output: 15, ...ANTHROPIC },
    'claude-haiku-5-5': { input: 0.1, cacheWrite: 0.125, cacheWrite1h: 0.2, cachedInput: 0.01, output: 0.5, ...ANTHROPIC },
    'claude-haiku-4-5': { input: 1, cacheWrite: 1.25, cacheWrite1h: 2, cachedInput: 0.1, output: 5, ...ANTHROPIC },
  },
  deepseek: {
    'deepseek-flash': { input: 0.3, cachedInput: 0.006, output: 1.2, ...DEEPSEEK },
    'deepseek-v4-flash': { input: 0.3, cachedInput: 0.006, output: 1.2, ...DEEPSEEK },
    'deepseek-v4-pro': { input: 1.32, cachedInput: 0.044, output: 3.96, ...DEEPSEEK },
  },
  openai: {
    'gpt-5.6-sol': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 30, ...OPENAI },
    'gpt-5.6-terra': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 12, ...OPENAI },
    'gpt-5.6-luna': { input: 0.2, cachedInput: 0.02, cacheWrite: 0.25, output: 1.2, ...OPENAI },
    'gpt-6-sol': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10, ...OPENAI },
    'gpt-6-luna': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.125, output: 0.5, ...OPENAI },
    'gpt-6.1-terra': { input: 1, cachedInput: 0.05, cacheWrite: 1.25, output: 5, ...OPENAI },
  },
  gemini: {
    'gemini-2.5-pro': { input: 1.25, cachedInput: 0.125, output: 10, ...GEMINI },
  },
};

/** The price of a model: the run's own (by the longest matching id prefix) over the table's for its provider; undefined when neither has one. */
export function priceOf(provider: string, model: string, own: PriceTable = {}): ModelPrice | undefined {
  return byModelPrefix(own, model) ?? byModelPrefix(TABLE[provider] ?? {}, model);
}

/** A per-model table's entry for a model id: the longest key the id starts with (Gemini's `models/` prefix ignored); undefined when none does. */
export function byModelPrefix<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const id = model.replace(/^models\//, '');
  let best: string | undefined;
  for (const key of Object.keys(table)) if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : table[best];
}

/** What one call (or a fork's calls summed) cost, in dollars; `cachedUnknown`: cached tokens were not reported, so input was priced as uncached. */
export function costOf(usage: TokenUsage, price: ModelPrice): { usd: number; cachedUnknown: boolean } {
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const written1h = Math.min(written, usage.cacheWrite1hTokens ?? 0);
  // Input billed beyond the prompt (Gemini's tool-use prompt) is priced as uncached input.
  const uncached = Math.max(0, usage.promptTokens - cached - written) + (usage.toolUsePromptTokens ?? 0);
  const write = price.cacheWrite ?? price.input;
  const usd =
    (uncached * price.input + cached * price.cachedInput + (written - written1h) * write + written1h * (price.cacheWrite1h ?? write) + usage.outputTokens * price.output) / 1e6;
  return { usd, cachedUnknown: usage.cachedTokens === null };
}
