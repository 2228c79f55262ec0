import { z } from 'zod';
import { byModelPrefix } from './by-model.js';
import type { TokenUsage } from './types.js';

/*
 * What a model call costs in US dollars: a price per provider and model, each with the page it was
 * read from and when. Prices change; a run's own (`prices`, `--prices FILE`) win over these, and a
 * model with no price has no cost (the report says so) rather than a guessed one.
 */

const usdPerMillion = z.number().nonnegative();

/** US dollars per million tokens. `cacheWrite1h`: Anthropic's 1-hour writes; other providers' writes are `cacheWrite`. */
const RATES = {
  input: usdPerMillion,
  cachedInput: usdPerMillion,
  cacheWrite: usdPerMillion.optional(),
  cacheWrite1h: usdPerMillion.optional(),
  output: usdPerMillion,
};

/** A model's rates for the calls whose prompt is over `above` tokens (Gemini's "prompts > 200k tokens"). */
const TierSchema = z.strictObject({ above: z.number().int().positive(), ...RATES });
type PriceTier = z.infer<typeof TierSchema>;

const ModelPriceSchema = z.strictObject({
  ...RATES,
  /** Higher rates for larger prompts: each call is priced at the tier of its own prompt. */
  tiers: z.array(TierSchema).min(1).optional(),
  /** Explicit caches (Gemini's cachedContents): USD per million cached tokens per hour they are stored. */
  cacheStoragePerHour: usdPerMillion.optional(),
  /** Where the figures come from, and the date they were read. */
  source: z.string().min(1).optional(),
  read: z.string().min(1).optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

const PRICE_FIELDS = ['input', 'cachedInput', 'output'] as const;

/**
 * One model's entry in a run's own table: a price, a context window, or both. A price names all of
 * input, cachedInput and output (a field left out would price as free).
 */
const ModelEntrySchema = ModelPriceSchema.partial({ input: true, cachedInput: true, output: true })
  .extend({ contextWindow: z.number().int().positive().optional() })
  .superRefine((entry, ctx) => {
    const { contextWindow, ...price } = entry;
    const pricing = Object.keys(price).some((key) => key !== 'source' && key !== 'read');
    if (!pricing && contextWindow === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'an entry gives a price ({ "input", "cachedInput", "output" }) or a "contextWindow", or both',
      });
      return;
    }
    for (const field of PRICE_FIELDS) {
      if (pricing && price[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'required: a price gives input, cachedInput and output' });
    }
  });
type ModelEntry = z.infer<typeof ModelEntrySchema>;

/** A run's own prices and context windows: model id (or id prefix) → entry, over the tables forkpool has. */
export const PriceTableSchema = z.record(z.string().min(1), ModelEntrySchema);
export type PriceTable = z.infer<typeof PriceTableSchema>;

const ANTHROPIC = { source: 'https://platform.claude.com/docs/en/about-claude/pricing', read: '2026-12-02' };
const DEEPSEEK = { source: 'https://api-docs.deepseek.com/quick_start/pricing (peak hours; off-peak is half)', read: '2026-12-02' };
const OPENAI = {
  source:
    "https://developers.openai.com/api/docs/pricing, as transcribed by third parties (OpenAI's page was not readable here); writes 1.25× input per the prompt caching guide",
  read: '2026-12-02',
};
const OPENAI_LONG = {
  source:
    "https://developers.openai.com/api/docs/pricing (Standard, short and long context), in a recorded excerpt of the page fetched 2026-09-20 (a public price checker's test fixture); long context from 272K tokens as the page's gpt-5.5-pro row gives it",
  read: '2026-12-05',
};
const GEMINI_PAGE = 'https://ai.google.dev/gemini-api/docs/pricing (Standard, paid tier)';
/** Gemini's rows as the pricing page was recorded on 2026-09-20 (a price checker's fixture of the live markup) and quoted on 2026-09-23. */
const GEMINI_RECORDED = { source: `${GEMINI_PAGE}, recorded 2026-09-20 and 2026-09-23 by third parties`, read: '2026-12-05' };
/** Flash rows the stored copies of the page do not hold whole: each figure's transcription named. */
const GEMINI_3_1_PRO = {
  source: `${GEMINI_PAGE}: input and output as transcribed verbatim 2026-10-07 (api-evangelist); cache reads $0.20 / $0.40 above 200k as the page gave them for Gemini 3 Pro (discuss.ai.google.dev); storage not found`,
  read: '2026-12-05',
};
const GEMINI_3_FLASH = { source: `${GEMINI_PAGE}, quoted 2026-07-04 (factquire.com); storage not found`, read: '2026-12-05' };
const GEMINI_3_5_FLASH = {
  source: `${GEMINI_PAGE}: input and output as transcribed verbatim 2026-10-07 (api-evangelist); cache reads $0.15 per wowhow.cloud's guide; storage not found`,
  read: '2026-12-05',
};
const GEMINI_3_8_FLASH = {
  source: `${GEMINI_PAGE}: input and output as transcribed verbatim 2026-10-07 (api-evangelist), cache reads as quoted 2026-09-23; storage not found`,
  read: '2026-12-05',
};

/** A price that changes on a date: `price` through `until` (UTC, inclusive), `after` from the next day. */
interface DatedPrice {
  until: string;
  price: ModelPrice;
  after: ModelPrice;
}

/**
 * By provider kind, then model-id prefix (the longest that matches wins). Anthropic: input, 5-minute
 * write, 1-hour write, cache read, output, as its pricing table lists them. DeepSeek: cache hit, cache
 * miss and output at peak-hour rates. OpenAI from GPT-5.6 on: writes at 1.25× input ("cache writes
 * cost 1.25× the uncached input token rate"). Gemini: the paid tier's text rates, a tier above 200k
 * prompt tokens where the page gives one, and explicit-cache storage where it was found. Models left
 * out for want of a figure (docs/prices.md lists them) have no price rather than a guessed one.
 */
const TABLE: Readonly<Record<string, Readonly<Record<string, ModelPrice | DatedPrice>>>> = {
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
    'gpt-5.6-terra': {
      input: 2,
      cachedInput: 0.2,
      cacheWrite: 2.5,
      output: 12,
      tiers: [{ above: 272_000, input: 4, cachedInput: 0.4, cacheWrite: 5, output: 18 }],
      ...OPENAI_LONG,
    },
    'gpt-5.6-luna': { input: 0.2, cachedInput: 0.02, cacheWrite: 0.25, output: 1.2, ...OPENAI },
    'gpt-6-sol': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10, ...OPENAI },
    'gpt-6-luna': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.125, output: 0.5, ...OPENAI },
    'gpt-6.1-terra': { input: 1, cachedInput: 0.05, cacheWrite: 1.25, output: 5, ...OPENAI },
  },
  gemini: {
    'gemini-2.5-pro': {
      input: 1.25,
      cachedInput: 0.125,
      output: 10,
      tiers: [{ above: 200_000, input: 2.5, cachedInput: 0.25, output: 15 }],
      cacheStoragePerHour: 4.5,
      ...GEMINI_RECORDED,
    },
    'gemini-2.5-flash': { input: 0.3, cachedInput: 0.03, output: 2.5, cacheStoragePerHour: 1, ...GEMINI_RECORDED },
    'gemini-2.5-flash-lite': { input: 0.1, cachedInput: 0.01, output: 0.4, cacheStoragePerHour: 1, ...GEMINI_RECORDED },
    'gemini-3.1-pro': {
      input: 2,
      cachedInput: 0.2,
      output: 12,
      tiers: [{ above: 200_000, input: 4, cachedInput: 0.4, output: 18 }],
      ...GEMINI_3_1_PRO,
    },
    'gemini-3-flash': { input: 0.5, cachedInput: 0.05, output: 3, ...GEMINI_3_FLASH },
    'gemini-3.5-flash': { input: 1.5, cachedInput: 0.15, output: 9, ...GEMINI_3_5_FLASH },
    // Launch prices through 2026-12-31, the page's own dates.
    'gemini-3.6-flash': {
      until: '2026-12-31',
      price: { input: 0.75, cachedInput: 0.075, output: 3.75, cacheStoragePerHour: 0.5, ...GEMINI_RECORDED },
      after: { input: 1.5, cachedInput: 0.15, output: 7.5, cacheStoragePerHour: 1, ...GEMINI_RECORDED },
    },
    'gemini-3.8-flash': {
      until: '2026-12-31',
      price: { input: 0.75, cachedInput: 0.075, output: 3.75, ...GEMINI_3_8_FLASH },
      after: { input: 1.5, cachedInput: 0.15, output: 7.5, ...GEMINI_3_8_FLASH },
    },
  },
};

/**
 * The price of a model on a day: the run's own (by the longest matching id prefix that gives a
 * price) over the table's for its provider; undefined when neither has one.
 */
export function priceOf(provider: string, model: string, own: PriceTable = {}, at: Date = new Date()): ModelPrice | undefined {
  const mine = byModelPrefix(own, model, hasPrice);
  if (mine !== undefined) return mine;
  const listed = byModelPrefix(TABLE[provider] ?? {}, model);
  if (listed === undefined || !('until' in listed)) return listed;
  return at.toISOString().slice(0, 10) <= listed.until ? listed.price : listed.after;
}

function hasPrice(entry: ModelEntry): entry is ModelPrice & ModelEntry {
  return entry.input !== undefined && entry.cachedInput !== undefined && entry.output !== undefined;
}

/** The rates a call is billed at: the tier of its prompt's size (the highest `above` under it), else the base rates. */
function ratesFor(price: ModelPrice, promptTokens: number): Omit<PriceTier, 'above'> {
  let tier: PriceTier | undefined;
  for (const t of price.tiers ?? []) if (promptTokens > t.above && (tier === undefined || t.above > tier.above)) tier = t;
  return tier ?? price;
}

/**
 * What one call cost, in dollars, at the rates of its prompt's tier; `cachedUnknown`: cached tokens
 * were not reported, so input was priced as uncached. Tiers make a sum of calls cost more than its
 * calls did apart: price each call, then add (costOfCalls).
 */
export function costOf(usage: TokenUsage, price: ModelPrice): { usd: number; cachedUnknown: boolean } {
  const rates = ratesFor(price, usage.promptTokens);
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const written1h = Math.min(written, usage.cacheWrite1hTokens ?? 0);
  // Input billed beyond the prompt (Gemini's tool-use prompt) is priced as uncached input.
  const uncached = Math.max(0, usage.promptTokens - cached - written) + (usage.toolUsePromptTokens ?? 0);
  const write = rates.cacheWrite ?? rates.input;
  const usd =
    (uncached * rates.input +
      cached * rates.cachedInput +
      (written - written1h) * write +
      written1h * (rates.cacheWrite1h ?? write) +
      usage.outputTokens * rates.output) /
    1e6;
  return { usd, cachedUnknown: usage.cachedTokens === null };
}

/** What some calls cost together: each at its own tier, summed. */
export function costOfCalls(calls: readonly TokenUsage[], price: ModelPrice): number {
  let usd = 0;
  for (const call of calls) usd += costOf(call, price).usd;
  return usd;
}

/** What storing explicit caches cost: `tokenHours` cached tokens × hours stored, at the price's storage rate; undefined without one. */
export function storageCostOf(tokenHours: number, price: ModelPrice): number | undefined {
  return price.cacheStoragePerHour === undefined ? undefined : (tokenHours * price.cacheStoragePerHour) / 1e6;
}
