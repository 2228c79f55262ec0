import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../engine/worker-entry.js';
import type { LocalServerOptions } from './state.js';

/** The local server in a worker thread of its own, so the caller's thread never serves HTTP. */

export type LocalServerThreadOptions = Omit<LocalServerOptions, 'captureRequests'>;

export interface LocalServerThread {
  url: string;
  close(): Promise<void>;
}

/** Messages from workers/local-server.ts. */
export type ThreadMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string } | { type: 'closed' };

/**
 * Compiled: dist/workers/local-server.js, plain Node. From source (vitest, tsx): `--import tsx` in a
 * worker's execArgv does not install tsx's hooks on Node 20 (measured: ERR_UNKNOWN_FILE_EXTENSION),
 * so a tiny eval'd ESM bootstrap registers tsx programmatically, then imports the TS entry.
 */
/** The ESM build of tsx's public `tsx/esm/api` export (require.resolve would give the CJS one). */
function tsxEsmApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> };
  const target = pkg.exports?.['./esm/api']?.import?.default;
  if (!target) throw new Error('tsx/esm/api has no ESM export');
  return new URL(target, pathToFileURL(manifest)).href;
}

function spawnWorker(options: LocalServerThreadOptions): Worker {
  const entry = workerEntry('local-server');
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry.filename, { workerData: options });
  const tsxApi = tsxEsmApiUrl();
  const target = pathToFileURL(entry.filename).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: options });
}

export async function startLocalServerThread(options: LocalServerThreadOptions = {}): Promise<LocalServerThread> {
  const worker = spawnWorker(options);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onMessage = (message: ThreadMessage): void => {
      if (message.type === 'ready') resolve(message.url);
      else if (message.type === 'failed') reject(new Error(`local server thread: ${message.message}`));
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`local server thread exited early (code ${code})`)));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        worker.postMessage({ type: 'close' });
        const timer = setTimeout(() => void worker.terminate(), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** Body of the worker entry: start, report the URL, close on request, then let the thread end. */
export async function runLocalServerThread(
  options: LocalServerThreadOptions,
  port: { postMessage(message: ThreadMessage): void; on(event: 'message', listener: (message: unknown) => void): void; close(): void },
): Promise<void> {
  const { startLocalServer } = await import('./server.js');
  let server;
  try {
    server = await startLocalServer(options);
  } catch (err) {
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  const running = server;
  port.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'close') {
      void running.close().then(() => {
        port.postMessage({ type: 'closed' });
        port.close();
      });
    }
  });
  port.postMessage({ type: 'ready', url: running.url });
}
