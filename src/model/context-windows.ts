import { byModelPrefix } from './by-model.js';
import type { PriceTable } from './prices.js';

/**
 * The most tokens a model takes in one request, by provider kind and model-id prefix (the longest
 * that matches wins), each with the page it was read from and when. A model not listed has no
 * known window: its tasks are never refused for size. A run's own (`prices` / `--prices FILE`, an
 * entry's `contextWindow`) win over these.
 */
export interface ContextWindow {
  tokens: number;
  /** Where the figure comes from, and the date it was read (absent for a window of one's own). */
  source?: string;
  read?: string;
}

const READ = '2026-12-05';
const CLAUDE_PAGES = {
  source:
    'https://platform.claude.com/docs/en/models/sonnet-5/overview ("Context window: 1M tokens"; its table of the current models gives Fable 5.1 and 5.2, Opus 5.5 and Sonnet 5.5 1M)',
  read: READ,
};
const GEMINI_CLOUD = {
  source:
    'https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/guides/gemini-3-8-flash (specifications: context window 1,048,576 for 3.8 Flash, 3.7 Flash and 3.1 Pro)',
  read: READ,
};
const DEEPSEEK_PAGE = {
  source:
    'https://api-docs.deepseek.com/zh-cn/quick_start/pricing ("上下文长度 1M", both models), 1,048,576 as docs.apiyi.com lists deepseek-v4-flash',
  read: READ,
};

const WINDOWS: Readonly<Record<string, Readonly<Record<string, ContextWindow>>>> = {
  anthropic: {
    'claude-fable-5-1': { tokens: 1_000_000, ...CLAUDE_PAGES },
    'claude-fable-5-2': { tokens: 1_000_000, ...CLAUDE_PAGES },
    'claude-opus-5-5': { tokens: 1_000_000, ...CLAUDE_PAGES },
    'claude-sonnet-5': { tokens: 1_000_000, ...CLAUDE_PAGES },
  },
  deepseek: {
    'deepseek-flash': { tokens: 1_048_576, ...DEEPSEEK_PAGE },
    'deepseek-v4-flash': { tokens: 1_048_576, ...DEEPSEEK_PAGE },
    'deepseek-v4-pro': { tokens: 1_048_576, ...DEEPSEEK_PAGE },
  },
  openai: {
    'gpt-5.6-sol': {
      tokens: 1_050_000,
      source:
        'https://vercel.com/ai-gateway/models/openai/gpt-5.6-sol ("Context window: 1,050,000", after https://developers.openai.com/api/docs/models/gpt-5.6-sol)',
      read: READ,
    },
  },
  gemini: {
    'gemini-2.5-pro': {
      tokens: 1_048_576,
      source: 'https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/2-5-pro ("Maximum input tokens: 1,048,576")',
      read: READ,
    },
    'gemini-3.1-pro': { tokens: 1_048_576, ...GEMINI_CLOUD },
    'gemini-3.7-flash': { tokens: 1_048_576, ...GEMINI_CLOUD },
    'gemini-3.8-flash': { tokens: 1_048_576, ...GEMINI_CLOUD },
  },
};

/** A model's context window: the run's own (an entry's `contextWindow`, by the longest id prefix that gives one) over the table's; undefined when neither knows it. */
export function contextWindowOf(provider: string, model: string, own: PriceTable = {}): ContextWindow | undefined {
  const mine = byModelPrefix(
    own,
    model,
    (entry): entry is PriceTable[string] & { contextWindow: number } => entry.contextWindow !== undefined,
  );
  if (mine !== undefined) return { tokens: mine.contextWindow };
  return byModelPrefix(WINDOWS[provider] ?? {}, model);
}
