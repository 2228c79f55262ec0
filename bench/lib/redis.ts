/**
 * A redis-server of the benchmark's own: a free port on loopback, a temporary directory, no
 * persistence (as test/support/redis.ts starts one for the tests); stopped, its directory removed, by stop().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningJobs } from './child.js';

export interface BenchRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function startOnce(port: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start in 10 s:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`redis-server could not be started (is it installed?): ${err.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

export async function startRedis(): Promise<BenchRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'forkpool-bench-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      const child = await startOnce(port, dir);
      runningJobs.add(child);
      return {
        url: `redis://127.0.0.1:${port}`,
        pid: child.pid ?? -1,
        stop: () =>
          new Promise<void>((resolve) => {
            const done = (): void => {
              runningJobs.delete(child);
              rmSync(dir, { recursive: true, force: true });
              resolve();
            };
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.kill('SIGTERM');
          }),
      };
    } catch (err) {
      lastError = err;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
