export { InputError, formatPath, type InputErrorInit } from '../input/errors.js';
export { loadTasks, parseTasks } from './load.js';
export { parseSession } from './parse.js';
export { streamTasks, TaskLines, type TaskLinesOptions } from './task-lines.js';
export { ForkTaskSchema, type ForkTask, type ForkTurns, type HistoryMode, type SubagentType } from './schema.js';
export { GeminiSessionSchema, type Content, type GeminiSession, type Part } from '../shapes/gemini/schema.js';
export type { ParentSession, SessionFormat } from '../shapes/registry.js';
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
} from '../shapes/openai-chat/schema.js';
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
} from '../shapes/anthropic-messages/schema.js';
export { OpenAIResponsesSessionSchema, type OpenAIResponsesSession } from '../shapes/openai-responses/schema.js';
export { AiSdkSessionSchema, type AiSdkMessage, type AiSdkSession, type AiSdkTool } from '../shapes/ai-sdk/schema.js';
