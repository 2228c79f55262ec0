export type { Dialect, ToolResponse } from './dialect.js';
export { dialectOf, viewMessage } from './registry.js';
export type { AnyMessage } from './view.js';
