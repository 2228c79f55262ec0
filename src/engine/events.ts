import type { TokenUsage } from '../model/types.js';
import type { ToolOutcome } from '../tools/host.js';
import type { ForkResult, ForkStatus } from './protocol.js';

export type ForkEvent =
  | { type: 'task_started'; forkId: string; description: string }
  | { type: 'turn'; forkId: string; turn: number; usage: TokenUsage; functionCalls: number }
  | { type: 'tool_call'; forkId: string; tool: string; status: ToolOutcome['status']; reason?: string }
  | { type: 'task_notification'; forkId: string; status: ForkStatus; result: ForkResult };

/**
 * An append-only event log that any number of readers iterate from the start; every iterator
 * ends once the log is closed (every fork terminal).
 */
export function createEventLog<E>() {
  const entries: E[] = [];
  let closed = false;
  let wake: (() => void)[] = [];
  const notify = (): void => {
    const waiting = wake;
    wake = [];
    for (const w of waiting) w();
  };
  return {
    push(event: E): void {
      if (closed) return;
      entries.push(event);
      notify();
    },
    close(): void {
      closed = true;
      notify();
    },
    async *read(): AsyncGenerator<E, void, undefined> {
      let next = 0;
      for (;;) {
        while (next < entries.length) yield entries[next++] as E;
        if (closed) return;
        await new Promise<void>((resolve) => wake.push(resolve));
      }
    },
  };
}
