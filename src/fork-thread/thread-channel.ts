import { MessageChannel, parentPort, type MessagePort } from 'node:worker_threads';
import { ForkPort, THREAD_CHANNEL, type Envelope, type WirePort } from '../wire/mux.js';
import type { ForkLink, ForkMessage, HostMessage } from '../wire/protocol.js';

type ThreadFork = ForkPort<HostMessage, ForkMessage>;

/** This thread's channel to the main thread, shared by its forks (src/wire/mux.ts): made at its first fork. */
let channel: { port: MessagePort; forks: Map<number, ThreadFork> } | undefined;

function threadChannel(): NonNullable<typeof channel> {
  if (channel) return channel;
  if (!parentPort) throw new Error("a fork's thread channel is opened in a pool thread only");
  const { port1, port2 } = new MessageChannel();
  // Piscina passes what a thread posts on its parentPort to the pool's 'message' listeners (src/engine/thread-channels.ts).
  parentPort.postMessage({ [THREAD_CHANNEL]: port2 }, [port2]);
  const forks = new Map<number, ThreadFork>();
  port1.on('message', (envelope: Envelope) => {
    const fork = forks.get(envelope.fork);
    if (!fork) return;
    if ('control' in envelope) fork.hangUp();
    else fork.deliver(envelope.message as HostMessage);
  });
  // The main thread's end is gone: no fork of this thread is heard any more.
  port1.once('close', () => {
    channel = undefined;
    for (const fork of [...forks.values()]) fork.hangUp();
  });
  channel = { port: port1, forks };
  return channel;
}

/** The fork's end of its channel: its share of this thread's channel, or the port its job brought. */
export function forkPortOf(link: ForkLink): WirePort<HostMessage, ForkMessage> {
  if ('port' in link) return link.port;
  const { port, forks } = threadChannel();
  const fork: ThreadFork = new ForkPort(
    link.fork,
    (envelope) => port.postMessage(envelope),
    (id) => forks.delete(id),
  );
  forks.set(link.fork, fork);
  // The main thread learns here which thread runs the fork: what it sends the fork goes there from now on.
  port.postMessage({ fork: link.fork, control: 'open' } satisfies Envelope);
  return fork;
}
