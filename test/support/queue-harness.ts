import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { CLI, REPO_ROOT, offlineEnv } from '../fixtures/cli/run-cli.js';
import { startRedis, type TestRedis } from './redis.js';

/*
 * What the distributed-run test files share: a redis-server of the file's own, a Redis database per
 * test (BullMQ's stalled check is queue-wide: an earlier test's workers with the default 30 s lock
 * would hold back the next test's check), the built CLI spawned as a user runs it, and bounded waits.
 * Call it at the top of a test file: it registers the file's hooks.
 */

const WAIT_MS = 45_000;

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface QueueHarness {
  /** This test's queue: redis://…/N, a database of its own. */
  queueUrl(): string;
  /** The file's temporary folder. */
  tmp(): string;
  /** The built CLI, in the offline environment plus the test's Gemini key; stopped after the test. */
  cli(args: readonly string[]): Spawned;
  /** A `forkpool worker` on this test's queue, once it says it is ready. */
  startWorker(name: string, modelUrl: string, extra?: readonly string[]): Promise<Spawned>;
  /** Closed after the test (model servers, proxies). */
  closeAfter(server: { close(): Promise<void> }): void;
}

export function queueHarness(key: string, tmpPrefix: string): QueueHarness {
  let redis: TestRedis | undefined;
  let db = 0;
  let queueUrl = '';
  let tmp = '';
  const children = new Set<ChildProcess>();
  const servers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
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

  function cli(args: readonly string[]): Spawned {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...offlineEnv(), GEMINI_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    cli,
    async startWorker(name, modelUrl, extra = []) {
      const w = cli(['worker', '--queue', queueUrl, '--provider', 'gemini', '--base-url', modelUrl, '--workspace', '.', '--threads', '1', '--name', name, ...extra]);
      await until(`worker ${name} to be ready (stderr: ${w.stderr()})`, () => w.stderr().includes(' ready on ') || w.child.exitCode !== null);
      expect(w.child.exitCode).toBeNull();
      return w;
    },
    closeAfter: (server) => void servers.push(server),
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
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
