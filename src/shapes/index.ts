export type { Dialect, ToolResponse } from './dialect.js';
export { dialectOf } from './registry.js';
export { viewMessage, type AnyMessage } from './view.js';
