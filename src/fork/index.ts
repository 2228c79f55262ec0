export {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_NAME,
  AgentParamsSchema,
  FORK_SUBAGENT_TYPE,
  validateAgentParams,
  type AgentCallContext,
  type AgentParams,
  type AgentParamsResult,
  type ForkRequest,
} from './agent-tool.js';
export { buildChildMessage } from './child-message.js';
export {
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_BOILERPLATE_CLOSE,
  FORK_BOILERPLATE_OPEN,
  FORK_PLACEHOLDER_TEXT,
  FORK_SYSTEM_INSTRUCTION,
  FORK_SYSTEM_TEXT,
} from './constants.js';
export { ForkRejectedError, assertNotForkChild, isForkChild } from './guards.js';
export { completedTurnPrefix, hasFunctionCalls, isRealUserTurn, keepLastUserTurns } from './history.js';
export { seedFork, type ForkSeed, type SeedCase, type SeedOptions } from './seed.js';
