/**
 * The local model server in a process of its own (the engine under test never shares a thread
 * or an event loop with it), or with `{ "sink": true }` the sink (bench/lib/sink.ts). Started by
 * bench/lib/server.ts over IPC:
 *   parent → { type: 'stats' } | { type: 'close' };  child → { type: 'ready', url } | { type: 'stats', … }.
 * Exits when told to, or when the parent goes away (IPC disconnect).
 */
import { startLocalServer, type LocalServerOptions } from '../../dist/src/local-server/index.js';
import { startSink } from './sink.js';

type Request = { type: 'stats'; seq: number } | { type: 'close' };

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LocalServerOptions & { sink?: boolean };
  const server = options.sink === true ? await startSink() : await startLocalServer(options);
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
      send({ type: 'stats', seq: message.seq, cpuMs: (cpu.user + cpu.system) / 1000, metrics });
    }
  });
  process.on('disconnect', () => void close());
  send({ type: 'ready', url: server.url });
}

main().catch((err: unknown) => {
  console.error('bench server process:', err);
  process.exit(1);
});
