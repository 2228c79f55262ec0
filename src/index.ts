/**
 * forkpool's public API. Everything a user imports comes from here; the rest is internal.
 */
export {
  ForkEngine,
  DEFAULT_MAX_TURNS,
  formatTaskNotification,
  escapeXml,
  type ForkEngineOptions,
  type FanOutOptions,
  type ProviderOption,
  type FanOutRun,
  type ForkEvent,
  type ForkResult,
  type ForkStatus,
  type FailureKind,
  type RunReport,
  type ForkCacheFigures,
  type CacheMode,
  type ParentEvent,
  type ParentOutcome,
} from './engine/index.js';
export { freezePrefix, decodePrefix, estimateTokens, type FrozenPrefix } from './prefix/index.js';
export {
  seedFork,
  buildChildMessage,
  isForkChild,
  validateAgentParams,
  ForkRejectedError,
  AGENT_TOOL_NAME,
  AGENT_TOOL_DECLARATION,
  type ForkSeed,
  type SeedOptions,
  type AgentParams,
  type AgentParamsResult,
} from './fork/index.js';
export {
  loadSession,
  loadTasks,
  parseSession,
  parseTasks,
  InputError,
  ParentSessionSchema,
  ForkTaskSchema,
  type ParentSession,
  type ForkTask,
  type Content,
  type Part,
} from './session/index.js';
export { defineTool, type Tool, type ToolContext, type ToolDefinition, type FunctionDeclaration } from './tools/index.js';
export { workspaceTools, type WorkspaceLimits } from './tools/workspace/index.js';
export { loadToolsModule } from './tools/load-module.js';
export {
  startLocalServer,
  startLocalServerThread,
  type LocalServer,
  type LocalServerOptions,
  type LocalServerMetrics,
} from './local-server/index.js';
export type { TokenUsage, RetryPolicy } from './model/types.js';
