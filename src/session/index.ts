export { InputError, formatPath, type InputErrorInit } from '../input/errors.js';
export { parseTasks } from './load.js';
export { parseSession } from './parse.js';
export { streamTasks, TaskLines, type TaskLinesOptions } from './task-lines.js';
export type { ForkTask, ForkTurns, HistoryMode, SubagentType } from './schema.js';
export type { ParentSession, SessionFormat } from '../shapes/registry.js';
export { MAX_INPUT_BYTES, invalidUtf8Offset, type ReadLimits } from './read.js';
// Each shape's session schema and types, as the registry gives them.
export {
  type Content,
  type GeminiSession,
  type Part,
  openAIChatSessionSchema,
  parseOpenAIChatSession,
  type ChatAssistantMessage,
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  type ChatToolMessage,
  type OpenAIChatSession,
  anthropicMessagesSessionSchema,
  parseAnthropicMessagesSession,
  type AnthropicCacheControl,
  type AnthropicContentBlock,
  type AnthropicMessage,
  type AnthropicMessagesSession,
  type AnthropicTool,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type OpenAIResponsesSession,
  type AiSdkMessage,
  type AiSdkSession,
  type AiSdkTool,
} from '../shapes/registry.js';
