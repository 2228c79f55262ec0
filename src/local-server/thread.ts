// Shared on purpose: where a worker entry point lives (source or dist) and how to start it is the
// package's layout, one rule for every worker; nothing about a provider.
import { startPlainWorker } from '../thread-start/worker-entry.js';
import type { LocalServerOptions } from './state.js';

/** The local server in a worker thread of its own, so the caller's thread never serves HTTP. */

export type LocalServerThreadOptions = Omit<LocalServerOptions, 'captureRequests'>;

export interface LocalServerThread {
  url: string;
  close(): Promise<void>;
}

/** Messages from workers/local-server.ts. */
export type ThreadMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string } | { type: 'closed' };

export async function startLocalServerThread(options: LocalServerThreadOptions = {}): Promise<LocalServerThread> {
  const worker = startPlainWorker('local-server', { workerData: options });
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
  let server: Awaited<ReturnType<typeof startLocalServer>>;
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
