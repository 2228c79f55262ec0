import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCertificate } from './tls-certificate.js';

/*
 * A real redis-server per test file: its own free port on loopback, its own temporary directory,
 * no persistence; stopped (and its directory removed) by stop(). No system service is used.
 * `.ci/run` installs Debian's redis-server when it is missing.
 */

export interface RedisOptions {
  /** requirepass: the password of the default user. */
  password?: string;
  /** An ACL user with every right (keys, channels, commands). */
  user?: { name: string; password: string };
  /** A TLS port as well, with this certificate; clients show none (tls-auth-clients no). */
  tls?: TestCertificate;
}

export interface TestRedis {
  /** redis://[:PASSWORD@]127.0.0.1:PORT: the default user, with its password when it has one. */
  url: string;
  port: number;
  /** The TLS port, when asked for. */
  tlsPort?: number;
  /** SIGKILL, then start again on the same ports, empty: a Redis restarted without its data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** A port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
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

function argsOf(port: number, tlsPort: number | undefined, dir: string, options: RedisOptions): string[] {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  if (options.user) args.push('--user', options.user.name, 'on', `>${options.user.password}`, '~*', '&*', '+@all');
  if (options.tls && tlsPort !== undefined) {
    const { certFile, keyFile, caFile } = options.tls;
    args.push(
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      certFile,
      '--tls-key-file',
      keyFile,
      '--tls-ca-cert-file',
      caFile,
      '--tls-auth-clients',
      'no',
    );
  }
  return args;
}

function startOnce(args: readonly string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start in ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
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
      reject(new Error(`redis-server could not be started (is it installed? .ci/run installs it): ${err.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

/** Ends the server: SIGTERM, or SIGKILL (at once when asked, or after 5 s). */
function end(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill(signal);
  });
}

/** Starts redis-server on a free port (tried again on another port if the first was taken meanwhile). */
export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'forkpool-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const tlsPort = options.tls ? await freePort() : undefined;
    const args = argsOf(port, tlsPort, dir, options);
    try {
      let child = await startOnce(args);
      const auth = options.password !== undefined ? `:${encodeURIComponent(options.password)}@` : '';
      return {
        url: `redis://${auth}127.0.0.1:${port}`,
        port,
        ...(tlsPort !== undefined ? { tlsPort } : {}),
        async restart() {
          await end(child, 'SIGKILL');
          child = await startOnce(args);
        },
        async stop() {
          await end(child, 'SIGTERM');
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
