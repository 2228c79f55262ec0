/**
 * The local model server in a process of its own (the engine under test never shares a thread
 * or an event loop with it), or with `{ "sink": true }` the sink (bench/lib/sink.ts). Started by
 * bench/lib/server.ts over IPC:
 *   parent → { type: 'stats' } | { type: 'close' };  child → { type: 'ready', url } | { type: 'stats', … }.
 * Exits when told to, or when the parent goes away (IPC disconnect).
 * With `captureRequests`, the stats also say how many request body bytes the server has read.
 */
import { startLocalServer, type CapturedRequest, type LocalServer, type LocalServerOptions } from '../../dist/src/local-server/index.js';
import { startSink } from './sink.js';

type Request = { type: 'stats'; seq: number } | { type: 'close' };

/** Request body bytes so far, from the server's capture; each body is let go once counted, so a long run holds none. */
function requestBytesCounter(server: LocalServer): () => number {
  let bytes = 0;
  const captured = server.requests as CapturedRequest[];
  return () => {
    for (const request of captured) bytes += Buffer.byteLength(request.body);
    captured.length = 0;
    return bytes;
  };
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LocalServerOptions & { sink?: boolean };
  const local = options.sink === true ? undefined : await startLocalServer(options);
  const server = local ?? (await startSink());
  const requestBytes = local !== undefined && options.captureRequests === true ? requestBytesCounter(local) : undefined;
  const send = (message: unknown): void => {
    if (process.connected) process.send?.(message);
  };
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await server.close();
    process.exit(0);
  };
  process.on('message', (message: Request) => {
    if (message.type === 'close') void close();
    else if (message.type === 'stats') {
      const cpu = process.cpuUsage();
      const metrics = server.metrics();
      send({
        type: 'stats',
        seq: message.seq,
        cpuMs: (cpu.user + cpu.system) / 1000,
        metrics,
        ...(requestBytes ? { requestBytes: requestBytes() } : {}),
      });
    }
  });
  process.on('disconnect', () => void close());
  send({ type: 'ready', url: server.url });
}

main().catch((err: unknown) => {
  console.error('bench server process:', err);
  process.exit(1);
});
