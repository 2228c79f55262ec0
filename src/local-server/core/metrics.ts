import type { FaultKind } from './faults.js';

/** Counters of the local server, as a snapshot object and as Prometheus text. */

export interface LocalServerMetrics {
  /** Responses by route and HTTP status (status 0: connection dropped or aborted by the client). */
  requests: { route: string; status: number; count: number }[];
  requestsTotal: number;
  promptTokens: number;
  cachedTokens: number;
  candidatesTokens: number;
  cacheEntries: number;
  cacheTokens: number;
  evictions: number;
  explicitCaches: number;
  inFlight: number;
  faults: Partial<Record<FaultKind, number>>;
}

export interface MetricsRecorder {
  request(route: string, status: number): void;
  usage(prompt: number, cached: number, candidates: number): void;
  fault(kind: FaultKind): void;
  enter(): void;
  leave(): void;
  snapshot(gauges: { cacheEntries: number; cacheTokens: number; evictions: number; explicitCaches: number }): LocalServerMetrics;
}

export function createMetrics(): MetricsRecorder {
  const byRoute = new Map<string, { route: string; status: number; count: number }>();
  const faults: Partial<Record<FaultKind, number>> = {};
  let promptTokens = 0;
  let cachedTokens = 0;
  let candidatesTokens = 0;
  let inFlight = 0;
  return {
    request(route, status) {
      const key = `${route} ${status}`;
      const row = byRoute.get(key);
      if (row) row.count++;
      else byRoute.set(key, { route, status, count: 1 });
    },
    usage(prompt, cached, candidates) {
      promptTokens += prompt;
      cachedTokens += cached;
      candidatesTokens += candidates;
    },
    fault(kind) {
      faults[kind] = (faults[kind] ?? 0) + 1;
    },
    enter: () => void inFlight++,
    leave: () => void inFlight--,
    snapshot(gauges) {
      const requests = [...byRoute.values()].map((row) => ({ ...row }));
      return {
        requests,
        requestsTotal: requests.reduce((sum, row) => sum + row.count, 0),
        promptTokens,
        cachedTokens,
        candidatesTokens,
        cacheEntries: gauges.cacheEntries,
        cacheTokens: gauges.cacheTokens,
        evictions: gauges.evictions,
        explicitCaches: gauges.explicitCaches,
        inFlight,
        faults: { ...faults },
      };
    },
  };
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function prometheusText(m: LocalServerMetrics): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  };
  metric(
    'forkpool_local_requests_total',
    'counter',
    'Requests by route and HTTP status (0: dropped).',
    m.requests.map((r) => [`{route="${escapeLabel(r.route)}",status="${r.status}"}`, r.count]),
  );
  metric('forkpool_local_prompt_tokens_total', 'counter', 'Prompt tokens of model requests.', [['', m.promptTokens]]);
  metric('forkpool_local_cached_tokens_total', 'counter', 'Prompt tokens served from cache.', [['', m.cachedTokens]]);
  metric('forkpool_local_candidates_tokens_total', 'counter', 'Output tokens.', [['', m.candidatesTokens]]);
  metric('forkpool_local_cache_entries', 'gauge', 'Blocks in the prefix cache.', [['', m.cacheEntries]]);
  metric('forkpool_local_cache_tokens', 'gauge', 'Tokens held by the prefix cache.', [['', m.cacheTokens]]);
  metric('forkpool_local_cache_evictions_total', 'counter', 'Blocks evicted from the prefix cache.', [['', m.evictions]]);
  metric(
    'forkpool_local_explicit_caches',
    'gauge',
    'Explicit caches stored (cachedContents; DashScope and Anthropic cache_control entries).',
    [['', m.explicitCaches]],
  );
  metric('forkpool_local_in_flight_requests', 'gauge', 'Requests being served.', [['', m.inFlight]]);
  metric(
    'forkpool_local_faults_total',
    'counter',
    'Injected faults by kind.',
    Object.entries(m.faults).map(([kind, count]) => [`{kind="${kind}"}`, count ?? 0]),
  );
  return `${lines.join('\n')}\n`;
}
