/** Starts bench/lib/server-process.ts (the local server, or the sink) in a child process and talks to it over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LatencyModel, LatencyPreset, LocalServerMetrics, UsagePreset } from '../../dist/src/local-server/index.js';
import type { SinkMetrics } from './sink.js';

interface ServerStats {
  cpuMs: number;
  metrics: LocalServerMetrics | SinkMetrics;
  /** Request body bytes read so far: servers started with `countRequestBytes` only. */
  requestBytes?: number;
}

export interface ServerProcess {
  url: string;
  pid: number;
  stats(): Promise<ServerStats>;
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));
/** Servers still open, so an interrupted benchmark can close them. */
export const openServers = new Set<ServerProcess>();
const START_TIMEOUT_MS = 20_000;
const STATS_TIMEOUT_MS = 10_000;

/** `options`: the local server's (LocalServerOptions), or `{ sink: true }`. */
async function startServerProcess(options: object): Promise<ServerProcess> {
  const child: ChildProcess = fork(ENTRY, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench server: no ready message in time')), START_TIMEOUT_MS);
    child.on('message', (m: { type?: string; url?: string }) => {
      if (m.type === 'ready' && typeof m.url === 'string') {
        clearTimeout(timer);
        resolve(m.url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench server exited early (code ${code})`));
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });

  let seq = 0;
  let closing: Promise<void> | undefined;
  const server: ServerProcess = {
    url,
    pid: child.pid ?? -1,
    stats() {
      const mine = ++seq;
      return new Promise<ServerStats>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.off('message', onMessage);
          reject(new Error('bench server: no stats answer in time'));
        }, STATS_TIMEOUT_MS);
        const onMessage = (m: { type?: string; seq?: number } & Partial<ServerStats>): void => {
          if (m.type !== 'stats' || m.seq !== mine) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve({
            cpuMs: m.cpuMs as number,
            metrics: m.metrics as ServerStats['metrics'],
            ...(m.requestBytes !== undefined ? { requestBytes: m.requestBytes } : {}),
          });
        };
        child.on('message', onMessage);
        child.send({ type: 'stats', seq: mine });
      });
    },
    close() {
      closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          if (child.connected) child.send({ type: 'close' });
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        openServers.delete(server);
      })();
      return closing;
    },
  };
  openServers.add(server);
  return server;
}

/**
 * Runs `body` with a fresh server process, closed whatever happens. `usage`: the Chat Completions routes' preset (default openai).
 * `countRequestBytes`: its stats say how many request body bytes it has read (it captures each body to
 * count it, which costs the server a JSON.parse per request: its CPU figure is then not the plain server's).
 */
export async function withServer<T>(
  latency: LatencyPreset | LatencyModel,
  body: (server: ServerProcess) => Promise<T>,
  usage?: UsagePreset,
  countRequestBytes = false,
): Promise<T> {
  // Large prefixes: the cache must hold an 8 MiB prefix (~2.2M tokens) and the body limit must pass it.
  // `usage`: which provider the Chat Completions routes simulate (cache rules, usage fields).
  const options = {
    latency,
    cache: { capacityTokens: 16_000_000 },
    maxBodyBytes: 64 * 1024 * 1024,
    ...(usage !== undefined ? { usage } : {}),
    ...(countRequestBytes ? { captureRequests: true } : {}),
  };
  return serving(await startServerProcess(options), body);
}

/** Runs `body` with a fresh sink process (bench/lib/sink.ts), closed whatever happens. */
export async function withSink<T>(body: (server: ServerProcess) => Promise<T>): Promise<T> {
  return serving(await startServerProcess({ sink: true }), body);
}

async function serving<T>(server: ServerProcess, body: (server: ServerProcess) => Promise<T>): Promise<T> {
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}
