/*
 * The OpenTelemetry GenAI semantic conventions forkpool follows, in one place. They left the main
 * repository at its 1.42.0 (which keeps only their deprecated names) for
 * `open-telemetry/semantic-conventions-genai`, which has no release yet: forkpool follows its main
 * branch as read at commit 024a4f94 — the 1.41.0 definitions plus the cache-write rename (#440).
 * The npm package's GenAI constants are marked deprecated, so the names are written out here.
 * Everything here is at Development status upstream.
 */
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
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  workflowName: 'gen_ai.workflow.name',
  errorType: 'error.type',
} as const;

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
} as const;

/** A model call's operation: Gemini's API generates content, the others chat. */
export function operationOf(shape: string): typeof OPERATION.chat | typeof OPERATION.generateContent {
  return shape === 'gemini' ? OPERATION.generateContent : OPERATION.chat;
}

/** The conventions' name for where a provider kind sends its calls (their well-known values; forkpool's own for the rest). */
export function providerNameOf(kind: string): string {
  switch (kind) {
    case 'gemini':
      return 'gcp.gemini';
    case 'openai':
    case 'anthropic':
    case 'deepseek':
      return kind;
    default:
      // dashscope, openai-compatible, the local simulator, a provider of one's own: not in the list.
      return `forkpool.${kind}`;
  }
}
