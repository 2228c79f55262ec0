export { InputError, formatPath, type InputErrorInit } from '../input/errors.js';
export { parseTasks } from './load.js';
export { parseSession } from './parse.js';
export { streamTasks, TaskLines, type TaskLinesOptions } from './task-lines.js';
export type { ForkTask, ForkTurns, HistoryMode, SubagentType } from './schema.js';
export type { ParentSession, SessionFormat } from '../shapes/registry.js';
export { MAX_INPUT_BYTES, invalidUtf8Offset, type ReadLimits } from './read.js';
// Each shape's session schema and check (the main thread's side: loading.ts), and its types (the registry's).
export {
  anthropicMessagesSessionSchema,
  openAIChatSessionSchema,
  parseAnthropicMessagesSession,
  parseOpenAIChatSession,
} from '../shapes/loading.js';
export type {
  Content,
  GeminiSession,
  Part,
  ChatAssistantMessage,
  ChatContentPart,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatToolMessage,
  OpenAIChatSession,
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicMessagesSession,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  OpenAIResponsesSession,
  AiSdkMessage,
  AiSdkSession,
  AiSdkTool,
} from '../shapes/registry.js';
