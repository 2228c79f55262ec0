export {
  ForkEngine,
  ENGINE_DEFAULTS,
  type ForkEngineOptions,
  type FanOutOptions,
  type ProviderOption,
} from './engine.js';
export type { TelemetryOptions } from './options.js';
export { FanOutRun, type ResultListener, type SendOutcome } from './run.js';
export type { TaskInput } from './task-source.js';
export type { ForkEvent, EventsOptions } from './events.js';
export type {
  ForkResult,
  ForkStatus,
  FailureKind,
  ForkFailure,
  CancelKind,
  CallRecord,
  CacheMiss,
  CacheMissReason,
} from '../result/fork-result.js';
export type { ModelFailure, ModelErrorCategory } from '../result/model-failure.js';
export type {
  RunReport,
  RunBudget,
  RunCost,
  ForkCacheFigures,
  ForkEnd,
  ToolCallRecord,
  CacheMode,
  InputCost,
  CachePricing,
} from './report.js';
export type { PriceTable, ModelPrice } from '../model/prices.js';
export type { ParentEvent, ParentOutcome } from './parent-events.js';
