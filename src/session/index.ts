export { InputError, formatInputError, formatPath, type InputErrorInit } from './errors.js';
export { MAX_JSON_DEPTH, assertSafeJson, parseJsonText } from './json.js';
export { loadSession, loadTasks, parseSession, parseTasks } from './load.js';
export {
  ContentSchema,
  ForkTaskSchema,
  ForkTurnsSchema,
  FunctionCallSchema,
  FunctionDeclarationSchema,
  FunctionResponseSchema,
  GeminiToolSchema,
  ParentSessionSchema,
  PartSchema,
  SystemInstructionSchema,
  ToolNameSchema,
  type Content,
  type ForkTask,
  type ForkTurns,
  type FunctionCall,
  type FunctionResponse,
  type GeminiTool,
  type ParentSession,
  type Part,
  type HistoryMode,
  type SubagentType,
  type SystemInstruction,
} from './schema.js';
export { MAX_INPUT_BYTES, invalidUtf8Offset, type ReadLimits } from './read.js';
