import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Piscina } from 'piscina';
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

type HostFork = ForkPort<ForkMessage, HostMessage>;

/** A fork's main-thread end, and where it is: until its thread opens it, what is sent to it waits here. */
interface Fork {
  port: HostFork;
  thread: Outbox | undefined;
  waiting: Envelope[] | undefined;
}

/** A fork's channel as startFork opens it: the main thread's end, what its job carries, and what the job transfers. */
export interface OpenedLink {
  end: WirePort<ForkMessage, HostMessage>;
  link: ForkLink;
  transferList: MessagePort[] | undefined;
}

/** The channels of a pool's threads (src/wire/mux.ts), by pool: registered when the pool is made. */
const byPool = new WeakMap<object, ThreadChannels>();

/**
 * The main thread's end of every thread channel of one pool. A thread hands its channel over
 * Piscina's parentPort at its first fork; a fork's first message on it (`open`) says which thread
 * runs it, and what was sent to the fork before then follows.
 */
class ThreadChannels {
  private readonly forks = new Map<number, Fork>();
  private lastId = 0;

  constructor(pool: Pick<Piscina, 'on'>) {
    pool.on('message', (message: unknown) => {
      const port = (message as Record<string, unknown> | null)?.[THREAD_CHANNEL];
      if (port !== undefined) this.attach(port as MessagePort);
    });
  }

  private attach(thread: MessagePort): void {
    // What this thread sends a thread's forks in one turn of the event loop goes in one post, as theirs do (src/wire/mux.ts).
    const outbox = createOutbox(thread, (envelope, err) => this.unsent(outbox, envelope, err));
    thread.on('message', (message: ChannelMessage) => eachEnvelope(message, (envelope) => this.receive(outbox, envelope)));
    // The thread died (or its pool was destroyed): its forks' channels close, as their ports did.
    thread.once('close', () => {
      for (const fork of [...this.forks.values()]) if (fork.thread === outbox) fork.port.hangUp();
    });
    // The channel lives as long as its thread; it must not keep an embedder's process alive (Piscina refs a thread that has work).
    thread.unref();
  }

  /**
   * A message structured clone refused: an answer becomes the fork's failed answer (the fork hears
   * why instead of waiting), anything else closes the fork's channel.
   */
  private unsent(thread: Outbox, envelope: Envelope, err: unknown): void {
    const message = 'message' in envelope ? (envelope.message as HostMessage) : undefined;
    if (message?.type === 'answer' && !('failed' in message))
      thread.send({
        fork: envelope.fork,
        message: { type: 'answer', id: message.id, failed: err instanceof Error ? err.message : String(err) },
      });
    else this.forks.get(envelope.fork)?.port.close();
  }

  private receive(thread: Outbox, envelope: Envelope): void {
    const fork = this.forks.get(envelope.fork);
    if (!fork) {
      // A fork this end has closed (its run ended first): it hears so, as from a closed port.
      if (!('control' in envelope && envelope.control === 'close')) thread.send({ fork: envelope.fork, control: 'close' });
      return;
    }
    if (fork.thread === undefined) {
      fork.thread = thread;
      const waiting = fork.waiting;
      fork.waiting = undefined;
      if (waiting) for (const early of waiting) thread.send(early);
    }
    if (!('control' in envelope)) fork.port.deliver(envelope.message as ForkMessage);
    else if (envelope.control === 'close') fork.port.hangUp();
  }

  open(): OpenedLink {
    const id = ++this.lastId;
    const fork: Fork = {
      port: new ForkPort<ForkMessage, HostMessage>(
        id,
        (envelope) => {
          if (fork.thread) fork.thread.send(envelope);
          else if (fork.waiting) fork.waiting.push(envelope);
          else fork.waiting = [envelope];
        },
        (closed) => this.forks.delete(closed),
      ),
      thread: undefined,
      waiting: undefined,
    };
    this.forks.set(id, fork);
    return { end: fork.port, link: { fork: id }, transferList: undefined };
  }
}

/** Has the pool's threads give their forks one channel per thread (call it as the pool is made, before its first task). */
export function linkThreads(pool: Pick<Piscina, 'on'>): void {
  byPool.set(pool, new ThreadChannels(pool));
}

/** A fork's channel on `pool`: its thread's channel where the pool's threads have one, else a port of its own. */
export function openLink(pool: object): OpenedLink {
  const channels = byPool.get(pool);
  if (channels) return channels.open();
  const { port1, port2 } = new MessageChannel();
  return { end: port1, link: { port: port2 }, transferList: [port2] };
}
