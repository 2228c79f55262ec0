export { InputError, formatPath, type InputErrorInit } from './errors.js';
export { loadTasks, parseTasks } from './load.js';
export { parseSession } from './parse.js';
export { streamTasks, TaskLines, type TaskLinesOptions } from './task-lines.js';
export {
  ForkTaskSchema,
  GeminiSessionSchema,
  type Content,
  type ForkTask,
  type ForkTurns,
  type ParentSession,
  type GeminiSession,
  type SessionFormat,
  type Part,
  type HistoryMode,
  type SubagentType,
} from './schema.js';
export { MAX_INPUT_BYTES, invalidUtf8Offset, type ReadLimits } from './read.js';
export {
  OpenAIChatSessionSchema,
  parseOpenAIChatSession,
  type ChatAssistantMessage,
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  type ChatToolMessage,
  type OpenAIChatSession,
} from './openai-chat-schema.js';
export {
  AnthropicMessagesSessionSchema,
  parseAnthropicMessagesSession,
  type AnthropicCacheControl,
  type AnthropicContentBlock,
  type AnthropicMessage,
  type AnthropicMessagesSession,
  type AnthropicTool,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from './anthropic-messages-schema.js';
export { OpenAIResponsesSessionSchema, type OpenAIResponsesSession } from './openai-responses-schema.js';
export { AiSdkSessionSchema, type AiSdkMessage, type AiSdkSession, type AiSdkTool } from './ai-sdk-schema.js';
