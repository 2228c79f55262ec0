/**
 * `forkpool/protocol`: the fork protocol itself, for an agent loop of your own — how a fork is
 * seeded from a conversation, the child message, the guards, the agent tool, notifications. Its
 * wording is part of this entry point's contract, not of the engine's.
 */
export {
  seedFork,
  buildChildMessage,
  isForkChild,
  validateAgentParams,
  ForkRejectedError,
  AGENT_TOOL_NAME,
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_FUNCTION,
  AGENT_TOOL_ANTHROPIC,
  isRealUserTurn,
  syntheticPrefixLength,
  type ForkSeed,
  type GeminiForkSeed,
  type OpenAIChatForkSeed,
  type AnthropicForkSeed,
  type OpenAIResponsesForkSeed,
  type AiSdkForkSeed,
  type ForkSeedOf,
  type SeedCase,
  type SeedOptions,
  type AgentParams,
  type AgentParamsResult,
  type AgentParamsProblem,
  type AgentCallContext,
  type ForkRequest,
} from './fork/index.js';
export { formatTaskNotification, escapeXml } from './engine/notification.js';
export type { FunctionDeclaration } from './tools/define.js';
export type { Failure } from './input/failure.js';
export type { ForkTurns, HistoryMode, SubagentType } from './session/schema.js';
export type {
  Content,
  GeminiSession,
  GeminiTool,
  Part,
  SystemInstruction,
  ParentSession,
  ChatMessage,
  ChatTool,
  OpenAIChatSession,
  AnthropicMessagesSession,
  OpenAIResponsesSession,
  AiSdkSession,
} from './shapes/registry.js';
export type { AnthropicMessageLike } from './model/types.js';
