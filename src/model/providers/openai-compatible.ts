import { createOpenAIChatProvider } from '../openai-chat.js';
import { createOpenAIResponsesProvider } from '../openai-responses.js';
import { loadOpenAI } from '../openai-sdk.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';
import { CHAT_PRESETS, DASHSCOPE_MARKER_MIN_TOKENS, resolveChatEndpoint, type ChatPreset, type ChatProviderKind } from '../presets.js';
import { CHAT_MARKS } from '../../shapes/openai-chat/breakpoints.js';
import { type BreakpointMarks, implicitBreakpointAt, takesCacheBreakpoints } from '../../shapes/openai-breakpoints.js';
import type { ChatMessage } from '../../shapes/openai-chat/schema.js';
import { RESPONSES_MARKS } from '../../shapes/openai-responses/breakpoints.js';
import { sessionMessages } from '../../shapes/registry.js';
import type { ResponsesItemLike } from '../types.js';
import type { ProviderConfig } from '../types.js';

/** What a Chat Completions provider's plan is made of besides its preset's figures. */
interface ChatCacheRules {
  /** Requests carry `prompt_cache_key` (OpenAI). */
  cacheKey: boolean;
  /** `cache: 'explicit'` marks the last shared message with cache_control (DashScope). */
  markers: boolean;
  /** OpenAI's models from GPT-5.6 on cache exactly at breakpoints: forks place theirs (the simulator follows OpenAI). */
  breakpoints: boolean;
}

/** A server with no address of its own (vLLM, SGLang): the option must give one. */
function needsBaseUrl(option: Readonly<Record<string, unknown>>): void {
  if (option.baseUrl === undefined) {
    throw new TypeError(
      "ForkEngine: options.provider { kind: 'openai-compatible' } needs baseUrl (the server's Chat Completions base URL, e.g. http://localhost:8000/v1)",
    );
  }
}

/**
 * A Chat Completions session's plan. OpenAI routes a run's requests to one cache by key; DashScope's
 * explicit cache is a marker that the first fork's request writes once its response has ended;
 * every other provider matches prefixes on its own.
 */
export function chatPlan(provider: string, preset: ChatPreset, input: PlanInput, rules: ChatCacheRules): CachePlan {
  const marker = rules.markers && input.cache === 'explicit' && input.role === 'forks';
  const o = input.overrides;
  const session = input.session as { model?: unknown; messages?: readonly ChatMessage[]; prompt_cache_retention?: unknown };
  const { atBreakpoints, placed, closesHistory, unmarked } = breakpointRules(rules.breakpoints, input, CHAT_MARKS, session.messages ?? []);
  const key = rules.cacheKey ? { key: input.cacheKey } : {};
  return {
    provider,
    shape: 'openai-chat',
    request: marker
      ? { mechanism: 'marker' }
      : placed
        ? { mechanism: 'cache-key', ...key, breakpoints: { parentWarm: input.parentWarm } }
        : rules.cacheKey
          ? { mechanism: 'cache-key', key: input.cacheKey }
          : { mechanism: 'none' },
    explicit: false,
    // A marked entry is written after the response (DashScope: "after model response"): the first fork's to write, even after the parent's own request.
    readable: {
      after: marker ? 'response-end' : 'response-start',
      buildMs: o.cacheBuildMs ?? preset.cacheBuildMs,
      required: false,
      fromParent: !marker,
      // DeepSeek: the first fork's units end at its own directive; the second's request makes the unit at the prefix both share.
      ...(preset.prefixUnitTokens !== undefined ? { leads: 2 } : {}),
    },
    rules: {
      // DashScope's explicit markers have a minimum of their own ("at least 1024 tokens").
      minCacheTokens:
        o.minCacheTokens ?? (rules.markers && input.cache === 'explicit' ? DASHSCOPE_MARKER_MIN_TOKENS : (preset.cacheMinTokens ?? 0)),
      // GPT-5.6 and later: "the boundary is not rounded to a token block".
      cacheBlockTokens: o.cacheBlockTokens ?? (atBreakpoints ? 1 : (preset.cacheBlockTokens ?? 1)),
      toMarkerOnly: marker || closesHistory,
      ...entryTtl(marker, atBreakpoints, preset, session),
      ...(preset.prefixUnitTokens !== undefined ? { prefixUnits: { intervalTokens: preset.prefixUnitTokens } } : {}),
      ...(unmarked ? { unmarked: true } : {}),
    },
    effective: marker ? 'explicit' : input.cache === 'off' ? 'off' : 'implicit',
    ...(marker
      ? { note: 'DashScope explicit cache: each request marks the last shared message with cache_control; the first fork writes the entry' }
      : placed
        ? {
            note: `OpenAI ${session.model as string}: the cache is exact at breakpoints; each fork's request marks the end of what every fork shares${input.parentWarm ? " and the parent's last user or tool message" : ''} (prompt_cache_breakpoint)`,
          }
        : input.cache === 'explicit'
          ? {
              note: "explicit cache fell back to implicit: of the Chat Completions providers only DashScope takes cache_control markers (Gemini's cachedContents need a Gemini session)",
            }
          : {}),
  };
}

/**
 * A Responses session's plan (OpenAI, and the simulator standing in for it): the run's key routes
 * every request to one cache (`prompt_cache_key`), an entry is readable once the response has begun,
 * and the maximum follows OpenAI's rules (1,024 tokens, steps of 128; from GPT-5.6 on, exact at the
 * breakpoints each fork places, as on Chat Completions). With an explicit cache and the parent's
 * stored response named, forks that hold its conversation name it instead of re-sending it.
 */
export function responsesPlan(
  provider: string,
  preset: ChatPreset,
  input: PlanInput,
  rules: Pick<ChatCacheRules, 'cacheKey' | 'breakpoints'>,
): CachePlan {
  const o = input.overrides;
  const session = input.session as { model?: unknown; prompt_cache_retention?: unknown };
  const key = rules.cacheKey && input.cacheKey !== undefined ? { key: input.cacheKey } : {};
  const stored = input.cache === 'explicit' && input.role === 'forks' ? input.storedResponse : undefined;
  const { atBreakpoints, placed, closesHistory, unmarked } = breakpointRules(
    rules.breakpoints,
    input,
    RESPONSES_MARKS,
    sessionMessages(input.session) as readonly ResponsesItemLike[],
  );
  // Forks that cannot name the stored response re-send the conversation: they place breakpoints too.
  const breakpoints = placed ? { breakpoints: { parentWarm: input.parentWarm } } : {};
  return {
    provider,
    shape: 'openai-responses',
    request:
      stored !== undefined
        ? { mechanism: 'stored-response', responseId: stored, ...key, ...breakpoints }
        : placed
          ? { mechanism: 'cache-key', ...key, ...breakpoints }
          : rules.cacheKey
            ? { mechanism: 'cache-key', ...key }
            : { mechanism: 'none' },
    explicit: false,
    readable: { after: 'response-start', buildMs: o.cacheBuildMs ?? preset.cacheBuildMs, required: false, fromParent: true },
    rules: {
      minCacheTokens: o.minCacheTokens ?? preset.cacheMinTokens ?? 0,
      cacheBlockTokens: o.cacheBlockTokens ?? (atBreakpoints ? 1 : (preset.cacheBlockTokens ?? 1)),
      toMarkerOnly: closesHistory,
      ...entryTtl(false, atBreakpoints, preset, session),
      ...(unmarked ? { unmarked: true } : {}),
    },
    effective: stored !== undefined ? 'explicit' : input.cache === 'off' ? 'off' : 'implicit',
    ...(stored !== undefined
      ? {
          note: `each fork that holds the parent's conversation unchanged names its stored response ${stored} (previous_response_id) and sends its own items, with the instructions, tools and settings a named response does not carry over; OpenAI's prompt cache serves the conversation the response holds`,
        }
      : placed
        ? {
            note: `OpenAI ${session.model as string}: the cache is exact at breakpoints; each fork's request marks the end of what every fork shares${input.parentWarm ? " and the parent's last user message or function output" : ''} (prompt_cache_breakpoint)`,
          }
        : input.cache === 'explicit' && input.role === 'forks'
          ? {
              note: "explicit cache fell back to implicit: no stored response of the parent's was named (storedResponse, --previous-response), so forks of a Responses session re-send the conversation",
            }
          : input.storedResponse !== undefined && input.role === 'forks'
            ? {
                note: `the stored response ${input.storedResponse} was not named: forks name one with cache: 'explicit' only, and re-send the conversation`,
              }
            : {}),
  };
}

/**
 * OpenAI's breakpoints (GPT-5.6 and later), for either shape: whether the model caches at them,
 * whether the forks place them (not with the cache off: then they are `unmarked`, and cache
 * nothing at the end of what they share), and whether the one they place closes the shared history
 * (it ends on input; after the model's own message it goes after the child message's opening).
 */
function breakpointRules<M>(enabled: boolean, input: PlanInput, marks: BreakpointMarks<M>, messages: readonly M[]) {
  const model = (input.session as { model?: unknown }).model;
  const atBreakpoints = enabled && typeof model === 'string' && takesCacheBreakpoints(model);
  const placed = atBreakpoints && input.role === 'forks' && input.cache !== 'off';
  const closesHistory = placed && implicitBreakpointAt(marks, messages) === messages.length - 1;
  return { atBreakpoints, placed, closesHistory, unmarked: atBreakpoints && !placed && input.role === 'forks' };
}

/** How long an unused entry lasts, where it is documented: DashScope's marked entries, OpenAI's by model and retention. */
function entryTtl(
  marker: boolean,
  atBreakpoints: boolean,
  preset: ChatPreset,
  session: { prompt_cache_retention?: unknown },
): { entryTtlMs?: number } {
  // alibabacloud.com/help/en/model-studio/context-cache, explicit: "Cache validity period: 5 minutes (resets on hit)".
  if (marker) return { entryTtlMs: 300_000 };
  // prompt_cache_options' ttl: "30m", the one value OpenAI accepts (developers.openai.com/api/docs/guides/prompt-caching).
  if (atBreakpoints) return { entryTtlMs: 1_800_000 };
  // prompt_cache_retention "24h": "extended prompt cache retention … up to 24 hours" (same page).
  if (session.prompt_cache_retention === '24h') return { entryTtlMs: 86_400_000 };
  return preset.cacheTtlMs === undefined ? {} : { entryTtlMs: preset.cacheTtlMs };
}

/** The key is read where the model is called (apiKeyEnv), so it never rides in the descriptor unless the caller passed it in. */
function chatConfig(kind: string, option: Readonly<Record<string, unknown>>, common: object): ProviderConfig {
  const config = { kind, ...common } as ProviderConfig;
  for (const key of ['apiKey', 'apiKeyEnv', 'baseUrl'] as const) {
    if (option[key] !== undefined) config[key] = option[key] as string;
  }
  if (option.reportsCachedTokens === true) config.reportsCachedTokens = true;
  if (option.mode === 'stream' || option.mode === 'generate') config.mode = option.mode;
  return config;
}

function chatModule(
  kind: Exclude<ChatProviderKind, 'local'>,
  usage: string,
  rules: ChatCacheRules & { responses?: boolean },
  checkOption?: ProviderModule['checkOption'],
  flagKeys: readonly string[] = [],
): ProviderModule {
  return {
    kind,
    shapes: rules.responses ? ['openai-chat', 'openai-responses'] : ['openai-chat'],
    optionKeys: ['apiKey', 'apiKeyEnv', 'baseUrl', ...(rules.responses ? ['mode'] : [])],
    flagKeys,
    usage,
    ...(checkOption || rules.responses
      ? {
          checkOption(option: Readonly<Record<string, unknown>>) {
            checkOption?.(option);
            if (rules.responses) checkResponsesMode(option);
          },
        }
      : {}),
    async connect(option, common) {
      const config = chatConfig(kind, option, common);
      // A missing key or base URL is an error now, not a failure per fork.
      resolveChatEndpoint(config);
      return { config };
    },
    plan: (input) =>
      input.shape === 'openai-responses'
        ? responsesPlan(kind, CHAT_PRESETS[kind], input, rules)
        : chatPlan(kind, CHAT_PRESETS[kind], input, rules),
    client: (config, shape) => (shape === 'openai-responses' ? createOpenAIResponsesProvider(config) : createOpenAIChatProvider(config)),
    preload: async () => void (await loadOpenAI()),
  };
}

/** `mode` says how a Responses session's calls are made: as the parent's agent makes its own. */
function checkResponsesMode(option: Readonly<Record<string, unknown>>): void {
  if (option.mode !== undefined && option.mode !== 'stream' && option.mode !== 'generate') {
    throw new TypeError(
      `ForkEngine: options.provider.mode must be 'stream' or 'generate' (how the parent's agent calls the Responses API), got ${JSON.stringify(option.mode)}`,
    );
  }
}

/** OpenAI's API (prompt_cache_key routes a run to one cache). */
export const openaiModule = chatModule('openai', "{ kind: 'openai' } (apiKey or apiKeyEnv, default OPENAI_API_KEY; baseUrl; mode)", {
  cacheKey: true,
  markers: false,
  breakpoints: true,
  responses: true,
});
/** DeepSeek's API (a disk cache built in seconds). */
export const deepseekModule = chatModule('deepseek', "{ kind: 'deepseek' } (apiKey or apiKeyEnv, default DEEPSEEK_API_KEY; baseUrl)", {
  cacheKey: false,
  markers: false,
  breakpoints: false,
});
/** Alibaba Cloud's DashScope (implicit, or explicit cache_control markers). */
export const dashscopeModule = chatModule('dashscope', "{ kind: 'dashscope' } (apiKey or apiKeyEnv, default DASHSCOPE_API_KEY; baseUrl)", {
  cacheKey: false,
  markers: true,
  breakpoints: false,
});
/** vLLM, SGLang or any server speaking Chat Completions at a base URL. */
export const openaiCompatibleModule = chatModule(
  'openai-compatible',
  "{ kind: 'openai-compatible', baseUrl } (vLLM, SGLang, …; apiKey or apiKeyEnv; reportsCachedTokens when the server runs with --enable-prompt-tokens-details)",
  { cacheKey: false, markers: false, breakpoints: false },
  needsBaseUrl,
  ['reportsCachedTokens'],
);
