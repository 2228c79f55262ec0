export { defineTool, type Tool, type ToolContext, type ToolDefinition, type FunctionDeclaration, type ApprovalPolicy } from './define.js';
export type { ToolOutcome } from './host.js';
