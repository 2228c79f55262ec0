import type { Failure } from '../input/failure.js';
import type { SubagentType } from '../session/schema.js';
import type { TokenUsage } from '../model/types.js';
import type { Finish } from '../model/finish.js';
import type { ToolOutcome } from '../tools/host.js';
import type { ForkResult, ForkStatus } from '../result/fork-result.js';

export type ForkEvent =
  /** `description`: its directive's first line, cut at 60 characters; `directive`: the whole directive. */
  | { type: 'task_started'; forkId: string; description: string; directive: string; subagentType?: SubagentType }
  /** A model call answered: its usage, the calls it asked for, why it stopped (where the provider said). */
  | { type: 'turn'; forkId: string; turn: number; usage: TokenUsage; functionCalls: number; finish?: Finish }
  | { type: 'tool_call'; forkId: string; tool: string; status: ToolOutcome['status']; error?: Failure }
  /** A message of the fork's own conversation, in the session's shape (only in a run with transcripts). */
  | { type: 'message'; forkId: string; turn: number; role: 'seed' | 'model' | 'tool' | 'user'; message: unknown; usage?: TokenUsage }
  | { type: 'task_notification'; forkId: string; status: ForkStatus; result: ForkResult };

export interface EventsOptions {
  /**
   * Replay the events this run still keeps (at most the last `eventReplayLimit`, default 1,000:
   * all of them for a run that has produced fewer) before the live ones.
   */
  replay?: boolean;
}

interface Subscriber<E> {
  queue: E[];
  wake: (() => void) | undefined;
}

/**
 * The run's event stream. A subscriber sees the events from its subscription on (the moment
 * `read()` is called), plus, on request, the bounded tail the log keeps for replay; nothing else is
 * kept, so a run's memory does not grow with the events it has produced. Every reader ends once the
 * log is closed (every fork terminal).
 */
export function createEventLog<E>(replayLimit: number) {
  const recent: E[] = [];
  let oldest = 0; // ring buffer: `recent[oldest]` is the oldest event kept once it is full
  const subscribers = new Set<Subscriber<E>>();
  let closed = false;
  const kept = (): E[] => (recent.length < replayLimit ? recent.slice() : [...recent.slice(oldest), ...recent.slice(0, oldest)]);
  return {
    push(event: E): void {
      if (closed) return;
      if (replayLimit > 0) {
        if (recent.length < replayLimit) recent.push(event);
        else {
          recent[oldest] = event;
          oldest = (oldest + 1) % replayLimit;
        }
      }
      for (const sub of subscribers) {
        sub.queue.push(event);
        sub.wake?.();
      }
    },
    close(): void {
      closed = true;
      for (const sub of subscribers) sub.wake?.();
    },
    /**
     * Subscribes now. The iterator unsubscribes when the log ends or the reader stops (`break`,
     * `return()`), also before its first read; a subscriber that never reads keeps its own backlog.
     */
    read(options: EventsOptions = {}): AsyncIterableIterator<E> {
      const sub: Subscriber<E> = { queue: options.replay === true ? kept() : [], wake: undefined };
      subscribers.add(sub);
      const done = (): IteratorReturnResult<undefined> => {
        subscribers.delete(sub);
        sub.queue.length = 0;
        return { done: true, value: undefined };
      };
      const iterator: AsyncIterableIterator<E> = {
        async next(): Promise<IteratorResult<E>> {
          for (;;) {
            if (!subscribers.has(sub)) return done();
            if (sub.queue.length > 0) return { done: false, value: sub.queue.shift() as E };
            if (closed) return done();
            await new Promise<void>((resolve) => (sub.wake = resolve));
            sub.wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<E>> {
          const wake = sub.wake;
          const result = done();
          wake?.();
          return result;
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
  };
}
