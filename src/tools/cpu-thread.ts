import type { Worker } from 'node:worker_threads';
import { startPlainWorker } from '../thread-start/worker-entry.js';
import type { Tool } from './define.js';
import { fail, succeed, type ToolOutcome } from './outcome.js';

/** What the tool thread is given: where the tool lives, and one call. */
export interface ToolThreadJob {
  module: string;
  name: string;
  args: unknown;
  forkId: string;
}

/** What it answers, once. */
export type ToolThreadAnswer = { ok: true; output: unknown } | { ok: false; message: string };

/**
 * Runs one call of a `cpu: true` tool in a thread of its own. The timeout and a cancel end the
 * thread (`terminate()` interrupts even a synchronous loop), so the call answers within its bound
 * whatever the tool does, and the main thread never runs the tool's code at all.
 */
export function runInThread(tool: Tool, args: unknown, forkId: string, signal: AbortSignal, timeoutMs: number): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    const job: ToolThreadJob = { module: tool.module as string, name: tool.name, args, forkId };
    let worker: Worker;
    try {
      worker = startPlainWorker('tool-thread', { workerData: job });
    } catch (err) {
      resolve(fail('threw', `${tool.name} could not start its thread: ${(err as Error).message}`));
      return;
    }
    let settled = false;
    const finish = (outcome: ToolOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish(fail('timeout', `${tool.name} did not finish within ${timeoutMs} ms; its thread was stopped.`)),
      timeoutMs,
    );
    const onAbort = (): void => finish(fail('aborted', `${tool.name} was cancelled.`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (answer: ToolThreadAnswer) => {
      finish(answer.ok ? succeed(tool.name, answer.output) : fail('threw', `${tool.name} failed: ${answer.message}`));
    });
    worker.once('error', (err) => finish(fail('threw', `${tool.name} failed in its thread: ${err.message}`)));
    worker.once('exit', (code) => finish(fail('threw', `${tool.name}: its thread exited (code ${code}) before answering`)));
  });
}
