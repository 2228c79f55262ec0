export { startLocalServer, type LocalServer } from './server.js';
export { startLocalServerThread, type LocalServerThread, type LocalServerThreadOptions } from './thread.js';
export type { CapturedRequest, LocalServerOptions } from './state.js';
export type { LocalServerMetrics } from './metrics.js';
export { prometheusText } from './metrics.js';
export { LATENCY_PRESETS, isLatencyPreset, type LatencyModel, type LatencyPreset } from './latency.js';
export { FAULT_KINDS, parseFaultSpec, type FaultKind, type FaultSpec } from './faults.js';
export { DEFAULT_CACHE_CONFIG, type PrefixCacheConfig } from './prefix-cache.js';
