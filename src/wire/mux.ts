/**
 * One channel per fork thread, shared by the forks the thread runs: each message goes in an envelope
 * naming its fork, and each fork sees a port of its own (ForkPort) that behaves as a MessagePort of
 * its own did. A MessagePort per fork cost the main thread a channel's making, its transfer with the
 * task and its close, per fork; the thread's channel is made once, when the thread runs its first fork.
 */
// node:timers' own, not the global: an embedder's test with fake timers (they replace the global) must not hold a fork's messages.
import { setImmediate } from 'node:timers';

/** What both ends of a fork's channel use of a port: a MessagePort, or a fork's share of its thread's channel. */
export interface WirePort<In, Out> {
  postMessage(message: Out): void;
  on(event: 'message', listener: (message: In) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  close(): void;
  removeAllListeners(): unknown;
}

/** A message on a thread's channel: one of a fork's, or the fork's channel opening (fork side) or closing (either side). */
export type Envelope = { fork: number; message: unknown } | { fork: number; control: 'open' | 'close' };

/** What one post on a thread's channel carries: an envelope, or several in the order they were sent. */
export type ChannelMessage = Envelope | readonly Envelope[];

/** Hands each envelope of a channel message to `handle`, in order. */
export function eachEnvelope(message: ChannelMessage, handle: (envelope: Envelope) => void): void {
  if (Array.isArray(message)) for (const envelope of message as readonly Envelope[]) handle(envelope);
  else handle(message as Envelope);
}

/**
 * The envelopes sent on a thread's channel during one turn of the event loop, posted together when
 * it ends (setImmediate). A post wakes the other thread, and that wake-up, not the copy, is most of
 * what a small message costs: a one-call fork's open, gate call, events and closing call would each
 * wake the main thread. Order is kept: the batch goes in the order it was sent, before anything
 * sent later. An envelope that cannot be cloned (a value structured clone refuses) goes to `unsent`
 * and the rest of its batch is still posted.
 */
export interface Outbox {
  send(envelope: Envelope): void;
  /** Posts what waits now (nothing when nothing does). */
  flush(): void;
  /** Settles once what waits now has been posted (at once when nothing waits). */
  posted(): Promise<void>;
}

export function createOutbox(
  port: { postMessage(message: ChannelMessage): void },
  unsent: (envelope: Envelope, err: unknown) => void,
): Outbox {
  let waiting: Envelope[] = [];
  let scheduled = false;
  let onPosted: (() => void)[] = [];
  const flush = (): void => {
    scheduled = false;
    const batch = waiting;
    const settle = onPosted;
    if (batch.length === 0) return;
    waiting = [];
    onPosted = [];
    try {
      port.postMessage(batch.length === 1 ? (batch[0] as Envelope) : batch);
    } catch {
      for (const envelope of batch) {
        try {
          port.postMessage(envelope);
        } catch (err) {
          // What cannot be sent must not keep the rest of the batch, or a job waiting on posted(), from going.
          try {
            unsent(envelope, err);
          } catch {}
        }
      }
    } finally {
      for (const resolve of settle) resolve();
    }
  };
  return {
    send(envelope) {
      waiting.push(envelope);
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
    flush,
    posted() {
      if (waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => onPosted.push(resolve));
    },
  };
}

/** The key of the message (on Piscina's `parentPort`) that hands a thread's channel to the main thread. */
export const THREAD_CHANNEL = 'forkpoolThreadChannel';

/**
 * A fork's share of its thread's channel. Messages that arrive before the fork listens wait for it,
 * as a MessagePort's do; closing one end closes the other (the envelope `close`), and a thread's
 * channel that closes closes every fork on it.
 */
export class ForkPort<In, Out> implements WirePort<In, Out> {
  private listener: ((message: In) => void) | undefined;
  private closeListener: (() => void) | undefined;
  private early: In[] | undefined;
  private closed = false;

  constructor(
    private readonly fork: number,
    private readonly send: (envelope: Envelope) => void,
    /** Forgets the fork on its thread's channel (its state is released there). */
    private readonly drop: (fork: number) => void,
  ) {}

  postMessage(message: Out): void {
    if (!this.closed) this.send({ fork: this.fork, message });
  }

  on(_event: 'message', listener: (message: In) => void): this {
    this.listener = listener;
    const early = this.early;
    this.early = undefined;
    if (early) for (const message of early) listener(message);
    return this;
  }

  once(_event: 'close', listener: () => void): this {
    this.closeListener = listener;
    return this;
  }

  /** A message for this fork from the other end. */
  deliver(message: In): void {
    if (this.closed) return;
    if (this.listener) this.listener(message);
    else if (this.early) this.early.push(message);
    else this.early = [message];
  }

  /** This end closes: the other end hears it. */
  close(): void {
    if (this.closed) return;
    this.send({ fork: this.fork, control: 'close' });
    this.hangUp();
  }

  /** The other end closed, or the thread's channel did: this end is closed too. */
  hangUp(): void {
    if (this.closed) return;
    this.closed = true;
    this.drop(this.fork);
    const listener = this.closeListener;
    this.removeAllListeners();
    listener?.();
  }

  removeAllListeners(): this {
    this.listener = undefined;
    this.closeListener = undefined;
    this.early = undefined;
    return this;
  }
}
