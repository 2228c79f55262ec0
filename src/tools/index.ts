export { defineTool, type Tool, type ToolContext, type ToolDefinition, type FunctionDeclaration, type ApprovalPolicy } from './define.js';
export { createToolHost, DEFAULT_TOOL_TIMEOUT_MS, type ToolHost, type ToolCall, type ToolOutcome, type ForkToolPolicy } from './host.js';
