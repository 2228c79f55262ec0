import { within } from '../input/within.js';
import { createServer, type Server } from 'node:http';
import { DiagLogLevel, diag, metrics } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/*
 * The OpenTelemetry SDK as the CLI sets it up: the library itself only talks to the API (the
 * application brings the SDK), so this module is loaded by dynamic import, and only by a command
 * that exports. The OTLP exporters read their endpoints, headers and timeouts from the environment
 * themselves (OTEL_EXPORTER_OTLP_*): nothing here copies them, so no header (an API key of the
 * collector's, say) is ever put where it could be exported.
 */

export interface ExportSettings {
  /** OTLP/HTTP traces: a tracer provider registered globally (W3C propagator, AsyncLocalStorage context). */
  traces: boolean;
  /** OTLP/HTTP metrics, every `metricIntervalMillis` and once more at shutdown. */
  metrics: boolean;
  /** Serve Prometheus text at http://127.0.0.1:PORT/metrics (0: a free port). */
  prometheusPort?: number;
  /** How often metrics go out over OTLP (OTEL_METRIC_EXPORT_INTERVAL; default 60 s). */
  metricIntervalMillis?: number;
  /** One export's bound, when the environment sets none (so the last export, at exit, gives up in time). */
  exportTimeoutMillis?: number;
  /** Told of the first export error only: an unreachable collector is said once, not every few seconds. */
  onError(message: string): void;
}

export interface TelemetryExport {
  /** The Prometheus endpoint, once it listens. */
  metricsUrl?: string;
  /** Flushes what is left and stops, waiting at most `boundMs` (an unreachable collector never holds the exit). */
  shutdown(boundMs: number): Promise<void>;
}

const DEFAULT_METRIC_INTERVAL_MS = 60_000;

export async function startExport(settings: ExportSettings): Promise<TelemetryExport> {
  const report = reportOnce(settings.onError);
  // The SDK reports export failures to the global error handler and its diag logger, both silent by default.
  setGlobalErrorHandler((error) => report(messageOf(error)));
  diag.setLogger(
    { error: (message, ...args) => report([message, ...args.map(messageOf)].join(' ')), warn() {}, info() {}, debug() {}, verbose() {} },
    DiagLogLevel.ERROR,
  );

  const resource = forkpoolResource();
  const timeout = settings.exportTimeoutMillis !== undefined ? { timeoutMillis: settings.exportTimeoutMillis } : {};
  const readers: MetricReader[] = [];
  if (settings.metrics) {
    const interval = settings.metricIntervalMillis ?? DEFAULT_METRIC_INTERVAL_MS;
    // The reader refuses a timeout longer than its interval.
    const exportTimeoutMillis = Math.min(interval, settings.exportTimeoutMillis ?? interval);
    readers.push(
      new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(timeout), exportIntervalMillis: interval, exportTimeoutMillis }),
    );
  }
  let prometheus: { server: Server; url: string } | undefined;
  if (settings.prometheusPort !== undefined) {
    // Served by a server of ours, not the exporter's: it listens on the port asked for and says which one it got (0: a free one).
    const exporter = new PrometheusExporter({ preventServerStart: true });
    readers.push(exporter);
    prometheus = await servePrometheus(exporter, settings.prometheusPort);
  }
  // Registered once the Prometheus port is ours: a port taken leaves nothing registered behind.
  const tracerProvider = settings.traces
    ? new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(timeout))] })
    : undefined;
  // With its defaults: the W3C trace-context and baggage propagators (a distributed run's jobs carry the context), and an
  // AsyncLocalStorage context manager (an application's active span reaches the fan-out's).
  tracerProvider?.register();
  // The conventions' histograms carry their bucket boundaries as instrument advice, which sdk-metrics 2.x follows: no views.
  const meterProvider = readers.length > 0 ? new MeterProvider({ resource, readers }) : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);

  return {
    ...(prometheus ? { metricsUrl: prometheus.url } : {}),
    async shutdown(boundMs) {
      // Each provider's shutdown flushes first (a forceFlush before it would send the metrics twice).
      const flushed = Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      const outcome = await within(boundMs, flushed);
      for (const settled of outcome ?? []) if (settled.status === 'rejected') report(messageOf(settled.reason));
      // Said even after an earlier error: it is why the exit did not wait.
      if (outcome === undefined) settings.onError(`the last export did not finish within ${boundMs / 1000} s; not waiting for it`);
      if (prometheus) await closeServer(prometheus.server);
    },
  };
}

/** service.name `forkpool` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise; no process detector: a command line may hold a secret. */
function forkpoolResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'forkpool' }))
    .merge(detectResources({ detectors: [envDetector] }));
}

function reportOnce(onError: (message: string) => void): (message: string) => void {
  let told = false;
  return (message) => {
    if (told) return;
    told = true;
    onError(message);
  };
}

/** An export error's own words (an OTLPExporterError carries the collector's HTTP status as `code`). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? `${error.message} (HTTP ${code})` : error.message;
}

function servePrometheus(exporter: PrometheusExporter, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') exporter.getMetricsRequestHandler(request, response);
    else response.writeHead(404).end();
  });
  // Unreferenced: the run holds the process open, the endpoint does not.
  server.unref();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      const actual = typeof address === 'object' && address !== null ? address.port : port;
      resolve({ server, url: `http://127.0.0.1:${actual}/metrics` });
    });
  });
}

/** Closed with its connections: a scraper's keep-alive connection would hold the process open. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
