import { MessageChannel, parentPort, threadId } from 'node:worker_threads';
import type { ForkResult } from '../result/fork-result.js';
import { emptyFailure } from '../result/results.js';
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
let channel: { outbox: Outbox; forks: Map<number, ThreadFork> } | undefined;

function threadChannel(): NonNullable<typeof channel> {
  if (channel) return channel;
  if (!parentPort) throw new Error("a fork's thread channel is opened in a pool thread only");
  const { port1, port2 } = new MessageChannel();
  // Piscina passes what a thread posts on its parentPort to the pool's 'message' listeners (src/engine/thread-channels.ts).
  parentPort.postMessage({ [THREAD_CHANNEL]: port2 }, [port2]);
  const forks = new Map<number, ThreadFork>();
  // A fork whose message structured clone refused: its channel closes (its calls end, the main thread hears it).
  // A result it refused is replaced, in its place (before its channel's close), by the fork's failure saying why.
  const outbox = createOutbox(port1, (envelope, err) => {
    const message = 'message' in envelope ? (envelope.message as ForkMessage) : undefined;
    if (message?.type === 'end') port1.postMessage(unsentResult(envelope.fork, message.result.id, err));
    else forks.get(envelope.fork)?.close();
  });
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
  channel = { outbox, forks };
  return channel;
}

function unsentResult(fork: number, id: string, err: unknown): Envelope {
  return { fork, message: { type: 'end', result: resultNotSent(id, err) } };
}

/** The failure that replaces a fork's result structured clone refused (a value in it cannot cross threads). */
export function resultNotSent(id: string, err: unknown): ForkResult {
  return emptyFailure(id, 'error', `the fork's result could not be sent: ${err instanceof Error ? err.message : String(err)}`, threadId);
}

/** Settles once what the fork has sent on `link` is posted (its result included): its job ends after it. */
export function linkPosted(link: ForkLink): Promise<void> {
  return 'port' in link || channel === undefined ? Promise.resolve() : channel.outbox.posted();
}

/** The fork's end of its channel: its share of this thread's channel, or the port its job brought. */
export function forkPortOf(link: ForkLink): WirePort<HostMessage, ForkMessage> {
  if ('port' in link) return link.port;
  const { outbox, forks } = threadChannel();
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
      // The result, the fork's last message, goes with what else this thread sends in this turn (forks that
      // end together share a post: each post wakes the main thread), and closes the fork's channel in the
      // same post (the main thread has nothing to close then).
      outbox.send(envelope);
      outbox.send({ fork: link.fork, control: 'close' });
      fork.hangUp();
    },
    (id) => forks.delete(id),
  );
  forks.set(link.fork, fork);
  // The main thread learns here which thread runs the fork: what it sends the fork goes there from now on.
  outbox.send({ fork: link.fork, control: 'open' });
  return fork;
}
