import type { Attributes, BatchObservableResult, Meter } from '@opentelemetry/api';
import type { TokenUsage } from '../model/types.js';
import { ATTR, DURATION_BUCKETS, FORKPOOL_ATTR, METRIC, TOKEN_BUCKETS, billedInput, modelCallBase, providerNameOf } from './conventions.js';
import { VALUE_INT, otelApi } from './otel.js';

/*
 * forkpool's metrics, recorded into whatever meter provider the application registered (nothing
 * registered with OpenTelemetry: no instruments, recording does nothing, and the API does not load).
 * The API keeps no proxy for meters, so instruments are made when a run or an engine starts, not
 * when this module loads: a provider registered after the import still gets them.
 */

const METER = 'forkpool';

/** forkpool's meter on the provider registered now; undefined when nothing is registered with OpenTelemetry. */
export function meter(): Meter | undefined {
  return otelApi()?.metrics.getMeter(METER);
}

export interface ModelCallInfo {
  /** The provider module's kind (its conventions name follows it). */
  provider: string;
  /** The session's shape: Gemini's calls are `generate_content`, the others' `chat`. */
  shape: string;
  model: string;
}

export interface ModelCallMetrics {
  /** A call that answered: its usage (input tokens include cached ones), the model that answered, how long it took. */
  answered(usage: TokenUsage, responseModel: string | undefined, seconds: number | undefined): void;
  /** A call that finally failed, or was cancelled. */
  failed(errorType: string, seconds: number | undefined): void;
}

const UNMETERED_CALLS: ModelCallMetrics = { answered() {}, failed() {} };

/** The conventions' client metrics of model calls, and forkpool's cache read and write counters beside them. */
export function modelCallMetrics(info: ModelCallInfo): ModelCallMetrics {
  const m = meter();
  if (m === undefined) return UNMETERED_CALLS;
  const tokenUsage = m.createHistogram(METRIC.tokenUsage, {
    description: 'Measures number of input and output tokens used',
    unit: '{token}',
    valueType: VALUE_INT,
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const duration = m.createHistogram(METRIC.operationDuration, {
    description: 'GenAI operation duration',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const cacheRead = m.createCounter(METRIC.cacheReadTokens, {
    description: 'Input tokens served from the provider’s prompt cache',
    unit: '{token}',
    valueType: VALUE_INT,
  });
  const cacheWrite = m.createCounter(METRIC.cacheWriteTokens, {
    description: 'Input tokens written into the provider’s prompt cache',
    unit: '{token}',
    valueType: VALUE_INT,
  });
  const reasoning = m.createCounter(METRIC.reasoningTokens, {
    description: 'Output tokens the model spent reasoning (within the output tokens)',
    unit: '{token}',
    valueType: VALUE_INT,
  });
  const base: Attributes = modelCallBase(info);
  // One set of attributes per model that answered (a run sees one or two), made once: a call allocates none.
  const byResponseModel = new Map<string | undefined, { call: Attributes; input: Attributes; output: Attributes }>();
  const attributesOf = (responseModel: string | undefined): { call: Attributes; input: Attributes; output: Attributes } => {
    let known = byResponseModel.get(responseModel);
    if (known === undefined) {
      const call = responseModel === undefined ? base : { ...base, [ATTR.responseModel]: responseModel };
      known = { call, input: { ...call, [ATTR.tokenType]: 'input' }, output: { ...call, [ATTR.tokenType]: 'output' } };
      byResponseModel.set(responseModel, known);
    }
    return known;
  };
  return {
    answered(usage, responseModel, seconds) {
      const { call: attributes, input, output } = attributesOf(responseModel);
      tokenUsage.record(billedInput(usage), input);
      tokenUsage.record(usage.outputTokens, output);
      if (seconds !== undefined) duration.record(seconds, attributes);
      if (usage.cachedTokens !== null) cacheRead.add(usage.cachedTokens, attributes);
      if (usage.cacheWriteTokens !== undefined) cacheWrite.add(usage.cacheWriteTokens, attributes);
      if (usage.reasoningTokens !== undefined) reasoning.add(usage.reasoningTokens, attributes);
    },
    failed(errorType, seconds) {
      if (seconds !== undefined) duration.record(seconds, { ...base, [ATTR.errorType]: errorType });
    },
  };
}

/** A call's duration from the epoch-ms times a worker reported; undefined unless both are times, in order. */
export function secondsBetween(startedAt: unknown, endedAt: unknown): number | undefined {
  return isEpochMs(startedAt) && isEpochMs(endedAt) && endedAt >= startedAt ? (endedAt - startedAt) / 1000 : undefined;
}

/** A time another thread or process reported is taken only when it is one (epoch ms). */
export function isEpochMs(t: unknown): t is number {
  return typeof t === 'number' && Number.isFinite(t) && t > 0;
}

export interface FanOutMetrics {
  /** A fork ended: its status, its retries, the most its calls could have been served from cache. */
  settled(fork: { status: string; retries: number; maxCachedTokens: number }): void;
  /** The run's cache efficiency so far (null: unknown, not recorded). */
  efficiency(value: number | null): void;
  /** The run's end moved its theoretical maximum by this much (the opening wave's corrections: either way). */
  corrected(maxCachedTokens: number): void;
}

const UNMETERED_FAN_OUT: FanOutMetrics = { settled() {}, efficiency() {}, corrected() {} };

/** A fan-out's own figures: forks by status, retries (a fork's 429s and other failed attempts are events on its span), the cache's maximum and the run's efficiency against it. */
export function fanOutMetrics(info: ModelCallInfo): FanOutMetrics {
  const m = meter();
  if (m === undefined) return UNMETERED_FAN_OUT;
  const forks = m.createCounter(METRIC.forks, { description: 'Forks that ended, by status', unit: '{fork}', valueType: VALUE_INT });
  const retries = m.createCounter(METRIC.retries, {
    description: 'Model call attempts sent again',
    unit: '{retry}',
    valueType: VALUE_INT,
  });
  // Up and down: the run's end may correct what its forks' ends recorded.
  const cacheMax = m.createUpDownCounter(METRIC.cacheMaxTokens, {
    description: 'The most the provider’s cache rules let the forks’ calls be served (the report’s theoretical maximum)',
    unit: '{token}',
    valueType: VALUE_INT,
  });
  const efficiency = m.createGauge(METRIC.cacheEfficiency, {
    description: 'Cached tokens a run earned over its theoretical maximum, so far (the run that last ended a fork)',
    unit: '1',
  });
  const base: Attributes = { [ATTR.providerName]: providerNameOf(info.provider), [ATTR.requestModel]: info.model };
  const byStatus = new Map<string, Attributes>();
  const statusAttributes = (status: string): Attributes => {
    let known = byStatus.get(status);
    if (known === undefined) {
      known = { ...base, [FORKPOOL_ATTR.forkStatus]: status };
      byStatus.set(status, known);
    }
    return known;
  };
  return {
    settled(fork) {
      forks.add(1, statusAttributes(fork.status));
      // Counted as the report counts them (each fork's own), so the two agree.
      if (fork.retries > 0) retries.add(fork.retries, base);
      cacheMax.add(fork.maxCachedTokens, base);
    },
    efficiency(value) {
      // Not per run: a long-lived process would keep a series for every run it ever made.
      if (value !== null) efficiency.record(value, base);
    },
    corrected(maxCachedTokens) {
      if (maxCachedTokens !== 0) cacheMax.add(maxCachedTokens, base);
    },
  };
}

/** What the call gate says of itself, read when metrics are collected. */
export interface GateReading {
  limit: number;
  inFlight: number;
  waiting: number;
}

/** Every live engine's gate (a queue worker has one engine per run setting): the gauges sum them. */
const liveGates = new Set<() => GateReading>();
let observing: { meter: Meter; stop: () => void } | undefined;

/**
 * The call gate's bound, calls in flight and calls waiting, observed at each collection, summed over
 * the process's engines; the function stops observing this one.
 */
export function observeCallGate(read: () => GateReading): () => void {
  liveGates.add(read);
  const m = meter();
  // The application may have registered another provider since: observe on the one there is now
  // (none yet: a later engine's observation sums this one's gate too).
  if (m !== undefined && observing?.meter !== m) {
    observing?.stop();
    observing = { meter: m, stop: observeGates(m) };
  }
  return () => {
    liveGates.delete(read);
    if (liveGates.size === 0) {
      observing?.stop();
      observing = undefined;
    }
  };
}

function observeGates(m: Meter): () => void {
  const inFlight = m.createObservableGauge(METRIC.callsInFlight, {
    description: 'Model calls in flight',
    unit: '{call}',
    valueType: VALUE_INT,
  });
  const limit = m.createObservableGauge(METRIC.callGateLimit, {
    description: 'The call gate’s bound on calls in flight (it adapts to 429s)',
    unit: '{call}',
    valueType: VALUE_INT,
  });
  const waiting = m.createObservableGauge(METRIC.callsWaiting, {
    description: 'Model calls waiting at the call gate',
    unit: '{call}',
    valueType: VALUE_INT,
  });
  const observe = (result: BatchObservableResult): void => {
    const sum = { inFlight: 0, limit: 0, waiting: 0 };
    for (const read of liveGates) {
      const reading = read();
      sum.inFlight += reading.inFlight;
      sum.limit += reading.limit;
      sum.waiting += reading.waiting;
    }
    result.observe(inFlight, sum.inFlight);
    result.observe(limit, sum.limit);
    result.observe(waiting, sum.waiting);
  };
  const observables = [inFlight, limit, waiting];
  m.addBatchObservableCallback(observe, observables);
  return () => m.removeBatchObservableCallback(observe, observables);
}
