export { ForkEngine, DEFAULT_MAX_TURNS, type ForkEngineOptions, type FanOutOptions, type ProviderOption } from './engine.js';
export { FanOutRun } from './run.js';
export type { ForkEvent } from './events.js';
export type { ForkResult, ForkStatus, FailureKind } from './protocol.js';
export type { RunReport, ForkCacheFigures, CacheMode } from './report.js';
export { formatTaskNotification, escapeXml } from './notification.js';
export type { ParentEvent, ParentOutcome } from './parent-agent.js';
