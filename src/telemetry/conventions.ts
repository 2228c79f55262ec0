/*
 * The OpenTelemetry GenAI semantic conventions forkpool follows, in one place. They left the main
 * repository at its 1.42.0 (which keeps only their deprecated names) for
 * `open-telemetry/semantic-conventions-genai`, which has no release yet: forkpool follows its main
 * branch as read at commit 024a4f94 — the 1.41.0 definitions plus the cache-write rename (#440).
 * The npm package's GenAI constants are marked deprecated, so the names are written out here.
 * Everything here is at Development status upstream.
 */

import { findShape } from '../shapes/registry.js';

export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  /** All input tokens, cached ones included, as the conventions define it. */
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  /** `gen_ai.usage.cache_creation.input_tokens` until #440. */
  cacheWriteTokens: 'gen_ai.usage.cache_write.input_tokens',
  /** Of the output tokens, those spent reasoning (the conventions: it SHOULD be included in output_tokens, as forkpool's is). */
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  workflowName: 'gen_ai.workflow.name',
  errorType: 'error.type',
  /** Opt-in content (JSON strings): what a call sent and received, its system instructions, a tool call's arguments and result. */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  /** On the token usage metric: `input` or `output`. */
  tokenType: 'gen_ai.token.type',
} as const;

/**
 * Metrics. The pinned conventions define the client's token usage (one histogram, `gen_ai.token.type`
 * input or output) and operation duration; drafts after it split usage into per-kind instruments
 * (`gen_ai.client.inference.usage.*`), not followed until they are released. forkpool's own are
 * under `forkpool.`.
 */
export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  forks: 'forkpool.forks',
  cacheReadTokens: 'forkpool.cache.read_tokens',
  cacheWriteTokens: 'forkpool.cache.write_tokens',
  /** Output tokens spent reasoning (part of the token usage's output): the drafts' per-kind instrument is not followed yet. */
  reasoningTokens: 'forkpool.reasoning_tokens',
  /** The most the provider's rules let the run's calls be served (the report's theoretical maximum). */
  cacheMaxTokens: 'forkpool.cache.max_tokens',
  cacheEfficiency: 'forkpool.cache.efficiency',
  retries: 'forkpool.retries',
  callsInFlight: 'forkpool.call_gate.in_flight',
  callGateLimit: 'forkpool.call_gate.limit',
  callsWaiting: 'forkpool.call_gate.waiting',
  /** A distributed run's jobs enqueued and not yet taken by a worker. */
  queueDepth: 'forkpool.queue.depth',
} as const;

/** The conventions' bucket boundaries (ExplicitBucketBoundaries advice) for their two histograms. */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

export const OPERATION = {
  chat: 'chat',
  generateContent: 'generate_content',
  invokeAgent: 'invoke_agent',
  executeTool: 'execute_tool',
  invokeWorkflow: 'invoke_workflow',
} as const;

/** forkpool's own attributes (a parent agent's id, when it comes, is an open proposal: semantic-conventions #2247). */
export const FORKPOOL_ATTR = {
  parentAgentId: 'forkpool.parent_agent.id',
  attemptStatus: 'forkpool.attempt.status',
  /** How a cancelled fork was stopped: `cancelled` or `budget`. */
  cancelled: 'forkpool.cancelled',
  forks: 'forkpool.fan_out.forks',
  forkStatus: 'forkpool.fork.status',
  /** A completed fork whose last reply was cut or refused: why (`length`, `content_filter`, `refusal`, `error`). */
  answerCut: 'forkpool.answer.cut',
} as const;

/** A failed call's `error.type`: the HTTP status the provider answered with, else what went wrong (`timeout`, `network`, `aborted`, …). */
export function errorTypeOf(error: { status?: number; kind: string }): string {
  return error.status !== undefined ? String(error.status) : error.kind;
}

/** A model call's operation, as its shape names it (Gemini's API generates content, the others chat). */
export function operationOf(shape: string): typeof OPERATION.chat | typeof OPERATION.generateContent {
  // A shape this thread does not know (a made-up one registered elsewhere) chats, as most do.
  return findShape(shape)?.operation ?? OPERATION.chat;
}

/** What every model call's span and metric carries: its operation, where it went, the model asked for. */
export function modelCallBase(info: { provider: string; shape: string; model: string }): Record<string, string> {
  return {
    [ATTR.operationName]: operationOf(info.shape),
    [ATTR.providerName]: providerNameOf(info.provider),
    [ATTR.requestModel]: info.model,
  };
}

/** The conventions' `gen_ai.provider.name` of the provider kinds they list (keyed by provider kind, not by shape). */
const WELL_KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  gemini: 'gcp.gemini',
  openai: 'openai',
  anthropic: 'anthropic',
  deepseek: 'deepseek',
};

/** The conventions' name for where a provider kind sends its calls (their well-known values; forkpool's own for the rest). */
export function providerNameOf(kind: string): string {
  // dashscope, openai-compatible, the local simulator, a provider of one's own: not in the list.
  return Object.hasOwn(WELL_KNOWN_PROVIDERS, kind) ? (WELL_KNOWN_PROVIDERS[kind] as string) : `forkpool.${kind}`;
}

/** The conventions' input tokens as the provider bills them: the prompt (cached tokens included) and what it bills on top (Gemini's tool-use prompt). */
export function billedInput(usage: { promptTokens: number; toolUsePromptTokens?: number }): number {
  return usage.promptTokens + (usage.toolUsePromptTokens ?? 0);
}
