/** What an abort signal reaches of a run. */
interface Abortable {
  cancelAll(): void;
  settled(): Promise<void>;
}

/**
 * Ties a fan-out to the caller's AbortSignal: aborted, the run is cancelled whole (queued forks at
 * once, running ones through their cancel); already aborted, before any fork starts. The listener
 * goes when the run is over, so a long-lived signal keeps no finished run alive.
 */
export function cancelOnAbort(signal: AbortSignal, run: Abortable): void {
  if (signal.aborted) {
    run.cancelAll();
    return;
  }
  const abort = () => run.cancelAll();
  signal.addEventListener('abort', abort, { once: true });
  void run.settled().finally(() => signal.removeEventListener('abort', abort));
}
