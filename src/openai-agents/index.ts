/* forkpool/openai-agents: forkpool inside OpenAI Agents SDK agents. */
export { forkTool, type OpenAIAgentsForkToolOptions } from './fork-tool.js';
export type { RecordedStep } from './recorder.js';
