/**
 * forkpool's public API (the `forkpool` entry point): the engine, tools, loaders and the prefix.
 * The fork protocol (seeding, child message, guards, agent tool) is `forkpool/protocol`; the
 * simulated model server is `forkpool/local-server`. Everything else is internal.
 */
export {
  ForkEngine,
  ENGINE_DEFAULTS,
  type ForkEngineOptions,
  type FanOutOptions,
  type TelemetryOptions,
  type ProviderOption,
  type FanOutRun,
  type SendOutcome,
  type ResultListener,
  type TaskInput,
  type ForkEvent,
  type EventsOptions,
  type ForkResult,
  type ForkStatus,
  type FailureKind,
  type ForkFailure,
  type ModelFailure,
  type ModelErrorCategory,
  type CancelKind,
  type CallRecord,
  type CacheMiss,
  type CacheMissReason,
  type RunReport,
  type InputCost,
  type CachePricing,
  type RunBudget,
  type RunCost,
  type PriceTable,
  type ModelPrice,
  type ForkCacheFigures,
  type ForkEnd,
  type ToolCallRecord,
  type CacheMode,
  type ParentEvent,
  type ParentOutcome,
} from './engine/index.js';
export { decodePrefix, estimateTokens, type FrozenPrefix } from './prefix/index.js';
export { ForkpoolError, type ForkpoolErrorCode } from './input/forkpool-error.js';
export {
  parseSession,
  parseTasks,
  streamTasks,
  TaskLines,
  type TaskLinesOptions,
  InputError,
  type InputErrorInit,
  type ReadLimits,
  type ParentSession,
  type GeminiSession,
  type OpenAIChatSession,
  type AnthropicMessagesSession,
  type OpenAIResponsesSession,
  type AnthropicMessage,
  type AnthropicContentBlock,
  type AnthropicTool,
  type AiSdkSession,
  type AiSdkMessage,
  type AiSdkTool,
  type SessionFormat,
  type ChatMessage,
  type ChatAssistantMessage,
  type ChatToolMessage,
  type ChatToolCall,
  type ChatTool,
  type ChatContentPart,
  type ForkTask,
  type Content,
  type Part,
  type HistoryMode,
  type SubagentType,
  type ForkTurns,
} from './session/index.js';
export { loadSession, type LoadSessionOptions } from './import/load.js';
export { freezePrefix, importSession, loadTasks } from './deprecated.js';
// Types only from the importers' index: they are loaded when a session file is read (loadSession), not with the package.
export type { ImportFormat, ImportOptions, ImportResult, ImportSummary, DroppedRecord, MessageOrigin } from './import/index.js';
export { formatImportSummary } from './import/summary.js';
export { convertSession, ConversionError, type ConvertOptions, type ConversionResult, type DroppedItem } from './convert/index.js';
export {
  defineTool,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type FunctionDeclaration,
  type ApprovalPolicy,
  type ToolOutcome,
  type ToolRejection,
  type ToolFailure,
} from './tools/index.js';
export { workspaceTools, type WorkspaceLimits } from './tools/workspace/index.js';
export { loadToolsModule, type LoadToolsOptions } from './tools/load-module.js';
export type { TokenUsage, RetryPolicy } from './model/types.js';
export type { Failure } from './input/failure.js';
export type { EngineCallGate, RateLimits } from './engine/call-gate.js';
