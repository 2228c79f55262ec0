import { MessageChannel, parentPort, type MessagePort } from 'node:worker_threads';
import {
  createOutbox,
  eachEnvelope,
  ForkPort,
  THREAD_CHANNEL,
  type ChannelMessage,
  type Envelope,
  type Outbox,
  type WirePort,
} from '../wire/mux.js';
import type { ForkLink, ForkMessage, HostMessage } from '../wire/protocol.js';

type ThreadFork = ForkPort<HostMessage, ForkMessage>;

/** This thread's channel to the main thread, shared by its forks (src/wire/mux.ts): made at its first fork. */
let channel: { port: MessagePort; outbox: Outbox; forks: Map<number, ThreadFork> } | undefined;

function threadChannel(): NonNullable<typeof channel> {
  if (channel) return channel;
  if (!parentPort) throw new Error("a fork's thread channel is opened in a pool thread only");
  const { port1, port2 } = new MessageChannel();
  // Piscina passes what a thread posts on its parentPort to the pool's 'message' listeners (src/engine/thread-channels.ts).
  parentPort.postMessage({ [THREAD_CHANNEL]: port2 }, [port2]);
  const forks = new Map<number, ThreadFork>();
  // A fork whose message structured clone refused: its channel closes (its calls end, the main thread hears it).
  const outbox = createOutbox(port1, (envelope) => forks.get(envelope.fork)?.close());
  port1.on('message', (message: ChannelMessage) =>
    eachEnvelope(message, (envelope) => {
      const fork = forks.get(envelope.fork);
      if (!fork) return;
      if ('control' in envelope) fork.hangUp();
      else fork.deliver(envelope.message as HostMessage);
    }),
  );
  // The main thread's end is gone: no fork of this thread is heard any more.
  port1.once('close', () => {
    channel = undefined;
    for (const fork of [...forks.values()]) fork.hangUp();
  });
  // A thread that exits (process.exit, an uncaught error) sends what waits first: the main thread learns which forks it ran.
  process.once('exit', () => outbox.flush());
  channel = { port: port1, outbox, forks };
  return channel;
}

/** The fork's end of its channel: its share of this thread's channel, or the port its job brought. */
export function forkPortOf(link: ForkLink): WirePort<HostMessage, ForkMessage> {
  if ('port' in link) return link.port;
  const { port, outbox, forks } = threadChannel();
  const fork: ThreadFork = new ForkPort(
    link.fork,
    (envelope) => {
      const message = 'message' in envelope ? (envelope.message as ForkMessage) : undefined;
      if (message?.type !== 'end') {
        outbox.send(envelope);
        // A transcript line goes at once: a thread that dies next must not take it along (a revived fork reads it).
        if (message?.type === 'event' && message.event.type === 'transcript') outbox.flush();
        return;
      }
      // The result, the fork's last message, goes now and closes the fork's channel in the same post (the
      // main thread has nothing to close then). A result structured clone refuses throws to the fork's end,
      // as a port's postMessage does, and the channel stays open for the failure that replaces it.
      outbox.flush();
      port.postMessage([envelope, { fork: link.fork, control: 'close' }] satisfies Envelope[]);
      fork.hangUp();
    },
    (id) => forks.delete(id),
  );
  forks.set(link.fork, fork);
  // The main thread learns here which thread runs the fork: what it sends the fork goes there from now on.
  outbox.send({ fork: link.fork, control: 'open' });
  return fork;
}
