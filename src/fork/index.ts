export {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_FUNCTION,
  AGENT_TOOL_ANTHROPIC,
  AGENT_TOOL_NAME,
  validateAgentParams,
  type AgentCallContext,
  type AgentParams,
  type AgentParamsResult,
  type AgentParamsProblem,
  type ForkRequest,
} from './agent-tool.js';
export { buildChildMessage } from '../wording/child-message.js';
export {
  SEND_MESSAGE_DECLARATION,
  SEND_MESSAGE_TOOL_NAME,
  TASK_STOP_DECLARATION,
  TASK_STOP_TOOL_NAME,
  TASK_TOOL_TEXT,
  parseSendMessage,
  parseTaskStop,
} from './task-tools.js';
export {
  DIRECTIVE_PREFIX,
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_PLACEHOLDER_TEXT,
  FORK_SYSTEM_INSTRUCTION,
  FORK_UNAVAILABLE_RESULT_TEXT,
  NESTED_FORK_ERROR,
} from '../wording/constants.js';
export { ForkRejectedError, isForkChild } from './guards.js';
export {
  isRealUserTurn,
  syntheticPrefixLength,
} from './synthetic.js';
export {
  seedFork,
  type ForkSeed,
  type ForkSeedOf,
  type GeminiForkSeed,
  type OpenAIChatForkSeed,
  type AnthropicForkSeed,
  type OpenAIResponsesForkSeed,
  type AiSdkForkSeed,
  type SeedCase,
  type SeedOptions,
} from './seed.js';
export { seedTask, type TaskSeedDefaults } from './seed-task.js';
