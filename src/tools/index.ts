export { defineTool, type Tool, type ToolContext, type ToolDefinition, type FunctionDeclaration, type ApprovalPolicy } from './define.js';
export type { ToolOutcome, ToolRejection, ToolFailure } from './outcome.js';
