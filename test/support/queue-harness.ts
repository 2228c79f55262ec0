import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { startLocalServer, type LocalServer, type LocalServerOptions } from '../../src/local-server/index.js';
import { CLI, REPO_ROOT, jsonLines, offlineEnv } from '../fixtures/cli/run-cli.js';
import { startRedis, type RedisOptions, type TestRedis } from './redis.js';

/*
 * What the distributed-run test files share: a redis-server of the file's own, a Redis database per
 * test (BullMQ's stalled check is queue-wide: an earlier test's workers with the default 30 s lock
 * would hold back the next test's check), the built CLI spawned as a user runs it, and bounded waits.
 * Call it at the top of a test file: it registers the file's hooks.
 */

const WAIT_MS = 45_000;

/** What the distributed-run tests fork: the example session, and a directive only its history answers. */
export const SESSION = 'examples/session.json';
export const RECALL = 'RECALL MARKER-[0-9A-F]{4}';
export const MARKER_ANSWER = `${RECALL}: MARKER-1F0C`;

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A worker's queue (default: the test's) and environment (added to the CLI's). */
interface WorkerOptions {
  queue?: string;
  env?: NodeJS.ProcessEnv;
  /** Its provider's flags (default: Gemini's client at the model server). */
  provider?: readonly string[];
}

export interface QueueHarness {
  /** This test's queue: redis://…/N, a database of its own. */
  queueUrl(): string;
  /** The file's temporary folder. */
  tmp(): string;
  /** The file's redis-server. */
  server(): TestRedis;
  /** The built CLI, in the offline environment plus the test's Gemini key (plus env); stopped after the test. */
  cli(args: readonly string[], env?: NodeJS.ProcessEnv): Spawned;
  /** A `forkpool worker` on this test's queue, once it says it is ready. */
  startWorker(name: string, modelUrl: string, extra?: readonly string[], options?: WorkerOptions): Promise<Spawned>;
  /** Closed after the test (model servers, proxies). */
  closeAfter(server: { close(): Promise<void> }): void;
  /** The local simulated model, requiring the test's key and capturing requests; closed after the test. */
  modelServer(options?: LocalServerOptions): Promise<LocalServer>;
  /** Writes tasks as JSONL into the file's temporary folder; returns the path. */
  writeTasks(name: string, tasks: readonly object[]): string;
}

/** `redis` gives the file's server its options (a password, an ACL user, TLS), from the file's temporary folder. */
export function queueHarness(key: string, tmpPrefix: string, redisOptions: (tmp: string) => RedisOptions = () => ({})): QueueHarness {
  let redis: TestRedis | undefined;
  let db = 0;
  let queueUrl = '';
  let tmp = '';
  const children = new Set<ChildProcess>();
  const servers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
    redis = await startRedis(redisOptions(tmp));
  });
  beforeEach(() => {
    db++;
    queueUrl = `${(redis as TestRedis).url}/${db}`;
  });
  afterEach(async () => {
    await Promise.all([...children].map((child) => stop(child)));
    children.clear();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Spawned {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...offlineEnv(), GEMINI_API_KEY: key, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => {
        children.delete(child);
        resolve({ code, signal });
      }),
    );
    return { child, stdout: () => out, stderr: () => err, exited };
  }

  return {
    queueUrl: () => queueUrl,
    tmp: () => tmp,
    server: () => redis as TestRedis,
    cli,
    async startWorker(name, modelUrl, extra = [], options = {}) {
      const queue = options.queue ?? queueUrl;
      const provider = options.provider ?? ['--provider', 'gemini', '--base-url', modelUrl];
      const w = cli(['worker', '--queue', queue, ...provider, '--workspace', '.', '--threads', '1', '--name', name, ...extra], options.env);
      await until(
        `worker ${name} to be ready (stderr: ${w.stderr()})`,
        () => w.stderr().includes(' ready on ') || w.child.exitCode !== null,
      );
      expect(w.child.exitCode).toBeNull();
      return w;
    },
    closeAfter: (server) => void servers.push(server),
    async modelServer(options = {}) {
      const server = await startLocalServer({ captureRequests: true, requireApiKey: key, ...options });
      servers.push(server);
      return server;
    },
    writeTasks(name, tasks) {
      const path = join(tmp, `${name}.jsonl`);
      writeFileSync(path, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
      return path;
    },
  };
}

/** SIGTERM, then SIGKILL after 10 s: a child that will not stop does not hang the suite. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** Polls until `ok()` holds; fails with `what` after WAIT_MS. */
export async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The promise, or a failure naming `what` after WAIT_MS. */
export async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The lines of a JSONL file, parsed; none when it is not there (yet). */
export function linesOf(path: string): Record<string, unknown>[] {
  return existsSync(path) ? jsonLines(readFileSync(path, 'utf8')) : [];
}

/** Every key and every value in the Redis database, as text. */
export async function everythingIn(url: string): Promise<{ keys: string[]; text: string }> {
  const client = new Redis(url);
  try {
    const keys = await client.keys('*');
    const parts: string[] = [];
    for (const key of keys) {
      const type = await client.type(key);
      parts.push(key);
      if (type === 'string') parts.push((await client.getBuffer(key))?.toString('utf8') ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await client.smembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await client.zrange(key, 0, -1, 'WITHSCORES')));
      else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
      else parts.push(`<${type}>`);
    }
    return { keys, text: parts.join('\n') };
  } finally {
    client.disconnect();
  }
}
