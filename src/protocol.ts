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
export type { Failure } from './failure.js';
export type { ForkTurns, HistoryMode, SubagentType } from './session/schema.js';
export type { Content, GeminiSession, GeminiTool, Part, SystemInstruction } from './shapes/gemini/schema.js';
export type { ParentSession } from './shapes/registry.js';
export type { ChatMessage, ChatTool, OpenAIChatSession } from './shapes/openai-chat/schema.js';
export type { AnthropicMessagesSession } from './shapes/anthropic-messages/schema.js';
export type { AnthropicMessageLike } from './model/types.js';
