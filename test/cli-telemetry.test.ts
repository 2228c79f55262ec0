import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, TOKEN_BUCKETS } from '../src/telemetry/conventions.js';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { until } from './support/until.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { queueHarness, SESSION, within } from './support/queue-harness.js';

/*
 * The CLI's OpenTelemetry export, end to end: the built CLI with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at a small OTLP/HTTP receiver in this test (the exporters send JSON), `run
 * --metrics-port 0` scraped while it runs, and `forkpool worker` flushing on SIGTERM. The model is
 * the local simulator; its API key must reach it and must reach no collector. Nothing asserts on time.
 */

const SECRET = 'sk-otel-cli-3b7e91d2-never-exported';
const OPENAI_SESSION = 'examples/openai-session.json';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-telemetry-'));
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--require-api-key', SECRET]);
});
afterAll(async () => {
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
});

// ---- an OTLP/HTTP receiver: every POST kept as it came ----

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---- OTLP JSON, as much of it as the assertions read ----

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: KeyValue[];
  resource: KeyValue[];
}
interface DataPoint {
  attributes?: KeyValue[];
  asInt?: number | string;
  asDouble?: number;
  sum?: number;
  count?: number | string;
  explicitBounds?: number[];
}
interface Metric {
  name: string;
  histogram?: { dataPoints: DataPoint[] };
  sum?: { dataPoints: DataPoint[] };
  gauge?: { dataPoints: DataPoint[] };
}

function attrOf(attributes: KeyValue[] | undefined, key: string): string | number | boolean | undefined {
  const value = attributes?.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

function bodiesOf(receiver: Receiver, path: string): Record<string, unknown>[] {
  return receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

function spansOf(receiver: Receiver): Span[] {
  type Body = { resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: Omit<Span, 'resource'>[] }[] }[] };
  return (bodiesOf(receiver, '/v1/traces') as unknown as Body[]).flatMap((body) =>
    body.resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, resource: rs.resource.attributes }))),
    ),
  );
}

function metricsOf(receiver: Receiver): Metric[] {
  type Body = { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] };
  return (bodiesOf(receiver, '/v1/metrics') as unknown as Body[]).flatMap((body) =>
    body.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics)),
  );
}

/** The metric's points across every export (cumulative: the last export of a process holds its totals). */
function pointsOf(metrics: Metric[], name: string): DataPoint[] {
  const last = metrics.filter((m) => m.name === name).at(-1);
  return (last?.histogram ?? last?.sum ?? last?.gauge)?.dataPoints ?? [];
}

function sumOf(points: DataPoint[], where: (p: DataPoint) => boolean): number {
  return points.filter(where).reduce((n, p) => n + Number(p.sum ?? p.asInt ?? p.asDouble ?? 0), 0);
}

/** Every byte any process sent the collector. */
function everything(receiver: Receiver): string {
  return receiver.received.map((r) => `${r.path}\n${r.body}`).join('\n');
}

interface Usage {
  promptTokens: number;
  outputTokens: number;
}

describe('forkpool run with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the fan-out trace and the metrics over OTLP/HTTP (JSON); usage agrees with the result lines; no API key, no content', async () => {
    const receiver = await startReceiver();
    try {
      const dir = mkdtempSync(join(tmp, 'run-'));
      const tasks = writeTasks(dir, [
        { id: 'tooled', directive: 'CALL read_file {"path":"package.json"}\nREPLY looked' },
        { id: 'plain', directive: 'REPLY plain' },
      ]);
      const out = join(dir, 'out.jsonl');
      const run = await runCli(
        [
          'run',
          '--session',
          OPENAI_SESSION,
          '--tasks',
          tasks,
          '--workspace',
          '.',
          '--provider',
          'openai',
          '--base-url',
          `${serve.url}/v1`,
          '--out',
          out,
          '--output-format',
          'json',
        ],
        { env: { OPENAI_API_KEY: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } },
      );
      expect(run.stderr).not.toContain('OpenTelemetry:');
      expect(run.code).toBe(0);
      const lines = jsonLines(readFileSync(out, 'utf8')) as { id: string; status: string; usage: Usage }[];
      expect(lines.map((l) => l.status)).toEqual(['completed', 'completed']);
      const summary = JSON.parse(run.stdout) as Usage;

      // OTLP/HTTP with JSON bodies, to the paths the spec appends to the endpoint.
      expect(new Set(receiver.received.map((r) => r.path))).toEqual(new Set(['/v1/traces', '/v1/metrics']));
      for (const r of receiver.received) expect(r.contentType).toBe('application/json');

      // One trace, rooted at the fan-out's span; the process names itself forkpool.
      const spans = spansOf(receiver);
      const fanOuts = spans.filter((s) => s.name === 'invoke_workflow fan-out');
      expect(fanOuts).toHaveLength(1);
      const fanOut = fanOuts[0] as Span;
      expect(fanOut.parentSpanId ?? '').toBe('');
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([fanOut.traceId]));
      expect(attrOf(fanOut.resource, 'service.name')).toBe('forkpool');

      // Each fork's span under the fan-out's; its model calls under it, their usage the result line's.
      const forks = spans.filter((s) => s.name === 'invoke_agent fork');
      expect(forks.map((f) => attrOf(f.attributes, 'gen_ai.agent.id')).sort()).toEqual(['plain', 'tooled']);
      for (const line of lines) {
        const fork = forks.find((f) => attrOf(f.attributes, 'gen_ai.agent.id') === line.id) as Span;
        expect(fork.parentSpanId).toBe(fanOut.spanId);
        const calls = spans.filter((s) => s.parentSpanId === fork.spanId && s.name === 'chat gpt-4.1-mini');
        expect(calls.length).toBeGreaterThan(0);
        expect(calls.reduce((n, c) => n + Number(attrOf(c.attributes, 'gen_ai.usage.input_tokens')), 0)).toBe(line.usage.promptTokens);
        expect(calls.reduce((n, c) => n + Number(attrOf(c.attributes, 'gen_ai.usage.output_tokens')), 0)).toBe(line.usage.outputTokens);
      }
      const tooled = forks.find((f) => attrOf(f.attributes, 'gen_ai.agent.id') === 'tooled') as Span;
      const tool = spans.find((s) => s.name === 'execute_tool read_file');
      expect(tool?.parentSpanId).toBe(tooled.spanId);
      expect(attrOf(tool?.attributes, 'gen_ai.tool.name')).toBe('read_file');
      // No content unless --otel-capture-content.
      expect(spans.some((s) => attrOf(s.attributes, 'gen_ai.input.messages') !== undefined)).toBe(false);

      // The metrics: the conventions' token histogram (with their buckets) adds up to the run's report.
      const metrics = metricsOf(receiver);
      const names = new Set(metrics.map((m) => m.name));
      for (const name of ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration', 'forkpool.forks']) expect(names).toContain(name);
      const usage = pointsOf(metrics, 'gen_ai.client.token.usage');
      expect(sumOf(usage, (p) => attrOf(p.attributes, 'gen_ai.token.type') === 'input')).toBe(summary.promptTokens);
      expect(sumOf(usage, (p) => attrOf(p.attributes, 'gen_ai.token.type') === 'output')).toBe(summary.outputTokens);
      for (const point of usage) expect(point.explicitBounds).toEqual(TOKEN_BUCKETS);
      for (const point of pointsOf(metrics, 'gen_ai.client.operation.duration')) expect(point.explicitBounds).toEqual(DURATION_BUCKETS);
      expect(sumOf(pointsOf(metrics, 'forkpool.forks'), (p) => attrOf(p.attributes, 'forkpool.fork.status') === 'completed')).toBe(2);

      // The key went to the model (which refuses any other) and to no collector.
      expect(everything(receiver)).not.toContain(SECRET);
      expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
    } finally {
      await receiver.close();
    }
  });

  it('an unreachable collector is said once on stderr and does not fail the run', async () => {
    const receiver = await startReceiver();
    // Nothing listens at the port once the receiver is closed.
    await receiver.close();
    const run = await runCli(
      [
        'run',
        '--session',
        OPENAI_SESSION,
        '--tasks',
        writeTasks(mkdtempSync(join(tmp, 'down-')), [{ id: 'one', directive: 'REPLY one' }]),
        '--output-format',
        'json',
      ],
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      },
    );
    expect(run.code).toBe(0);
    expect(run.stderr.match(/forkpool: OpenTelemetry: /g)).toHaveLength(1);
  });
});

describe('forkpool prompt with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the parent agent, its fan-out and forks in one trace; --otel-capture-content adds the content attributes', async () => {
    const receiver = await startReceiver();
    try {
      const run = await runCli(
        [
          'prompt',
          '--session',
          OPENAI_SESSION,
          '--provider',
          'openai',
          '--base-url',
          `${serve.url}/v1`,
          '--otel-capture-content',
          'FORK REPLY forked-7d2e',
        ],
        {
          env: { OPENAI_API_KEY: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
        },
      );
      expect(run.code).toBe(0);
      const spans = spansOf(receiver);
      const main = spans.filter((s) => s.name === 'invoke_agent main');
      expect(main).toHaveLength(1);
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([(main[0] as Span).traceId]));
      expect(spans.filter((s) => s.name === 'invoke_agent fork')).toHaveLength(1);
      // Content, asked for: the prompt is on the parent's model calls.
      const withContent = spans.filter((s) =>
        String(attrOf(s.attributes, 'gen_ai.input.messages') ?? '').includes('FORK REPLY forked-7d2e'),
      );
      expect(withContent.length).toBeGreaterThan(0);
      expect(everything(receiver)).not.toContain(SECRET);
    } finally {
      await receiver.close();
    }
  });
});

// ---- Prometheus text ----

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text format: `# TYPE name type` lines and `name{label="value",...} value` samples. */
function parsePrometheus(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key as string] = value as string;
    samples.push({ name: sample[1] as string, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

function fetchText(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

describe('forkpool run --metrics-port', () => {
  it('is checked once, naming the flag', async () => {
    const run = await runCli(['run', '--session', OPENAI_SESSION, '--tasks', 'examples/research.jsonl', '--metrics-port', '70000']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--metrics-port: a port from 0 to 65535 (0: a free one), got "70000"');
  });

  it('serves the engine metrics in Prometheus text while the run lasts (0: a free port, printed)', async () => {
    const dir = mkdtempSync(join(tmp, 'prom-'));
    // One fork ends at once; the other sleeps until the test stops the run, keeping the endpoint up.
    const tasks = writeTasks(dir, [
      { id: 'quick', directive: 'REPLY quick' },
      { id: 'slow', directive: 'SLEEP 600000\nREPLY slow' },
    ]);
    const out = join(dir, 'out.jsonl');
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = runCli(
      [
        'run',
        '--session',
        OPENAI_SESSION,
        '--tasks',
        tasks,
        '--warmup',
        'none',
        '--metrics-port',
        '0',
        '--out',
        out,
        '--output-format',
        'json',
      ],
      {
        onSpawn: (spawned) => {
          child = spawned;
          spawned.stderr?.on('data', (chunk: Buffer | string) => (stderr += String(chunk)));
        },
      },
    );
    try {
      const url = await until(
        'the metrics URL on stderr',
        async () => /forkpool: metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)\n/.exec(stderr)?.[1],
      );
      expect(url).not.toMatch(/:0\//);
      // Scraped until the quick fork's end is counted and the slow one's call is in flight (it stays so).
      const { types, samples } = await until('the quick fork counted and the slow one in flight', async () => {
        const { status, text } = await fetchText(url);
        expect(status).toBe(200);
        const parsed = parsePrometheus(text);
        const has = (name: string, ok: (v: number) => boolean): boolean => parsed.samples.some((s) => s.name === name && ok(s.value));
        return has('forkpool_forks_total', (v) => v > 0) && has('forkpool_call_gate_in_flight', (v) => v > 0) ? parsed : undefined;
      });
      expect(types.get('gen_ai_client_token_usage')).toBe('histogram');
      expect(types.get('gen_ai_client_operation_duration')).toBe('histogram');
      expect(types.get('forkpool_forks_total')).toBe('counter');
      for (const gauge of ['forkpool_call_gate_in_flight', 'forkpool_call_gate_limit', 'forkpool_call_gate_waiting'])
        expect(types.get(gauge)).toBe('gauge');
      const one = (name: string, labels: Record<string, string> = {}): number => {
        const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
        expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
        return (found[0] as Sample).value;
      };
      expect(one('forkpool_forks_total', { forkpool_fork_status: 'completed' })).toBe(1);
      expect(one('forkpool_call_gate_in_flight')).toBe(1);
      expect(one('forkpool_call_gate_limit')).toBeGreaterThanOrEqual(one('forkpool_call_gate_in_flight'));
      const input = one('gen_ai_client_token_usage_sum', { gen_ai_token_type: 'input' });
      expect(one('gen_ai_client_token_usage_count', { gen_ai_token_type: 'input' })).toBe(1);
      // The conventions' bucket boundaries, and every bucket a count no larger than the next.
      const buckets = samples.filter((s) => s.name === 'gen_ai_client_token_usage_bucket' && s.labels.gen_ai_token_type === 'input');
      expect(buckets.map((b) => b.labels.le)).toEqual([...TOKEN_BUCKETS.map(String), '+Inf']);
      for (const [i, b] of buckets.entries()) if (i > 0) expect(b.value).toBeGreaterThanOrEqual((buckets[i - 1] as Sample).value);
      expect(one('gen_ai_client_operation_duration_count')).toBe(1);
      expect(one('gen_ai_client_operation_duration_sum')).toBeGreaterThan(0);

      child?.kill('SIGINT');
      const run = await done;
      expect(run.code).toBe(130);
      // The quick fork's usage is the one the histogram counted.
      const quick = (jsonLines(readFileSync(out, 'utf8')) as { id: string; usage: Usage }[]).find((l) => l.id === 'quick');
      expect(input).toBe(quick?.usage.promptTokens);
      // The endpoint ended with the run.
      await expect(fetchText(url)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      child?.kill('SIGKILL');
      await done;
    }
  });
});

describe('forkpool worker with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const KEY = 'fp-otel-cli-key-61c0e4ab';
  const h = queueHarness(KEY, 'forkpool-cli-telemetry-queue-');

  it("flushes on SIGTERM: the tool span it recorded joins the coordinator's trace under its fork; no key", async () => {
    const receiver = await startReceiver();
    h.closeAfter(receiver);
    const model = await h.modelServer();
    // No scheduled export in this test's lifetime: what the worker sends, its flush on SIGTERM sends.
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const worker = await h.startWorker('w1', model.url, [], { env: { ...otel, OTEL_BSP_SCHEDULE_DELAY: '600000' } });
    const tasks = h.writeTasks('otel', [
      { id: 'a', directive: 'REPLY a' },
      { id: 'b', directive: 'CALL read_file {"path":"README.md"}\nREPLY b' },
    ]);
    const run = h.cli(['run', '--session', SESSION, '--tasks', tasks, '--queue', h.queueUrl(), '--output-format', 'json'], otel);
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    // The coordinator's: the fan-out, its forks and their model calls (timed by the worker, recorded here).
    const fanOut = spansOf(receiver).find((s) => s.name === 'invoke_workflow fan-out') as Span;
    expect(fanOut).toBeDefined();
    const forkB = spansOf(receiver).find((s) => s.name === 'invoke_agent fork' && attrOf(s.attributes, 'gen_ai.agent.id') === 'b') as Span;
    expect(forkB.parentSpanId).toBe(fanOut.spanId);
    expect(spansOf(receiver).some((s) => s.name === 'execute_tool read_file')).toBe(false);

    worker.child.kill('SIGTERM');
    expect((await within('the worker', worker.exited)).code).toBe(0);
    // The tool ran in the worker's process: its span came with the worker's last flush, in the coordinator's trace.
    const tool = spansOf(receiver).find((s) => s.name === 'execute_tool read_file');
    expect(tool?.traceId).toBe(fanOut.traceId);
    expect(tool?.parentSpanId).toBe(forkB.spanId);
    expect(everything(receiver)).not.toContain(KEY);
  });
});
