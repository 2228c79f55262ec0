import type { FrozenPrefix } from '../../prefix/index.js';
import { traceFanOut, type FanOutTrace } from '../../telemetry/fan-out-trace.js';
import { fanOutMetrics, modelCallMetrics, type FanOutMetrics, type ModelCallMetrics } from '../../telemetry/metrics.js';
import type { RunSettingsOf } from './settings.js';

/** What a fan-out records for telemetry: its span (and its forks'), its metrics, and each model call's. */
export interface RunTelemetry {
  trace: FanOutTrace;
  metrics: FanOutMetrics;
  callMetrics: ModelCallMetrics;
}

export function runTelemetry(
  prefix: FrozenPrefix,
  settings: Pick<RunSettingsOf<unknown>, 'plan' | 'telemetry' | 'traceParent' | 'parentAgentId'>,
): RunTelemetry {
  const { plan } = settings;
  const trace = traceFanOut({
    prefixId: prefix.id,
    provider: plan.provider,
    shape: plan.shape,
    model: prefix.session.model,
    ...(settings.traceParent !== undefined ? { parent: settings.traceParent } : {}),
    ...(settings.parentAgentId !== undefined ? { parentAgentId: settings.parentAgentId } : {}),
    captureContent: settings.telemetry.captureContent === true,
  });
  const callInfo = { provider: plan.provider, shape: plan.shape, model: prefix.session.model };
  return { trace, metrics: fanOutMetrics(callInfo), callMetrics: modelCallMetrics(callInfo) };
}
