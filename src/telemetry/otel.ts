import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';
import type { SpanKind, SpanStatusCode, ValueType } from '@opentelemetry/api';

/*
 * The OpenTelemetry API, loaded once something in this process has registered with it (a tracer or
 * meter provider, a context manager, a propagator, a logger). Every copy of the API keeps what was
 * registered in one global object under this key (its major version's), made at the first
 * registration; until it exists every span and instrument forkpool could make is the API's no-op,
 * so forkpool makes none and the API (about 45 ms of CPU to import) does not load. Asked per run, not
 * at import: an application may register its provider after creating the engine.
 */
const REGISTERED = Symbol.for('opentelemetry.js.api.1');

type OtelApi = typeof OtelApiModule;

let loaded: OtelApi | undefined;

/** The API when anything has registered with it in this process; undefined when nothing has. */
export function otelApi(): OtelApi | undefined {
  // Required, not imported: Node resolves both to the one CommonJS build, so this is the application's copy.
  if (loaded === undefined && REGISTERED in globalThis) loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  return loaded;
}

// The API's enum values forkpool uses, typed by its enums (a wrong value does not compile), so that naming them loads nothing.
export const SPAN_INTERNAL: SpanKind.INTERNAL = 0;
export const SPAN_CLIENT: SpanKind.CLIENT = 2;
export const STATUS_ERROR: SpanStatusCode.ERROR = 2;
export const VALUE_INT: ValueType.INT = 0;
