/**
 * `forkpool/provider`: what a provider of one's own is written against (README, "Adding a
 * provider"). A module exports a ProviderModule as `provider`; `ForkEngine.create({ provider:
 * { kind, module: url, … } })` registers it, and every worker thread imports it from that URL.
 * Types only: the engine resolves and carries the plan, the module makes it and the client.
 */
export type { ProviderModule, ExplicitCacheClient, ConnectCommon } from './model/module.js';
export type { CachePlan, PlanInput, RequestCache, CachedContentRef, CachePricing } from './model/plan.js';
export type {
  ModelProvider,
  ModelRequest,
  GeminiRequest,
  OpenAIChatRequest,
  AnthropicRequest,
  OpenAIResponsesRequest,
  AiSdkRequest,
  ModelMessage,
  ModelOutcome,
  ModelError,
  GenerateOptions,
  AttemptGate,
  TokenUsage,
  ProviderConfig,
  ProviderKind,
  RetryPolicy,
  CacheOutcome,
} from './model/types.js';
