/**
 * The `queue` section (issue 16): the same run, local and distributed. One local model server (a
 * process of its own), one redis-server of the benchmark's own, the built CLI spawned as a user runs it:
 *   local        `forkpool run --provider local --base-url …` (one process, its worker threads)
 *   k workers    `forkpool worker --queue …` × k, then `forkpool run --queue …` as the coordinator
 * Same session (16 KiB), tasks (3 model calls, 2 tool calls: list_dir in a one-file workspace),
 * latency, warm-up none, 64 forks in flight in all (each of k workers takes ceil(64 / k)).
 * Measured: forks/s (the run's own wallMs, start-up excluded; the process's wall time too), the
 * time from enqueue to a worker's start per fork (BullMQ's timestamp → processedOn), Redis's
 * used_memory (less its client buffers) sampled every 10 ms with the jobs waiting, active and completed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { BenchConfig } from './config.js';
import { runningJobs } from './lib/child.js';
import { startRedis } from './lib/redis.js';
import { withServer } from './lib/server.js';
import { makeSession } from './lib/session.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const PREFIX_BYTES = 16 * 1024;

type QueueLatency = 'zero' | 'fast' | 'realistic';

export interface RedisMemory {
  /** used_memory − mem_clients_normal (bytes): data, without the connections' buffers. */
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
  /** The sample with the most forks waiting or active (the earliest such). */
  atPeakInFlight: { inFlight: number; completed: number; dataBytes: number; clientsBytes: number };
  /** MEMORY USAGE of one active job's hash, taken at the most forks in flight. */
  activeJobHashBytes: number | null;
  /** Mean MEMORY USAGE of the completed jobs' hashes after the run (kept an hour, with their results). */
  completedJobHashBytes: number | null;
  samples: number;
}

export interface QueueRow {
  latency: QueueLatency;
  /** 0: the local run. */
  workers: number;
  n: number;
  rep: number;
  completed: number;
  failed: number;
  /** The run's own wall time (its report's wallMs: from the fan-out's start, process start-up excluded). */
  wallMs: number;
  forksPerSecond: number;
  /** The local or coordinator process, spawn to exit. */
  processMs: number;
  threadsPerProcess: number;
  concurrencyPerProcess: number;
  /** Per worker process, as its report gives it: forks, CPU (start-up included). */
  perWorker: { id: string; forks: number; cpuMs: number }[];
  /** BullMQ's job timestamp → processedOn, per fork, ms. */
  queueWaitMs: { p50: number; p90: number; max: number } | null;
  redis: RedisMemory | null;
  /**
   * CPU of forkpool's own processes (the local run, or the coordinator and every worker), start-up
   * included: the benchmark's reaped children's CPU (/proc/self/stat cutime + cstime) over the run.
   */
  forkpoolCpuMs: number;
  /** Of that, what the worker processes had spent when they were ready (start-up: modules, threads, Redis connections). */
  workerStartupCpuMs: number;
  /** redis-server's CPU over the run (INFO cpu). */
  redisCpuMs: number | null;
  loadBefore: number;
  loadAfter: number;
}

export interface QueueResult {
  rows: QueueRow[];
  memory: QueueRow | null;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** CPU of this process's children that have exited and been reaped, ms (Linux; 0 elsewhere). */
function reapedChildrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** A live process's CPU so far (utime + stime), ms. */
function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const f = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (f('used_cpu_user') + f('used_cpu_sys')) * 1000;
}

interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function cli(args: readonly string[]): Spawned {
  const env = { ...process.env };
  for (const key of ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'OPENAI_API_KEY']) delete env[key];
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  runningJobs.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      runningJobs.delete(child);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function stopChild(s: Spawned): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 15_000);
  await s.exited;
  clearTimeout(timer);
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`queue bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

interface Report {
  forks: { completed: number; failed: number; total: number };
  wallMs: number;
  forksPerSecond: number;
  workers?: { id: string; forks: number; cpuMs: number }[];
}

function parseReport(s: Spawned): Report {
  const line = s
    .stdout()
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"type":"result"'));
  if (!line) throw new Error(`queue bench: no report from the run (stderr: ${s.stderr().slice(-500)})`);
  return JSON.parse(line) as Report;
}

function parseInfo(text: string, field: string): number {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Data bytes: used_memory less the clients' buffers (how many connections are open is not the queue's data). */
async function memoryNow(redis: Redis): Promise<{ dataBytes: number; clientsBytes: number }> {
  const info = await redis.info('memory');
  const clients = parseInfo(info, 'mem_clients_normal');
  return { dataBytes: parseInfo(info, 'used_memory') - clients, clientsBytes: clients };
}

const Q = 'bull:forkpool';

/** Samples Redis every 10 ms until stopped. */
function sampleRedis(redis: Redis): { stop(): Promise<Omit<RedisMemory, 'beforeBytes' | 'afterBytes' | 'completedJobHashBytes'>> } {
  let running = true;
  let peakBytes = 0;
  let samples = 0;
  let at = { inFlight: -1, completed: 0, dataBytes: 0, clientsBytes: 0 };
  let activeJobHashBytes: number | null = null;
  const loop = (async () => {
    while (running) {
      const [info, wait, active, completed, first] = (
        (await redis
          .pipeline()
          .info('memory')
          .llen(`${Q}:wait`)
          .llen(`${Q}:active`)
          .zcard(`${Q}:completed`)
          .lindex(`${Q}:active`, 0)
          .exec()) ?? []
      ).map((r) => r[1]) as [string, number, number, number, string | null];
      samples++;
      const clientsBytes = parseInfo(info, 'mem_clients_normal');
      const dataBytes = parseInfo(info, 'used_memory') - clientsBytes;
      peakBytes = Math.max(peakBytes, dataBytes);
      if (wait + active > at.inFlight) {
        at = { inFlight: wait + active, completed, dataBytes, clientsBytes };
        if (first) activeJobHashBytes = ((await redis.call('MEMORY', 'USAGE', `${Q}:${first}`)) as number | null) ?? activeJobHashBytes;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { peakBytes, atPeakInFlight: at, activeJobHashBytes, samples };
    },
  };
}

/** Enqueue → start per fork, and the completed jobs' hash size, from the jobs BullMQ keeps. */
async function jobFigures(redis: Redis): Promise<{ waits: number[]; hashBytes: number | null }> {
  const ids = await redis.zrange(`${Q}:completed`, 0, -1);
  const p = redis.pipeline();
  for (const id of ids) p.hmget(`${Q}:${id}`, 'timestamp', 'processedOn');
  const waits = ((await p.exec()) ?? [])
    .map((r) => r[1] as [string | null, string | null])
    .filter(([t, s]) => t !== null && s !== null)
    .map(([t, s]) => Number(s) - Number(t))
    .sort((a, b) => a - b);
  let total = 0;
  const some = ids.slice(0, 50);
  for (const id of some) total += ((await redis.call('MEMORY', 'USAGE', `${Q}:${id}`)) as number | null) ?? 0;
  return { waits, hashBytes: some.length > 0 ? total / some.length : null };
}

interface Inputs {
  session: string;
  tasks: string;
  workspace: string;
}

function writeInputs(dir: string, n: number): Inputs {
  const session = join(dir, 'session.json');
  writeFileSync(session, JSON.stringify(makeSession(PREFIX_BYTES)));
  const workspace = join(dir, 'ws');
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'notes.txt'), 'queue bench\n');
  const tasks = join(dir, `tasks-${n}.jsonl`);
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `f${i}`,
      directive: `Probe part ${i}.\nCALL list_dir {"path":"."}\nCALL@2 list_dir {"path":"."}\nREPLY done ${i}`,
    }),
  );
  writeFileSync(tasks, `${lines.join('\n')}\n`);
  return { session, tasks, workspace };
}

interface RunSpec {
  latency: QueueLatency;
  workers: number;
  n: number;
  rep: number;
  concurrency: number;
  threads: number;
}

async function runLocal(spec: RunSpec, inputs: Inputs, modelUrl: string): Promise<QueueRow> {
  const loadBefore = loadavg()[0] ?? 0;
  const cpu0 = reapedChildrenCpuMs();
  const t0 = performance.now();
  const run = cli([
    'run',
    '--session',
    inputs.session,
    '--tasks',
    inputs.tasks,
    '--provider',
    'local',
    '--base-url',
    modelUrl,
    '--workspace',
    inputs.workspace,
    '--warmup',
    'none',
    '--threads',
    String(spec.threads),
    '--concurrency',
    String(spec.concurrency),
    '--output-format',
    'json',
    '--out',
    join(dirname(inputs.tasks), 'out-local.jsonl'),
    '--overwrite', // each repetition starts again
  ]);
  await run.exited;
  const processMs = performance.now() - t0;
  const r = parseReport(run);
  return {
    ...spec,
    completed: r.forks.completed,
    failed: r.forks.total - r.forks.completed,
    wallMs: r.wallMs,
    forksPerSecond: r.forksPerSecond,
    processMs,
    threadsPerProcess: spec.threads,
    concurrencyPerProcess: spec.concurrency,
    perWorker: [],
    queueWaitMs: null,
    redis: null,
    forkpoolCpuMs: reapedChildrenCpuMs() - cpu0,
    workerStartupCpuMs: 0,
    redisCpuMs: null,
    loadBefore,
    loadAfter: loadavg()[0] ?? 0,
  };
}

async function runDistributed(spec: RunSpec, inputs: Inputs, modelUrl: string, redisUrl: string, redis: Redis): Promise<QueueRow> {
  await redis.flushall();
  // The threads of the local run, shared out (at least one per process); the forks in flight likewise.
  const threads = Math.max(1, Math.floor(spec.threads / spec.workers));
  const concurrency = Math.ceil(spec.concurrency / spec.workers);
  const cpu0 = reapedChildrenCpuMs();
  const redisCpu0 = await redisCpuMs(redis);
  const workers = Array.from({ length: spec.workers }, (_, i) =>
    cli([
      'worker',
      '--queue',
      redisUrl,
      '--provider',
      'local',
      '--base-url',
      modelUrl,
      '--workspace',
      inputs.workspace,
      '--threads',
      String(threads),
      '--concurrency',
      String(concurrency),
      '--name',
      `w${i + 1}`,
    ]),
  );
  try {
    for (const w of workers)
      await until(`a worker to be ready (${w.stderr().slice(-300)})`, () => w.stderr().includes(' ready on ') || w.child.exitCode !== null);
    if (workers.some((w) => w.child.exitCode !== null))
      throw new Error(`queue bench: a worker exited: ${workers.map((w) => w.stderr()).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
    const workerStartupCpuMs = workers.reduce((a, w) => a + processCpuMs(w.child.pid), 0);
    const before = await memoryNow(redis);
    const loadBefore = loadavg()[0] ?? 0;
    const sampler = sampleRedis(redis);
    const t0 = performance.now();
    const run = cli([
      'run',
      '--session',
      inputs.session,
      '--tasks',
      inputs.tasks,
      '--queue',
      redisUrl,
      '--warmup',
      'none',
      '--concurrency',
      String(spec.concurrency),
      '--output-format',
      'json',
      '--out',
      join(dirname(inputs.tasks), `out-q${spec.workers}.jsonl`),
      '--overwrite',
    ]);
    await run.exited;
    const processMs = performance.now() - t0;
    const sampled = await sampler.stop();
    const loadAfter = loadavg()[0] ?? 0;
    const r = parseReport(run);
    const after = await memoryNow(redis);
    const jobs = await jobFigures(redis);
    const redisCpu = (await redisCpuMs(redis)) - redisCpu0;
    // Every worker stopped and reaped: its CPU is in the children's total.
    await Promise.all(workers.map((w) => stopChild(w)));
    return {
      ...spec,
      completed: r.forks.completed,
      failed: r.forks.total - r.forks.completed,
      wallMs: r.wallMs,
      forksPerSecond: r.forksPerSecond,
      processMs,
      threadsPerProcess: threads,
      concurrencyPerProcess: concurrency,
      perWorker: (r.workers ?? []).map((w) => ({ id: w.id, forks: w.forks, cpuMs: w.cpuMs })),
      queueWaitMs:
        jobs.waits.length > 0 ? { p50: quantile(jobs.waits, 0.5), p90: quantile(jobs.waits, 0.9), max: jobs.waits.at(-1) as number } : null,
      redis: { beforeBytes: before.dataBytes, afterBytes: after.dataBytes, completedJobHashBytes: jobs.hashBytes, ...sampled },
      forkpoolCpuMs: reapedChildrenCpuMs() - cpu0,
      workerStartupCpuMs,
      redisCpuMs: redisCpu,
      loadBefore,
      loadAfter,
    };
  } finally {
    await Promise.all(workers.map((w) => stopChild(w)));
  }
}

function describe(row: QueueRow): string {
  const who = row.workers === 0 ? 'local' : `${row.workers} worker${row.workers > 1 ? 's' : ''}`;
  const wait = row.queueWaitMs ? `  enqueue→start p50 ${row.queueWaitMs.p50.toFixed(0)} ms p90 ${row.queueWaitMs.p90.toFixed(0)} ms` : '';
  const mem = row.redis
    ? `  redis ${(row.redis.beforeBytes / 1024).toFixed(0)} → ${(row.redis.peakBytes / 1024).toFixed(0)} → ${(row.redis.afterBytes / 1024).toFixed(0)} KiB (peak in flight ${row.redis.atPeakInFlight.inFlight})`
    : '';
  return `    queue      ${row.latency.padEnd(9)} ${who.padEnd(10)} N=${row.n} ${row.forksPerSecond.toFixed(1).padStart(6)} forks/s  wall ${row.wallMs.toFixed(0)} ms (process ${row.processMs.toFixed(0)} ms)  cpu ${(row.forkpoolCpuMs / row.n).toFixed(1)} ms/fork (worker start-ups ${row.workerStartupCpuMs.toFixed(0)} ms)${row.redisCpuMs !== null ? ` + redis ${(row.redisCpuMs / row.n).toFixed(1)}` : ''}  load ${row.loadBefore.toFixed(1)}→${row.loadAfter.toFixed(1)}${wait}${mem}${row.failed > 0 ? `  FAILED ${row.failed}` : ''}`;
}

export async function runQueueSection(cfg: BenchConfig): Promise<QueueResult> {
  if (!existsSync(CLI)) throw new Error(`queue bench: ${CLI} is missing; run npm run build first`);
  const q = cfg.queue;
  const dir = mkdtempSync(join(tmpdir(), 'forkpool-bench-queue-'));
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 3 });
  const result: QueueResult = { rows: [], memory: null };
  try {
    const inputs = writeInputs(dir, q.n);
    for (const { latency, repeats } of q.latencies) {
      await withServer(latency, async (server) => {
        // Warm the model's cache and the CLI's code paths once, not measured.
        await runLocal({ latency, workers: 0, n: q.n, rep: 0, concurrency: q.concurrency, threads: cfg.threads }, inputs, server.url);
        for (let rep = 1; rep <= repeats; rep++) {
          for (const workers of [0, ...q.workers]) {
            const spec = { latency, workers, n: q.n, rep, concurrency: q.concurrency, threads: cfg.threads };
            const row =
              workers === 0
                ? await runLocal(spec, inputs, server.url)
                : await runDistributed(spec, inputs, server.url, redisServer.url, redis);
            log(describe(row));
            result.rows.push(row);
          }
        }
      });
    }
    // Redis memory with one wave in flight: as many forks as the concurrency, at a latency where they stay in flight.
    const memory = q.memory;
    if (memory !== null)
      await withServer(memory.latency, async (server) => {
        const memInputs = writeInputs(dir, memory.n);
        const row = await runDistributed(
          { latency: memory.latency, workers: 1, n: memory.n, rep: 1, concurrency: q.concurrency, threads: cfg.threads },
          memInputs,
          server.url,
          redisServer.url,
          redis,
        );
        log(describe(row));
        result.memory = row;
      });
  } finally {
    redis.disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
