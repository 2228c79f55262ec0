export {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_NAME,
  AgentParamsSchema,
  FORK_SUBAGENT_TYPE,
  GENERAL_PURPOSE_SUBAGENT_TYPE,
  validateAgentParams,
  type AgentCallContext,
  type AgentParams,
  type AgentParamsResult,
  type ForkRequest,
} from './agent-tool.js';
export { buildChildMessage } from './child-message.js';
export {
  DIRECTIVE_PREFIX,
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_BOILERPLATE_CLOSE,
  FORK_BOILERPLATE_OPEN,
  FORK_PLACEHOLDER_TEXT,
  FORK_SPAWN_ERROR,
  FORK_SYSTEM_INSTRUCTION,
  FORK_SYSTEM_TEXT,
  FORK_UNAVAILABLE_RESULT_TEXT,
  NESTED_FORK_ERROR,
  SUBAGENT_DEPTH_ERROR,
  TOOL_RESTRICTION_CLOSE,
  TOOL_RESTRICTION_OPEN,
} from './constants.js';
export { ForkRejectedError, assertNotForkChild, isForkChild } from './guards.js';
export { completedTurnPrefix, hasFunctionCalls, keepLastUserTurns } from './history.js';
export {
  COMPACTED_SUMMARY_ACK,
  COMPACTED_SUMMARY_MARK,
  LEGACY_STARTUP_ACK,
  SYSTEM_REMINDER_CLOSE,
  SYSTEM_REMINDER_OPEN,
  compactedSummaryLength,
  isReminderOnly,
  isReminderPart,
  isRealUserTurn,
  syntheticPrefixLength,
} from './synthetic.js';
export { seedFork, type ForkSeed, type SeedCase, type SeedOptions } from './seed.js';
export { seedTask, type TaskSeedDefaults } from './seed-task.js';
