import type { FlagTable } from './flags.js';
import { UsageError } from './usage-error.js';

/*
 * The CLI's OpenTelemetry export: OTLP/HTTP when the environment names a collector, Prometheus
 * text when `run --metrics-port` asks for it. The SDK is loaded (a dynamic import) only then: a
 * command that exports nothing pays nothing for it.
 */

export const METRICS_PORT_FLAG = {
  type: 'string',
  arg: 'N',
  group: 'Telemetry',
  help: "serve the engine's metrics in Prometheus text at http://127.0.0.1:N/metrics\nwhile the run lasts (0: a free port; the URL is printed on stderr)",
} as const satisfies FlagTable[string];

/** How long a command's end waits for the last export: an unreachable collector must not hold the exit. */
const EXIT_BOUND_MS = 5_000;
/** One export's bound (OTEL_EXPORTER_OTLP_*TIMEOUT may set a shorter one), under the exit's so the last one gives up within it. */
const EXPORT_TIMEOUT_MS = 4_000;

export interface CliTelemetry {
  /** Flushes what is left and stops (at most EXIT_BOUND_MS). */
  close(): Promise<void>;
}

/**
 * Starts exporting when the environment or the flag asks for it (undefined: nothing to do, the SDK
 * not loaded). Register it before the engine is created: the API has no proxy for meters.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  options: { metricsPort?: number | undefined; log: (line: string) => void },
): Promise<CliTelemetry | undefined> {
  const traces = exporting(env, 'TRACES');
  const metrics = exporting(env, 'METRICS');
  if (!traces && !metrics && options.metricsPort === undefined) return undefined;
  const { startExport } = await import('../telemetry/export.js');
  const interval = positive(env.OTEL_METRIC_EXPORT_INTERVAL);
  // The environment may shorten an export's bound, not lengthen it past the exit's.
  const timeouts = ['OTEL_EXPORTER_OTLP_TIMEOUT', 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT'].map(
    (name) => positive(env[name]) ?? EXPORT_TIMEOUT_MS,
  );
  let started: Awaited<ReturnType<typeof startExport>>;
  try {
    started = await startExport({
      traces,
      metrics,
      ...(options.metricsPort !== undefined ? { prometheusPort: options.metricsPort } : {}),
      ...(interval !== undefined ? { metricIntervalMillis: interval } : {}),
      exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, ...timeouts),
      // Telemetry never fails a command: its first error is said, the rest are not.
      onError: (message) => options.log(`OpenTelemetry: ${message} (telemetry never fails the command; later errors of it are not shown)`),
    });
  } catch (err) {
    // The Prometheus endpoint's port is taken, or not ours to use.
    if (options.metricsPort === undefined || (err as NodeJS.ErrnoException).code === undefined) throw err;
    throw new UsageError(
      `--metrics-port ${options.metricsPort}: cannot listen on 127.0.0.1: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  if (started.metricsUrl !== undefined) options.log(`metrics: ${started.metricsUrl}`);
  return { close: () => started.shutdown(EXIT_BOUND_MS) };
}

/** A signal is exported over OTLP when an endpoint is named for it (or for all), unless the SDK or that signal's exporter is turned off. */
function exporting(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS'): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env[`OTEL_${signal}_EXPORTER`]?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim());
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && /^\d+$/.test(value.trim()) && n > 0 ? n : undefined;
}
